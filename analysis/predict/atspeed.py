"""The host's speed beside the prediction: was the measured run's host as fast as the baseline's?

The model's CPU demands are seconds of CPU measured while the baseline ran. A shared or virtual
host can run the same code faster or slower minutes later (a neighbour on the physical core),
and then a CPU-bound configuration measures more or fewer requests than any model of the
baseline's host can predict. The host speed probe (cli/testbed/run/record/speedprobe.py, speed.csv)
times a fixed piece of work every second. Per configuration:
  host_speed -- the probe's mean over the baseline's valid steps divided by its mean in the
    measured run's highest step (the median over repeats): 1.10 = the host ran 10 % faster;
  predicted_at_host_speed -- the same model with every CPU demand divided by host_speed (the
    waits and latencies kept), solved at the same users: what the model predicts for the host
    as it ran; error_at_host_speed against the same measured maximum.
The prediction and its error stay the ones written before the run; these are a second reading
that tells the host's drift from the model's. None where a run has no speed.csv.
"""
from __future__ import annotations

import math
import statistics

from analysis.load import hostspeed
from analysis.predict.model import Model, solve_model


def _run_steps_us(result, steps: dict, rid: str) -> list[tuple[object, float | None]]:
    run = next((r for r in result.runs if r.id == rid), None)
    if run is None:
        return []
    ss = [s for s in steps.get(rid, []) if s.valid and s.throughput]
    return list(zip(ss, hostspeed.steps_us(run.dir, ss)))


def reference_us(result, steps: dict, run_ids) -> float | None:
    """The probe's mean over the valid steps of these runs (the baseline's)."""
    us = [u for rid in run_ids for _, u in _run_steps_us(result, steps, rid) if u is not None]
    return statistics.fmean(us) if us else None


def at_max_us(result, steps: dict, run_ids) -> float | None:
    """The probe in each run's highest-throughput step, the median over the runs."""
    out = []
    for rid in run_ids:
        pairs = _run_steps_us(result, steps, rid)
        if pairs:
            _, u = max(pairs, key=lambda p: p[0].throughput)
            if u is not None:
                out.append(u)
    return statistics.median(out) if out else None


def model_at(model_json: dict, speed: float) -> Model:
    """The model of `model_json` on a host `speed` times as fast: CPU demands / speed (their
    crowded part too: its factor stays)."""
    m = {k: (math.inf if v is None and k in ("lock_servers", "concurrency") else v) for k, v in model_json.items()}
    m["outside"] = {k: v / speed for k, v in m["outside"].items()}
    m["inside"] = {k: v / speed for k, v in (m.get("inside") or {}).items()}
    m["crowded"] = {k: v / speed for k, v in (m.get("crowded") or {}).items()}
    return Model(**m)


def reading(result, steps: dict, ref: float | None, config: dict, measured_runs, measured_max: float | None) -> dict:
    """host_speed, predicted_at_host_speed, error_at_host_speed of one configuration (module doc);
    `ref` is the baseline's reference_us, read once for all configurations."""
    none = {"host_speed": None, "predicted_at_host_speed": None, "error_at_host_speed": None}
    meas = at_max_us(result, steps, measured_runs)
    if not ref or not meas or not config.get("model") or not config.get("users"):
        return none
    speed = ref / meas
    m = model_at(config["model"], speed)
    pred = max(solve_model(m, u).throughput for u in config["users"])
    return {"host_speed": speed, "predicted_at_host_speed": pred,
            "error_at_host_speed": (pred - measured_max) / measured_max if measured_max else None}
