"""Where a prediction misses, tier by tier: each tier's CPU per request in the model of a
configuration against the CPU per request measured in the configuration's highest step.

Where a configuration is CPU-bound (a client per request; the service tier scaled until the
host's cores saturate) the model's saturation throughput is its serving cores over the total
of the model's column, so the tiers whose model CPU falls short of the measured one are where
the prediction reads high, and those above it where it reads low. A lock-bound configuration
(a singleton, two clones) is set by the holding time, not by these totals.

Model: the baseline's CPU per request D of each tier (demands.cpu_s), plus — for a client per
request predicted from the client-build probe — each tier's CPU per build (one build a call),
the clone's with its first call and times the probe's crowding factor at the step's users per
clone (model.py, "Crowding"), plus the tier's background U0 (per replica of the front, the clone
and the service, once for the others) spread over the measured step's throughput: so both
columns are a tier's CPU over the step divided by its requests. Measured: that CPU in each run's
highest valid step (demands.step_cpu), the median over the configuration's runs. A client per
request predicted after the fact from its own lowest step is not compared (its model is that
step).
"""
from __future__ import annotations

import statistics

from analysis.predict import buildcost
from analysis.predict.fit import Config
from analysis.predict.baseline_demands import SERVICES, UNATTRIBUTED, step_cpu
from analysis.predict.model import crowding_factor

TIERS = ("loadgen", "haproxy", "front", "clone", "service", UNATTRIBUTED)


def model_cpu(demands: dict, probe: dict | None, config: dict, fitted_to: str,
              throughput: float, users: float = 0.0) -> dict[str, float] | None:
    """Seconds of CPU per request of each tier in the model of `config` at `throughput` and
    `users`; None where the model does not rest on the baseline (a client per request from its
    own step)."""
    request = config.get("client_mode") == "request"
    if request and not (probe and buildcost.rests_on_probe(fitted_to)):
        return None
    out = {t: max(e["mean"], 0.0) for t, e in demands["cpu_s"].items() if e}
    cfg = Config(**config)
    if request:
        charged = buildcost.charged(probe["cpu_s_per_build"], demands["backend"], probe.get("first_call_s") or 0.0)
        for t, s in charged.items():
            key = "service" if t in SERVICES else t
            out[key] = out.get(key, 0.0) + s
        crowd = crowding_factor(probe.get("crowding") or (), users / cfg.clones) - 1.0
        out["clone"] = out.get("clone", 0.0) + crowd * charged.get("clone", 0.0)
    for t, u0 in (demands.get("background_cores") or {}).items():
        out[t] = out.get(t, 0.0) + u0 * cfg.replicas(t) / throughput
    return out


def measured_cpu(steps: dict, run_ids: list[str], backend: str) -> tuple[float, dict[str, float], float] | None:
    """(throughput, seconds of CPU per request of each tier, users) in each run's highest valid
    step (of equal throughputs, the one with the most users), the median over the runs; None without such a step."""
    tops = []
    for rid in run_ids:
        valid = [s for s in steps.get(rid, []) if s.valid and s.throughput]
        if valid:
            tops.append(max(valid, key=lambda s: (s.throughput, s.users)))
    if not tops:
        return None
    per = [step_cpu(s, backend) for s in tops]
    tiers = {t for p in per for t in p}
    return (statistics.median(s.throughput for s in tops),
            {t: statistics.median(p[t] for p in per if t in p) for t in tiers},
            statistics.median(s.users for s in tops))


def compare(demands: dict, probe: dict | None, config: dict, fitted_to: str, steps: dict,
            run_ids: list[str]) -> dict | None:
    """{throughput, tiers: [{tier, model_s, measured_s, gap_s}], model_s, measured_s} for a
    configuration measured in run_ids (gap: model − measured; the totals over the tiers both
    have); None where either side is missing."""
    measured = measured_cpu(steps, run_ids, demands["backend"])
    if measured is None:
        return None
    x, meas, users = measured
    model = model_cpu(demands, probe, config, fitted_to, x, users)
    if model is None:
        return None
    rows = [{"tier": t, "model_s": model[t], "measured_s": meas[t], "gap_s": model[t] - meas[t]}
            for t in TIERS if t in model and t in meas]
    return {"throughput": x, "tiers": rows, "model_s": sum(r["model_s"] for r in rows),
            "measured_s": sum(r["measured_s"] for r in rows)}


def largest_gaps(c: dict, n: int = 2) -> str:
    """The n tiers furthest from their measurement, in words (ms per request)."""
    worst = sorted(c["tiers"], key=lambda r: -abs(r["gap_s"]))[:n]
    return ", ".join(f"{r['tier']} {r['gap_s'] * 1e3:+.2f} ms ({r['model_s'] * 1e3:.2f} against "
                     f"{r['measured_s'] * 1e3:.2f})" for r in worst)
