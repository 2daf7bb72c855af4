"""summary.json "prediction": the model's predictions beside what was measured.

The prediction is the runner's prediction.json, written after the baseline run(s) and before
the next run started; without that file (an older folder, or an experiment run another way)
it is made now from the baseline alone — the same fit, held-out just the same, but
not provably written first (`written_before_runs` false). A client per request is predicted
from the baseline and the runner's client-build probe (build_probe.json); a folder without one
has it predicted after the fact from its own lowest-load step, marked so (`fitted_to`).
Per configuration:
  predicted_max_throughput / measured_max_throughput (median over repeats) and error
  (predicted − measured) / measured; sweep_mae, the mean |error| over the user steps both have;
  the knee (first step within the tolerance of the maximum), predicted and measured, and how
  many user steps apart; the naive predictions (linear: baseline × multiple; usl: p copies of
  the USL fitted to the baseline's sweep) with their errors; beats_naive, the model's |error|
  below both of theirs; measured_max_interval, what the measurement cannot resolve: the 95 %
  interval of each run's highest step (steps.py), from the lowest low to the highest high over
  the runs, so a repeated configuration's run-to-run spread is in it; naive_tied, the naive
  predictions the model does not beat whose maximum lies in that interval as the model's does
  (the measurement cannot tell the two apart: where a lock bounds the configuration, linear
  scaling is exact to within the noise), and beats_or_ties_naive, a second reading of
  beats_naive that counts such a tie, never in its place; and the simulation's check
  (the largest deviation between the analytic solution and the simulation, over the points);
  host_speed, predicted_at_host_speed and error_at_host_speed (analysis/predict/atspeed.py:
  the host's speed in the measured run against the baseline's, and the model at that speed);
  measured_cold, why the measurement is no test of the prediction (else None): a client per
  request predicted from the probe's warm build and measured on a clone restarted for it and
  not primed, its build path's JIT still compiling (the classic experiment measures the
  lifecycle so; `clones` primes that run six minutes) — such rows are left out of the median
  and largest |error|, which `measured_cold_left_out` names;
  tier_cpu, each tier's CPU per request in the model against the one measured in the highest
  step (analysis/predict/tiercpu.py: where a CPU-bound prediction misses);
  clone_gc, the clone's collector time per request at the lowest and the highest step
  (analysis/predict/clonegc.py: a demand that grows with load, which the model does not see).
"""
from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path

from analysis.predict import baseline_demands as dmod, buildcost, check, clonegc, forecast, tiercpu
from analysis.predict.atspeed import reading as at_host_speed, reference_us as speed_reference_us
from analysis.predict.model import Model

CHECK_FILE = "prediction-check.json"


def _measured(result, steps: dict, run_ids: list[str]
              ) -> tuple[float | None, dict[int, float], int | None, list[float] | None]:
    """Median maximum over the runs, median throughput per user count, measured knee users, and
    measured_max_interval (the module doc): [lowest low, highest high] of the 95 % intervals of
    each run's highest valid step, None when one of those steps has no interval."""
    tops, per_users = [], {}
    for rid in run_ids:
        valid = [s for s in steps.get(rid, []) if s.valid]
        if not valid:
            continue
        tops.append(max(valid, key=lambda s: s.throughput))
        for s in valid:
            per_users.setdefault(s.users, []).append(s.throughput)
    curve = {u: statistics.median(v) for u, v in sorted(per_users.items())}
    if not tops:
        return None, curve, None, None
    ivs = [s.interval for s in tops]
    interval = None if None in ivs else [min(lo for lo, _ in ivs), max(hi for _, hi in ivs)]
    return (statistics.median(s.throughput for s in tops), curve,
            forecast.knee(list(curve), list(curve.values()), result.settings.tolerance), interval)


def naive_reading(err: float | None, pred: float | None, naive: dict[str, tuple[float | None, float | None]],
                  interval: list[float] | None) -> dict:
    """beats_naive, naive_tied and beats_or_ties_naive of one configuration (the module doc).
    naive: name -> (its maximum, its error)."""
    if err is None or pred is None or any(e is None for _, e in naive.values()):
        return {"beats_naive": None, "naive_tied": [], "beats_or_ties_naive": None}
    inside = (lambda x: interval is not None and x is not None and interval[0] <= x <= interval[1])  # noqa: E731
    unbeaten = [n for n, (_, e) in naive.items() if not abs(err) < abs(e)]
    tied = [n for n in unbeaten if inside(naive[n][0]) and inside(pred)]
    return {"beats_naive": not unbeaten, "naive_tied": tied, "beats_or_ties_naive": len(tied) == len(unbeaten)}


def _err(pred: float | None, meas: float | None) -> float | None:
    return None if pred is None or not meas else (pred - meas) / meas


