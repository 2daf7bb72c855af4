"""./testbed capacity --slo slo.toml [--from FOLDER]: the smallest configuration of the clone tier
that meets the service levels at the load they state — chosen by the model fitted to FOLDER's
baseline, then measured, with its smaller neighbour, walking on while the measurement disagrees
(analysis/capacity.py says the walk; docs/compare.md, "Capacity").

Writes results/capacity-<time>/: capacity.json, capacity.html, the experiment file of each
measurement and each measurement's own result folder (measurements/). The stack is started if
down (and stopped at the end), or reused and put back as it was. Exit 0: an answer measured;
1: none (not reachable, none met, the budget spent, a measurement failed); 2: bad input; 130: Ctrl-C
(what was measured is kept and written).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from analysis import capacity as cap
from analysis import slo

MODES = ("singleton", "pool", "request")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--slo", required=True, metavar="FILE",
                   help="the service levels (slo.toml, docs/compare.md): those under \"*\" or \"/seg/5\"; the "
                        "load to size for is their largest \"throughput >= X/s\" or \"at X/s\"")
    p.add_argument("--from", dest="source", default=None, metavar="FOLDER",
                   help="the result folder whose baseline the model is fitted to (a clones or classic run); "
                        "default: the newest such folder under --results")
    p.add_argument("--results", default=None, metavar="DIR", help="where capacity-<time>/ goes (default: results/)")
    p.add_argument("--budget", type=int, default=cap.BUDGET, metavar="N",
                   help=f"measure at most N configurations (default {cap.BUDGET})")
    p.add_argument("--lifecycles", default=",".join(MODES), metavar="LIST",
                   help="client lifecycles the ladder may use, of singleton,pool,request (default all; request "
                        "needs a folder that measured a client's build)")
    p.add_argument("--docker", action="store_true",
                   help="when no stack runs, start the containerized one instead of local processes")


def _source(folder: str | None, results_dir: Path):
    """(folder, result, steps, demands, fitted) of --from, or of the newest folder that has a baseline."""
    from analysis.load.folder import NotAResultFolder
    from analysis.predict import baseline_demands as dmod
    from analysis.predict.command import fitted_folder
    if folder is not None:
        try:
            return (Path(folder), *fitted_folder(folder))
        except (NotAResultFolder, dmod.NoBaseline, OSError) as e:
            raise cap.CapacityError(f"--from {folder}: {e}") from None
    found = sorted((p for p in results_dir.glob("*-*") if (p / "experiment.json").is_file()),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    for p in found:
        try:
            meta = json.loads((p / "experiment.json").read_text(encoding="utf-8"))
            if meta.get("kind") in ("clones", "classic") and meta.get("status") == "complete":
                return (p, *fitted_folder(p))
        except (NotAResultFolder, dmod.NoBaseline, ValueError, OSError):
            continue
    raise cap.CapacityError(f"no complete clones or classic result with a baseline under {results_dir}: run "
                            "./testbed run clones --quick first, or give --from FOLDER")


def _modes(text: str) -> list[str]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise cap.CapacityError(f"--lifecycles {text!r}: use some of {','.join(MODES)}")
    return modes


def main(args) -> int:
    from testbed.run.runner import RESULTS_DIR
    from testbed.runcmd import sigterm_as_ctrl_c
    sigterm_as_ctrl_c()                   # a CI timeout or kill: what was measured is written, the stack put back
    results_dir = Path(args.results) if args.results else RESULTS_DIR
    try:
        if args.budget < 1:
            raise cap.CapacityError("--budget must be at least 1")
        modes = _modes(args.lifecycles)
        levels = slo.load(args.slo)
        rate, applied, ignored = cap.load_of(levels)
        folder, result, steps, d, fitted = _source(args.source, results_dir)
    except (cap.CapacityError, slo.SloError) as e:
        print(f"testbed: capacity: {e}", file=sys.stderr)
        return 2
    from analysis.predict import target as tmod
    from analysis.predict.command import request_fit
    from analysis.predict.fit import Config
    request = request_fit(result, steps, d, fitted) if "request" in modes else None
    if modes == ["request"] and request is None:
        print(f"testbed: capacity: --lifecycles request: {folder} did not measure a client's build "
              "(build_probe.json, from ./testbed run clones): the model cannot place a client per request",
              file=sys.stderr)
        return 2
    base = Config()
    ladder = cap.Ladder(fitted, base, modes, request, result.settings.tolerance)
    base_meta = next(r for r in result.runs if r.id == d.baseline_runs[0]).meta
    out = results_dir / f"capacity-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    out.mkdir(parents=True, exist_ok=True)
    print(f"capacity: sizing /seg/{cap.PATH} for {rate:g}/s: {'; '.join(lv['text'] for lv in applied)}")
    if ignored:
        print(f"capacity: levels not for /seg/{cap.PATH} left out: {', '.join(ignored)}")
    seconds, capped = cap.step_seconds(applied, rate)
    print(f"capacity: each step measures at least {seconds:g} s, what the levels need at {rate:g}/s"
          + (f" ({capped})" if capped else ""))
    answer = tmod.smallest(fitted, rate, base, modes, request, 0.0, result.settings.tolerance)
    if not answer["reached"]:
        why = answer.get("why") or (f"the largest predicted is {answer['text']} at {answer['max_throughput']:.1f}/s "
                                    f"(up to {tmod.MAX_REPLICAS} clones)")
        r = cap.result(rate, applied, ignored, ladder, None, None, {}, str(folder), "not reachable", why)
        _write(out, r)
        print(cap.text(r) + f"\ncapacity: {out / cap.FILE_HTML}")
        return 1
    choice = ladder.configs.index(answer["config"])
    measurements: dict[int, dict] = {}
    return _walk(args, out, rate, applied, ignored, ladder, choice, measurements, folder, base_meta)


def _walk(args, out: Path, rate, applied, ignored, ladder, choice, measurements, folder, base_meta) -> int:
    from testbed.config import ConfigError, StackConfig
    from testbed.run import reconfigure
    from testbed.stack import StackError
    from testbed.stacks.factory import open_stack
    try:
        stack = open_stack(StackConfig.load(), docker=True if args.docker else None)
    except (ConfigError, StackError) as e:
        print(f"testbed: capacity: {e}", file=sys.stderr)
        return 2
    original = stack.current() if stack.running() else None
    touched: set[str] = set()
    state = {"walked": None, "status": None}

    def save() -> None:
        walked = state["walked"] or {"path": list(measurements), "answer": None}
        _write(out, cap.result(rate, applied, ignored, ladder, choice, walked, measurements, str(folder),
                               state["status"]))

    def measure(i: int) -> bool:
        from analysis.load.folder import load as load_folder
        from analysis.summary import analyse
        from testbed.experiment import definition
        from testbed.run.runner import Runner
        pred = ladder.predicted(i, rate)
        k = len(measurements) + 1
        path = out / f"measure-{k}-{pred['slug']}.toml"
        path.write_text(cap.experiment_toml(pred, base_meta, str(folder), rate, applied), encoding="utf-8")
        print(f"capacity: measurement {k}: {pred['text']} (predicted {pred['max_throughput']:,.1f}/s, "
              f"steps of {cap.step_users(pred)} users)", flush=True)
        exp = definition.load(str(path))
        touched.update(key for run in exp.runs for key in run.stack_knobs())
        runner = Runner(exp, stack, results_dir=out / "measurements", keep_stack=True, restore=False)
        measurements[i] = {"folder": None, "meets": False, "why": "running", "measured": None, "interval": None,
                           "error": None, "levels": [], "users_measured": cap.step_users(pred)}
        result_folder = runner.run()
        measurements[i]["folder"] = str(result_folder) if result_folder else None
        if result_folder is not None:                     # the capacity page links each measurement's report
            measurements[i]["report"] = str(Path(result_folder).relative_to(out) / "report.html")
        if runner.meta.get("status") != "complete" or result_folder is None:
            measurements[i]["why"] = f"the measurement did not complete ({runner.meta.get('status')})"
            raise _Stop(measurements[i]["why"])
        j = cap.judged(analyse(load_folder(result_folder), simulate=False), pred["slug"], applied, pred)
        measurements[i].update(j)
        err = "" if j["error"] is None else f", the model {j['error']:+.1%}"
        print(f"capacity: measurement {k}: {pred['text']}: {j['measured'] or 0:,.1f}/s measured{err}: "
              + ("meets every level" if j["meets"] else f"misses ({j['why']})"), flush=True)
        save()
        return j["meets"]

    code = 0
    try:
        state["walked"] = cap.walk(len(ladder), choice, measure, args.budget)
    except KeyboardInterrupt:
        state["status"], code = "interrupted", 130
    except _Stop as e:
        state["status"], code = f"stopped: {e}", 1
    except Exception as e:                 # the stack would not start, a run could not be made: said, kept
        state["status"], code = f"stopped: {type(e).__name__}: {e}", 1
        print(f"testbed: capacity: {state['status']}", file=sys.stderr)
    finally:
        try:
            if original is None:
                print("capacity: stopping the stack it started")
                stack.down()
            else:
                counts, knobs = original
                back = {k: reconfigure.knob(knobs, k) for k in touched}
                reconfigure.apply(stack, counts, {k: v for k, v in back.items() if v is not None},
                                  log=lambda s: print(f"capacity: {s}"))
        except Exception as e:
            print(f"testbed: capacity: could not put the stack back: {e}; see ./testbed status", file=sys.stderr)
    walked = state["walked"] or {"path": list(measurements), "answer": None}
    r = cap.result(rate, applied, ignored, ladder, choice, walked, measurements, str(folder), state["status"])
    _write(out, r)
    print(cap.text(r) + f"\ncapacity: {out / cap.FILE_HTML}")
    return code or cap.exit_status(r)


class _Stop(RuntimeError):
    """A measurement did not complete: the walk cannot go on."""


def _write(out: Path, r: dict) -> None:
    from analysis.render.pages import render
    (out / cap.FILE_JSON).write_text(json.dumps(r, indent=1, default=str), encoding="utf-8")
    (out / cap.FILE_HTML).write_text(render("capacity.html.j2", c=r), encoding="utf-8")
