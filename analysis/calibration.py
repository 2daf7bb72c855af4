"""Calibration: the segment decomposition checked against configured (known) demands.

Formulas (the one place they live; docs/results.md repeats them):
  capacity of segment k from its configured demand, c(k):
    locked   (demand taken under one process-wide lock):  c(k) = 1e6 / (cpu_us + wait_us)
    unlocked, cpu_us > 0 (CPU-bound on the stack's C cores): c(k) = C · 1e6 / cpu_us
             (an unlocked wait occupies no shared resource)
    no demand (or pure unlocked wait):                     c(k) = none (does not limit)
    segment 1 has no knob:                                  c(1) = measured T(1..1)
  predictions of the cumulative path throughput T(1..k):
    serial regime (segments consume one shared resource in turn):  1 / Σ_{j≤k} 1/c(j)
    parallel resources (bottleneck law X ≤ 1/max D):               min_{j≤k} c(j)
  Under the serial regime the decomposition's derived T(k) should equal c(k); under parallel
  resources it should not, and the bottleneck prediction should match the measured paths.
"""
from __future__ import annotations

from collections.abc import Mapping

from analysis.segments import Segment

SERIAL, BOTTLENECK = "serial", "bottleneck"
FORMULA_LOCKED = "1e6/(cpu_us+wait_us)"
FORMULA_CPU = "C·1e6/cpu_us"
FORMULA_SERIAL = "1/Σ_{j≤k} 1/c(j)"
FORMULA_BOTTLENECK = "min_{j≤k} c(j)"


def segment_capacity(demand: Mapping | None, cores: float) -> tuple[float | None, str]:
    """c(k) from a configured demand {cpu_us, wait_us, locked}, with the formula used."""
    if not demand:
        return None, "no configured demand"
    cpu_us = float(demand.get("cpu_us") or 0)
    wait_us = float(demand.get("wait_us") or 0)
    if demand.get("locked") and cpu_us + wait_us > 0:
        return 1e6 / (cpu_us + wait_us), FORMULA_LOCKED
    if cpu_us > 0:
        return cores * 1e6 / cpu_us, f"{FORMULA_CPU} (C={cores:g})"
    return None, "no shared resource consumed (zero demand, or unlocked wait only)"


def _error(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return (value - reference) / reference


def predictions(capacities: Mapping[int, float | None], k: int) -> tuple[float | None, float | None]:
    """(serial, bottleneck) predictions of T(1..k) from per-segment capacities c(1..k)."""
    cs = [capacities.get(j) for j in range(1, k + 1)]
    cs = [c for c in cs if c]
    if not cs:
        return None, None
    return 1.0 / sum(1.0 / c for c in cs), min(cs)


def compare(demands: Mapping[int, Mapping], paths: Mapping[int, float | None],
            segments: list[Segment], cores: float | Mapping[int, float],
            tolerance: float = 0.03) -> dict:
    """Derived vs expected per segment, and serial vs bottleneck predictions per path.

    demands: segment -> {cpu_us, wait_us, locked, tier?, point?}; paths: k -> measured T(1..k);
    segments: the decomposition of those paths; cores: C, or C per segment (the cores of the
    tier where segment k's demand is taken)."""
    caps: dict[int, float | None] = {}
    seg_rows = []
    derived = {s.segment: s for s in segments}
    for k in sorted(set(paths) | set(demands) | set(derived)):
        if k == 1 and not demands.get(1):
            cap, formula = paths.get(1), "measured T(1..1) (segment 1 has no demand knob)"
        else:
            c = cores.get(k, 1.0) if isinstance(cores, Mapping) else cores
            cap, formula = segment_capacity(demands.get(k), c)
        caps[k] = cap
        d = derived.get(k)
        seg_rows.append({"segment": k, "demand": dict(demands.get(k) or {}), "expected": cap,
                         "formula": formula, "derived": d.throughput if d else None,
                         "error": _error(d.throughput if d else None, cap),
                         "reason": d.reason if d else "not decomposed"})
    path_rows = []
    for k in sorted(paths):
        serial, bottleneck = predictions(caps, k)
        measured = paths.get(k)
        path_rows.append({"path": k, "measured": measured,
                          "serial_prediction": serial, "serial_error": _error(serial, measured),
                          "bottleneck_prediction": bottleneck,
                          "bottleneck_error": _error(bottleneck, measured)})
    return {"segments": seg_rows, "paths": path_rows,
            **verdict(path_rows, tolerance)}


def verdict(path_rows: list[dict], tolerance: float) -> dict:
    """Which prediction matched the measured paths: the lower mean |error| over paths 2..K.
    Paths where the two predictions differ by less than the tolerance do not discriminate."""
    rows = [r for r in path_rows if r["path"] >= 2 and r["measured"]
            and r["serial_error"] is not None and r["bottleneck_error"] is not None]
    if not rows:
        return {"matched": None, "mean_abs_error": {SERIAL: None, BOTTLENECK: None},
                "verdict": "no path with both a measurement and a prediction"}
    mae = {SERIAL: sum(abs(r["serial_error"]) for r in rows) / len(rows),
           BOTTLENECK: sum(abs(r["bottleneck_error"]) for r in rows) / len(rows)}
    telling = [r for r in rows
               if abs(r["serial_prediction"] - r["bottleneck_prediction"])
               > tolerance * r["bottleneck_prediction"]]
    if not telling:
        return {"matched": "indistinguishable", "mean_abs_error": mae,
                "verdict": "serial and bottleneck predictions agree within the tolerance on "
                           "every path (one segment dominates): the run cannot tell the regimes apart"}
    matched = SERIAL if mae[SERIAL] <= mae[BOTTLENECK] else BOTTLENECK
    other = BOTTLENECK if matched == SERIAL else SERIAL
    law = "serial-demand law" if matched == SERIAL else "bottleneck law"
    return {"matched": matched, "mean_abs_error": mae,
            "verdict": f"the {law} matched: mean |error| {mae[matched]:.1%} vs {mae[other]:.1%} "
                       f"for the {other} prediction, over {len(rows)} path(s)"}


def demands_from_run(meta: dict) -> dict[int, dict]:
    """run.json "demands" ({"2": {...}}) keyed by segment number."""
    out = {}
    for key, value in (meta.get("demands") or {}).items():
        try:
            out[int(key)] = dict(value)
        except (TypeError, ValueError):
            continue
    return out