def _measured_cold(c: dict, notes: dict[str, dict], ran: list[str]) -> str | None:
    """measured_cold of one configuration (the module doc): every run of it reconfigured and
    not primed, its prediction resting on the client-build probe."""
    warm = c.get("config", {}).get("client_mode") == "request" and buildcost.rests_on_probe(c.get("fitted_to"))
    if not (warm and ran and all(notes[r].get("reconfigured") and not notes[r].get("primed") for r in ran)):
        return None
    return (f"measured cold: {'its run' if len(ran) == 1 else 'each of its runs'} restarted the clone for the "
            f"lifecycle and measured it unprimed, its build path still compiling, while the prediction "
            f"rests on the probe's warm build ({buildcost.FILE})")


# what the simulation's verdict on a point is made by: a change to any of them re-checks every point
SIMULATION_SOURCES = ("simulate.py", "check.py", "model.py")


def simulation_fingerprint() -> str:
    """A hash of SIMULATION_SOURCES (the simulation, its check and the model it simulates)."""
    h = hashlib.sha256()
    for name in SIMULATION_SOURCES:
        h.update(Path(__file__).with_name(name).read_bytes())
    return h.hexdigest()[:16]


def check_key(model: dict, point: dict, fingerprint: str) -> str:
    """The cache key of one point's check: everything its verdict depends on — the model, the
    users, the analytic answer being checked (throughput and response time), the simulation's
    settings and the fingerprint of its code."""
    return hashlib.sha256(json.dumps([model, point["users"], point["throughput"], point["response_time"],
                                      check.REQUESTS, check.DISPATCH, fingerprint],
                                     sort_keys=True).encode()).hexdigest()[:16]


def _checks(folder: Path, configs: list[dict]) -> dict:
    """The simulation's check of every predicted point, cached by check_key (the simulation
    takes a second or so a point; the missing ones run side by side, one process per core:
    check.check_all)."""
    path = folder / CHECK_FILE
    try:
        cache = json.loads(path.read_text())
    except (OSError, ValueError):
        cache = {}
    fingerprint = simulation_fingerprint()
    keyed = [(check_key(c["model"], pt, fingerprint), c, pt) for c in configs for pt in c["points"]]
    todo = {key: (Model(**{k: (float("inf") if v is None and k in ("lock_servers", "concurrency") else v)
                           for k, v in c["model"].items()}), pt)
            for key, c, pt in keyed if key not in cache}
    if todo:
        cache.update(zip(todo, check.check_all(list(todo.values()))))
        try:
            path.write_text(json.dumps(cache, indent=1) + "\n")
        except OSError:
            pass
    return {(tuple(c["runs"]), pt["users"]): cache[key] for key, c, pt in keyed}


def _target(settings: dict, rows: list[dict]) -> dict | None:
    """An experiment written by `./testbed predict --target X/s --experiment`: did the run of the
    configuration it named (settings.target_run) measure at least X (settings.target_throughput)?
    With what `predict` answered for it and from which folder (settings.target_predicted,
    target_from: a file written by an older runner has neither) beside what the model fitted to
    this run's own baseline predicts. None for any other experiment."""
    if settings.get("target_throughput") is None:
        return None
    want, run = float(settings["target_throughput"]), str(settings.get("target_run") or "")
    row = next((r for r in rows if not r["baseline"] and any(x == run or x.startswith(run + "-r") for x in r["runs"])),
               None)
    measured = row["measured_max_throughput"] if row else None
    answered = settings.get("target_predicted")
    return {"throughput": want, "run": run, "configuration": row["text"] if row else None,
            "answered_max_throughput": None if answered is None else float(answered),
            "answered_from": settings.get("target_from"),
            "answered_error": None if answered is None or not measured else float(answered) / measured - 1,
            "predicted_max_throughput": row["predicted_max_throughput"] if row else None,
            "measured_max_throughput": measured, "reached": None if measured is None else measured >= want}


