"""The report's "Predicted before measured" section, as data for its template
(analysis/render/templates/experiments/prediction.html.j2): the error table (model vs measured,
beside the two naive predictions), each tier's CPU per request in the model against the
measured one, the demands the model was fitted to with their intervals, and what could
not be predicted."""
from __future__ import annotations

from analysis.load import probes
from analysis.predict import buildcost, clonegc, tiercpu


def _demand(name: str, e: dict | None, source: str) -> dict:
    """A demand row in ms: mean and its 95 % interval over the steps (None: not measured)."""
    if not e:
        return {"name": name, "ms": None, "low": None, "high": None, "source": source}
    scale = lambda v: None if v is None else v * 1e3     # noqa: E731
    return {"name": name, "ms": scale(e["mean"]), "low": scale(e.get("low")), "high": scale(e.get("high")),
            "source": source}


def _runs_text(ids: list[str] | None) -> str:
    return ", ".join(probes.label(r) for r in ids or [])


def _cpu_source(f: dict | None, fit_runs: list[str] | None = None) -> str:
    if f and f.get("resolved"):
        whose = f" (the baseline's and {_runs_text(fit_runs)}'s)" if fit_runs else ""
        return (f"per request: D of U = U0 + D·X over {f['steps']} steps{whose} ({f['span']:.1f}x in "
                f"throughput); background U0 {f['u0_cores']:.3f} cores taken off the pool"
                + (f" — {f['note']}" if f.get("note") else ""))
    return "per request, D = U / X" + (f" ({f['why'].rsplit(';', 1)[0]})" if f and f.get("why") else "")


def _value(name: str, ms: float | None, source: str) -> dict:
    return {"name": name, "ms": ms, "low": None, "high": None, "source": source}


def _tier_row(r: dict) -> dict:
    """One configuration's tier_cpu as cells of model / measured ms per request."""
    c = r["tier_cpu"]
    cells = {t["tier"]: t for t in c["tiers"]}
    gap = (c["model_s"] - c["measured_s"]) / c["measured_s"] if c["measured_s"] else None
    return {"text_shown": r["text_shown"], "throughput": c["throughput"],
            "cells": [cells.get(t) for t in tiercpu.TIERS], "model_ms": c["model_s"] * 1e3,
            "measured_ms": c["measured_s"] * 1e3, "gap": gap, "largest": tiercpu.largest_gaps(c),
            "gc": clonegc.text(r.get("clone_gc"))}


def view(p: dict | None) -> dict | None:
    """What the template shows; None for a report without a prediction section."""
    if p is None:
        return None
    if "error" in p:
        return {"error": p["error"]}
    d, fitted = p["demands"], p["fit"]
    fits = d.get("cpu_fits") or {}
    demands = [_demand(f"CPU: {t}", e, _cpu_source(fits.get(t), d.get("fit_runs")))
               for t, e in sorted(d["cpu_s"].items())]
    demands += [
        _demand("lock held (clone timer)", d["lock_hold_s"], "per call: the singleton's monitor"),
        _demand("clone CPU while holding it", d["lock_cpu_s"], "its thread's CPU time"),
        _demand("lock wait", d["lock_wait_s"], "per call"),
        _value("service wait", d["service_wait_s"] * 1e3, "configured (demands.SERVICE.wait_us)"),
        _value("residual latency inside the lock", fitted["residual_latency_s"] * 1e3,
               "fitted: the model's holding time = the measured one (below 0: that much CPU of HAProxy and "
               "the service counted outside the lock instead)"),
        _value("residual latency outside the lock", fitted.get("residual_outside_s", 0.0) * 1e3,
               "fitted: cycle time N/X − lock wait − holding time − CPU outside")]
    probe = p.get("build_probe")
    if probe:
        src = (f"per call of a client per request, added to the baseline's: the client-build probe "
               f"({probe['builds']} builds, build_probe.json"
               + (f"; {probe['under_load']} — alone it cost this tier " if probe.get("under_load") else ")"))
        idle = probe.get("idle_cpu_s_per_build") or {}
        demands += [_value(f"client build: {t} CPU", v * 1e3,
                           src + (f"{idle.get(t, 0.0) * 1e3:.3f} ms)" if probe.get("under_load") else ""))
                    for t, v in sorted(probe["cpu_s_per_build"].items()) if v > 0]
        if probe.get("first_call_s"):
            demands.append(_value("client build: clone CPU of the first call", probe["first_call_s"] * 1e3,
                                  "a fresh client's first call beyond a reused client's (the probe's "
                                  "rounds with 0, 1 and 2 calls a client), added to the clone's"))
        if probe.get("crowding"):
            (few, _), (many, ratio) = probe["crowding"]
            clone = buildcost.charged(probe["cpu_s_per_build"], probe["backend"],
                                      probe.get("first_call_s") or 0.0)["clone"]
            demands.append(_value(f"client build: clone CPU more with {many:g} built at once", clone * (ratio - 1) * 1e3,
                                  f"the probe's rounds at {few:g} and {many:g} threads, one call a client: ×{ratio:.3f}; "
                                  f"the model scales the clone's build and first call by it at its requests per "
                                  f"clone (linear from {few:g}, held beyond {many:g})"))
        demands.append(_value("client build: median wall time", probe["build_s_median"] * 1e3,
                              "its part not on that CPU is a latency of the call"))
    rows = []
    for c in p["configurations"]:
        before = None if not c["measured_runs"] or c["baseline"] else c["written_before_runs"]
        rows.append({**c, "runs_text": ", ".join(c["runs"]),
                     "text_shown": c["text"] + (" (baseline)" if c["baseline"] else ""),
                     "fitted_text": "the baseline" if c["fitted_to"] == "baseline" else c["fitted_to"],
                     "knee_text": f"{c['knee_predicted']} / {'—' if c['knee_measured'] is None else c['knee_measured']}",
                     "before": before, "bottlenecks": ", ".join(dict.fromkeys(c["bottleneck"]))})
    speed_rows = [r for r in rows if not r["baseline"] and r.get("host_speed") is not None]
    tier_rows = [_tier_row(r) for r in rows if r.get("tier_cpu")]
    return {"error": None, "rows": rows, "speed_rows": speed_rows,
            "tiers": list(tiercpu.TIERS), "tier_rows": tier_rows, "demands": demands, "target": p.get("target"),
            "beside_other_load": p.get("beside_other_load"),
            "written": p.get("written"), "file": p.get("file"),
            "fitted_to": ", ".join(p["fitted_to"]), "fit_runs": _runs_text(d.get("fit_runs")),
            "median_abs_error": p.get("median_abs_error"),
            "max_abs_error": p.get("max_abs_error"), "not_predicted": p.get("not_predicted", []),
            "cold_rows": [r for r in rows if r.get("measured_cold")],
            "cold_left_out": " and ".join(p.get("measured_cold_left_out") or []),
            "notes": fitted.get("notes", []), "cores": ", ".join(f"{k} {v:g} cores" for k, v in d["pools"].items()),
            "mode": d["mode"], "think_time_s": d["think_time_s"], "threads_front": fitted["threads_front"]}
