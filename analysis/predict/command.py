"""./testbed predict RESULT: the model fitted to a result folder's baseline, asked about a
configuration — throughput, response time and the bottleneck per user count, checked by
simulation — or which configuration reaches a target throughput (--target), and with how
many users.

    ./testbed predict results/clones-20250301-142501 --clones 4 --axis 2 --client-mode pool \\
        --pool 16 --users 4,16,64
    ./testbed predict results/clones-20250301-142501 --target 100/s --think-time 30
    ./testbed predict results/clones-20250301-142501 --users 4,16,64 --json
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict
from pathlib import Path

from analysis.load.folder import NotAResultFolder, load
from analysis.predict import baseline_demands as dmod, buildcost, check, figures, forecast, target as tmod
from analysis.predict.fit import Config, fit, model
from analysis.predict.model import solve_model
from analysis.steps import run_steps

MODES = ("singleton", "request", "pool")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def users_list(text: str) -> list[int]:
    try:
        out = sorted({int(u) for u in text.split(",") if u.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected user counts like 4,16,64 (got {text!r})") from None
    if not out or out[0] < 1 or out[-1] > 5000:
        raise argparse.ArgumentTypeError(f"user counts must be 1..5000 (got {text!r})")
    return out


def rate(text: str) -> float:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(/s)?\s*", text)
    if not m or float(m.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"expected a throughput like 100/s (got {text!r})")
    return float(m.group(1))


def _positive(name: str, cast=int):
    def parse(text: str):
        try:
            v = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected a number (got {text!r})") from None
        if not v > 0 and not (cast is float and v == 0 and name == "--think-time"):
            raise argparse.ArgumentTypeError(f"{name} must be > 0 (got {text})")
        return v
    return parse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", help="a clones or classic result folder with a baseline run (1 clone, 1 service "
                                  "replica, singleton client)")
    p.add_argument("--clones", type=_positive("--clones"), default=1, help="client tier replicas (default 1)")
    p.add_argument("--axis", "--gsoap", dest="service", type=_positive("--axis"), default=1,
                   help="replicas of the service the baseline called (default 1)")
    p.add_argument("--client-mode", choices=MODES, default=None,
                   help="client lifecycle (default singleton; with --target: every lifecycle)")
    p.add_argument("--pool", type=_positive("--pool"), default=None, metavar="P",
                   help="clients per clone in --client-mode pool (default 8)")
    p.add_argument("--users", type=users_list, default=None, help="user counts, e.g. 4,16,64 (default: the "
                                                                  "baseline's steps)")
    p.add_argument("--think-time", type=_positive("--think-time", float), default=None, metavar="Z",
                   help="seconds between a user's requests (default: the experiment's)")
    p.add_argument("--cores", type=_positive("--cores", float), default=None,
                   help="CPU cores of the stack (default: as measured)")
    p.add_argument("--target", type=rate, default=None, metavar="X/s",
                   help="answer the smallest configuration reaching this throughput, and its users")
    p.add_argument("--experiment", default=None, metavar="FILE.toml",
                   help="with --target: write an experiment that measures the configuration named (and the "
                        "baseline beside it): ./testbed run FILE.toml checks the answer")
    p.add_argument("--fit-runs", default=None, metavar="RUN,...|none",
                   help="runs whose steps the CPU fit U = U0 + D·X uses besides the baseline's (other "
                        "throughputs: e.g. a pool run). Default: the baseline's path-5 segment runs in a "
                        "classic folder, none in a clones one; 'none': the baseline's steps alone")
    p.add_argument("--json", action="store_true", help="the same figures as JSON")
    p.add_argument("--no-check", action="store_true", help="skip the simulation's check (faster)")
    p.add_argument("-o", "--output", default=None, help="the plot (PNG; default FOLDER/plots/predict-....png)")


def main(argv: list[str] | None = None, prog: str = "testbed predict") -> int:
    p = _Parser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    args = p.parse_args(argv)
    if args.pool is not None and args.client_mode not in (None, "pool"):
        p.error("--pool goes with --client-mode pool")
    if args.experiment and not args.target:
        p.error("--experiment goes with --target (it measures the configuration the target names)")
    try:
        result, steps, d, fitted = fitted_folder(args.folder, fit_run_ids(args.fit_runs))
    except (NotAResultFolder, dmod.NoBaseline) as e:
        p.error(str(e))
    mode = args.client_mode or ("pool" if args.pool else "singleton")
    cfg = Config(clones=args.clones, service=args.service, client_mode=mode,
                 pool_size=(args.pool or 8) if mode == "pool" else None, think_time=args.think_time, cores=args.cores)
    request = None
    if mode == "request" or args.target:
        request = request_fit(result, steps, d, fitted)
        if mode == "request" and request is None:
            p.error("a client per request cannot be predicted from a singleton baseline (its per-call client build "
                    "never happens there): the folder needs the client-build probe (build_probe.json, which "
                    "./testbed run clones measures before its per-request run) or a request run to take that cost "
                    "from; see docs/predict.md")
    out = {"folder": str(result.path), "fitted_to": d.baseline_runs, "config": asdict(cfg), "text": cfg.text(),
           "demands": d.to_json(), "fit": fitted.to_json()}
    z = args.think_time if args.think_time is not None else d.think_time_s
    if args.target:
        modes = [args.client_mode] if args.client_mode else list(MODES)
        answer = tmod.smallest(fitted, args.target, cfg, modes, request, z, result.settings.tolerance)
        out["target"] = _jsonable(answer)
        if args.experiment and answer.get("config") is not None:
            from analysis.predict.check_run import experiment_toml
            base = next(r for r in result.runs if r.id == d.baseline_runs[0]).meta
            Path(args.experiment).write_text(experiment_toml(answer["config"], answer, base, str(result.path)))
            out["experiment"] = args.experiment
    else:
        users = args.users or sorted({s.users for s in d.steps})
        m = model(fitted, cfg, think_time=z, request=request)
        points = []
        for u in users:
            pt = solve_model(m, u).to_json()
            if not args.no_check:
                pt["simulation"] = check.check_point(m, pt)
            points.append(pt)
        out["points"] = points
        out["throughput"] = {str(pt["users"]): pt["throughput"] for pt in points}
        out["agree"] = all(pt.get("simulation", {}).get("agree", True) for pt in points)
        png = Path(args.output) if args.output else result.path / "plots" / f"predict-{_slug(cfg)}.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        figures.curves(points, f"predicted: {cfg.text()} (fitted to {', '.join(d.baseline_runs)})").savefig(png, dpi=100)
        out["plot"] = str(png)
    if args.json:
        print(json.dumps(out, indent=1, default=str))
    else:
        print(text(out, d))
    return 0 if out.get("agree", True) else 1


def fitted_folder(folder, fit_runs: tuple[str, ...] | None = None):
    """(the loaded result, its steps, the baseline's demands, the model fitted to them);
    NotAResultFolder or dmod.NoBaseline with the reason when the folder has no baseline."""
    result = load(folder)
    steps = run_steps(result)
    return (result, steps, *fitted_result(result, steps, fit_runs))


def fitted_result(result, steps: dict, fit_runs: tuple[str, ...] | None = None):
    """(the baseline's demands, the model fitted to them) of a result already loaded with its steps
    (analysis.steps.run_steps, or an analysis' own); dmod.NoBaseline when it has no baseline."""
    d = dmod.measure(result, steps, fit_runs=forecast.runs_named(result, fit_runs))
    return d, fit(d)


def fit_run_ids(text: str | None) -> tuple[str, ...] | None:
    """--fit-runs: None (not given) -> None, baseline_demands.measure's default; 'none' -> no run."""
    if text is None:
        return None
    return () if text.strip().lower() == "none" else tuple(r for r in text.split(",") if r.strip())


def request_fit(result, steps, d: dmod.Demands, fitted):
    """A client per request's fit: the baseline plus the client-build probe, else the
    lowest step of a request run of the folder, else None."""
    from analysis.predict.forecast import _request_fit as rc, config_of
    probe, _ = buildcost.read(result.path, result.settings)
    if buildcost.usable(probe, d):
        return buildcost.request_fit(fitted, probe, d)
    runs = [r for r in result.runs if config_of(r.meta).client_mode == "request"]
    if not runs:
        return None
    try:
        return rc(dmod.measure(result, steps, runs=runs, first_step_only=True), d.background)
    except dmod.NoBaseline:
        return None


def _slug(cfg: Config) -> str:
    mode = f"pool{cfg.pool_size}" if cfg.client_mode == "pool" else cfg.client_mode
    return f"{mode}-c{cfg.clones}-s{cfg.service}"


def _jsonable(d: dict) -> dict:
    return {k: (asdict(v) if isinstance(v, Config) else v) for k, v in d.items()}


def demand_table(d: dmod.Demands) -> str:
    """The measured demands, as the report shows them."""
    ms = lambda e: "-" if e is None else (f"{e.mean * 1e3:.3f}" + (f" [{e.low * 1e3:.3f}, {e.high * 1e3:.3f}]"  # noqa: E731
                                                                  if e.low is not None else ""))
    lines = [f"demands per request, from {', '.join(d.baseline_runs)} ({len(d.steps)} valid steps; mean [95 % "
             "interval over the steps], ms):"]
    for t, e in sorted(d.cpu.items()):
        u0 = d.background.get(t)
        lines.append(f"  CPU {t:13s} {ms(e)}" + ("" if u0 is None else f"   + background {u0:.3f} cores (U = U0 + D·X)"))
    lines += [f"  lock held       {ms(d.lock_hold)}   (its thread's CPU meanwhile {ms(d.lock_cpu)})",
              f"  lock wait       {ms(d.lock_wait)}",
              f"  service wait {d.service_wait_s * 1e3:.3f} (configured); think time {d.think_time_s:g} s; CPU "
              + ", ".join(f"{k} {v:g} cores" for k, v in d.pools.items())
              + f"; front threads {d.threads.get('front')}"]
    lines += [f"  note: {m}" for m in d.missing]
    shared = dmod.beside_other_load_text(d.beside_other_load)
    if shared:
        lines.append(f"  warning: {shared}")
    return "\n".join(lines)


def text(out: dict, d: dmod.Demands) -> str:
    fitted = out["fit"]
    lines = [demand_table(d), f"residual latency (fitted): inside the lock {fitted['residual_latency_s'] * 1e3:.3f} ms, "
             f"outside it {fitted['residual_outside_s'] * 1e3:.3f} ms"]
    lines += [f"note: {n}" for n in fitted["notes"]]
    if "target" in out:
        t = out["target"]
        if t.get("config") is None:
            lines.append(f"target {t['target']:g}/s: not reachable: {t['why']}")
        elif t["reached"]:
            lines.append(f"target {t['target']:g}/s: smallest configuration {t['text']}: {t['max_throughput']:.1f}/s "
                         f"at saturation ({t['bottleneck']}), critical users N* = {t['critical_users']}"
                         + (f"; with think time {t['think_time_s']:g} s it serves N = N* + X·Z = "
                            f"{t['critical_users']} + {t['max_throughput']:.1f} × {t['think_time_s']:g} = "
                            f"{t['users']:.0f} users" if t["think_time_s"] else ""))
            if out.get("experiment"):
                lines.append(f"check it: ./testbed run {out['experiment']}   (the baseline and this configuration)")
        else:
            lines.append(f"target {t['target']:g}/s: no configuration up to {tmod.MAX_REPLICAS} clones reaches it; "
                         f"the best, {t['text']}, gives {t['max_throughput']:.1f}/s ({t['bottleneck']})")
        return "\n".join(lines)
    lines.append(f"predicted: {out['text']} (think time {out['points'][0].get('users') and ''}"
                 f"{out['config'].get('think_time') if out['config'].get('think_time') is not None else d.think_time_s:g} s)")
    lines.append(f"{'users':>6} {'X (/s)':>9} {'R (ms)':>9}  {'bottleneck':12s} {'utilisation':28s} simulation")
    for pt in out["points"]:
        util = ", ".join(f"{k} {v:.0%}" for k, v in pt["utilisation"].items())
        sim = pt.get("simulation")
        s = "-" if not sim else (f"{sim['throughput']:.1f} ± {sim['throughput_ci']:.1f}/s, "
                                 f"{'agrees' if sim['agree'] else 'DISAGREES'} "
                                 f"({sim['deviation']['throughput']:+.1%} X, {sim['deviation']['response_time']:+.1%} R)")
        lines.append(f"{pt['users']:>6} {pt['throughput']:>9.1f} {pt['response_time'] * 1e3:>9.2f}  "
                     f"{pt['bottleneck']:12s} {util:28s} {s}")
    lines.append(f"plot: {out['plot']}")
    if not out["agree"]:
        lines.append(f"the model's solution and its simulation differ by more than {check.AGREEMENT:.0%} at some "
                     "point: do not trust those points (docs/predict.md, 'when it is wrong')")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