def build(result, steps: dict, simulate: bool = True, fit_runs: tuple[str, ...] | None = None) -> dict:
    """The section (see the module doc); {"error": why} when nothing can be predicted.
    fit_runs: runs whose steps the CPU fit uses too (then made now, not read from the runner's
    prediction, and those runs are not held out); None: the default the runner used too."""
    path = Path(result.path) / forecast.FILE
    written = None
    try:
        if fit_runs:
            raise OSError("fitted now, with more runs than the runner's prediction had")
        pred = forecast.read(path)
        written = pred.get("written")
        if "error" in pred:
            return {"error": f"{forecast.FILE}: {pred['error']}"}
    except (OSError, ValueError):
        pred = None
    try:
        now = forecast.predict(result, steps, fit_runs=fit_runs)   # the same fit; adds request mode
    except dmod.NoBaseline as e:
        return {"error": str(e)}
    except ValueError as e:          # a model the measured demands cannot make: said, not raised
        return {"error": f"the model cannot be fitted to this run: {e}"}
    if pred is None:
        pred = now
    have = {tuple(c["runs"]) for c in pred["configurations"]}
    extra = [c for c in now["configurations"] if tuple(c["runs"]) not in have]
    configs = pred["configurations"] + extra
    after = {tuple(c["runs"]) for c in extra}            # predicted now, not before the runs
    started = {r.id: r.meta.get("started") for r in result.runs}
    notes = {r.id: r.meta.get("notes") or {} for r in result.runs}
    checks = _checks(Path(result.path), configs) if simulate else {}
    speed_ref = speed_reference_us(result, steps, pred["fitted_to"])
    probe = pred.get("build_probe") or now.get("build_probe")
    rows = []
    for c in configs:
        ran = [rid for rid in c["runs"] if rid in started]
        meas_max, curve, meas_knee, interval = _measured(result, steps, ran)
        users = c["users"]
        pred_x = [p["throughput"] for p in c["points"]]
        both = [(u, x, curve[u]) for u, x in zip(users, pred_x) if u in curve and curve[u]]
        lin, usl = c["naive"]["linear"], c["naive"]["usl"]
        lin_max, usl_max = (max(lin) if lin else None), (max(usl) if usl else None)
        sims = [checks.get((tuple(c["runs"]), u)) for u in users]
        devs = [max(abs(s["deviation"]["throughput"]), abs(s["deviation"]["response_time"])) for s in sims if s]
        err, lin_err, usl_err = _err(c["predicted_max_throughput"], meas_max), _err(lin_max, meas_max), _err(usl_max, meas_max)
        k_pred, k_meas = c["knee_users"], meas_knee
        apart = (abs(users.index(k_pred) - users.index(k_meas)) if k_pred in users and k_meas in users else None)
        rows.append({
            "runs": c["runs"], "measured_runs": ran, "text": c["text"], "baseline": c.get("baseline", False),
            "fitted_to": c["fitted_to"], "method": c["method"],
            "written_before_runs": (tuple(c["runs"]) not in after and bool(written)
                                    and all(started.get(r) and written < started[r] for r in ran)),
            "users": users, "predicted": pred_x, "measured": [curve.get(u) for u in users],
            "predicted_response_time": [p["response_time"] for p in c["points"]],
            "bottleneck": [p["bottleneck"] for p in c["points"]],
            "predicted_max_throughput": c["predicted_max_throughput"], "measured_max_throughput": meas_max,
            "error": err, "sweep_mae": (sum(abs(x - m) / m for _, x, m in both) / len(both)) if both else None,
            "knee_predicted": k_pred, "knee_measured": k_meas, "knee_steps_apart": apart,
            "linear_max_throughput": lin_max, "linear_error": lin_err,
            "usl_max_throughput": usl_max, "usl_error": usl_err,
            "measured_max_interval": interval,
            **naive_reading(None if c.get("baseline") else err, c["predicted_max_throughput"],
                            {"linear": (lin_max, lin_err), "USL": (usl_max, usl_err)}, interval),
            "simulation": [s and {k: s[k] for k in ("throughput", "throughput_ci", "deviation", "agree")} for s in sims],
            "agreement_max_deviation": max(devs) if devs else None,
            "agree": all(s["agree"] for s in sims if s) if devs else None,
            "measured_cold": _measured_cold(c, notes, ran),
            "tier_cpu": tiercpu.compare(now["demands"] if tuple(c["runs"]) in after else pred.get("demands", now["demands"]),
                                        probe, c["config"], c["fitted_to"], steps, ran),
            "clone_gc": clonegc.compare(result, steps, ran),
            **at_host_speed(result, steps, speed_ref, c, ran, meas_max)})
    held = [r for r in rows if not r["baseline"] and r["error"] is not None and not r["measured_cold"]]
    return {"target": _target(result.settings.extra, rows),
            "written": written, "file": forecast.FILE if written else None, "fitted_to": pred["fitted_to"],
            "demands": now["demands"], "fit": pred["fit"], "usl": pred.get("usl"),
            "beside_other_load": dmod.beside_other_load_text(now["demands"].get("beside_other_load")),
            "build_probe": probe,
            "not_predicted": [n for n in pred.get("not_predicted", []) if tuple(n["runs"]) not in
                              {tuple(c["runs"]) for c in extra}],
            "configurations": rows,
            "median_abs_error": statistics.median(abs(r["error"]) for r in held) if held else None,
            "max_abs_error": max(abs(r["error"]) for r in held) if held else None,
            "measured_cold_left_out": [r["text"] for r in rows if r["measured_cold"] and r["error"] is not None],
            "method": __doc__.split("\n\n", 1)[1].strip()}
