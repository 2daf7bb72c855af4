"""Calibration: the segment decomposition checked against configured (known) demands.

Demand points (docs/tiers.md) and the segment each belongs to:
  SEG2 → 2, SEG3 → 3, SEG4 → 4, INVOKER → 5 (all in the front process),
  CLONE → 5 (client tier), SERVICE → 5 (the axis or gsoap service the run used).
Each point has cpu_us, wait_us and locked (held under its process's one lock).

Formulas (the one place they live; docs/results.md repeats them):
  time segment k holds a shared resource, serially:  D(k) = Σ over its points of
      (cpu_us + wait_us) if locked, else cpu_us / C          [µs]
  expected segment throughput (serial regime):  c(k) = 1e6 / D(k)
      i.e. 1e6/(cpu_us+wait_us) under the lock, C·1e6/cpu_us for unlocked CPU on C cores;
      an unlocked wait holds no shared resource; segment 1 has no knob: c(1) = measured T(1..1)
  resources (parallel regime): one lock per process replica, and CPU (C cores of the stack, or
      quota × replicas per tier when quotas are set); segment 1 counts as its own resource.
      Demand on a resource over path 1..k: D_r = Σ of the points of segments ≤ k on r
      (lock time / replicas of the tier; cpu_us / cores of the pool).
  predictions of the cumulative path throughput T(1..k):
      serial-demand law:  1 / Σ_{j≤k} 1/c(j)
      bottleneck law:     1 / max_r D_r        (X ≤ 1/max D, tight when one resource saturates)
  When all demand sits on one resource the two agree; when segments hold different resources
  the serial law (and so the decomposition) fails and the bottleneck law matches.
  Which law matched: the smaller mean of |ln(predicted / measured)| over paths 2..K. The serial
  prediction is never above the bottleneck one, so a relative error (bounded by 100 % below the
  measurement, unbounded above it) would favour the serial law; the log ratio counts a factor 2
  too low and a factor 2 too high alike.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

from analysis.measure.segments import Segment

SERIAL, BOTTLENECK = "serial", "bottleneck"
POINTS = {"SEG2": (2, "front"), "SEG3": (3, "front"), "SEG4": (4, "front"),
          "INVOKER": (5, "front"), "CLONE": (5, "clone"), "SERVICE": (5, None)}


def point_tier(point: str, backend: str | None) -> str:
    tier = POINTS[point][1]
    return tier or (backend or "axis")


def segment_demand_us(points: Mapping[str, Mapping], cores: float) -> float:
    """D(k) in µs: lock time of locked points + cpu_us / C of unlocked ones."""
    total = 0.0
    for d in points.values():
        cpu_us, wait_us = float(d.get("cpu_us") or 0), float(d.get("wait_us") or 0)
        total += cpu_us + wait_us if d.get("locked") else cpu_us / cores
    return total


def segment_capacity(points: Mapping[str, Mapping], cores: float) -> tuple[float | None, str]:
    """c(k) = 1e6 / D(k) for the demand points of one segment, with the formula used."""
    d = segment_demand_us(points, cores)
    if d <= 0:
        return None, "no shared resource held (zero demand, or unlocked wait only)"
    locked = all(p.get("locked") for p in points.values())
    if locked:
        formula = "1e6/(cpu_us+wait_us)"
    elif not any(p.get("locked") for p in points.values()):
        formula = f"C·1e6/cpu_us (C={cores:g})"
    else:
        formula = f"1e6/D(k), D = locked (cpu+wait) + unlocked cpu/C (C={cores:g})"
    return 1e6 / d, formula


def resource_demands(demands: Mapping[str, Mapping], k: int, backend: str | None,
                     replicas: Mapping[str, int], cores: float,
                     tier_cores: Mapping[str, float] | None, t1: float | None) -> dict[str, float]:
    """D_r in seconds per request for each resource used by path 1..k. cores: C of the shared
    CPU; tier_cores: tiers with a CPU quota (each its own CPU), the others share C."""
    out: dict[str, float] = {}
    if t1:
        out["segment 1 (measured)"] = 1.0 / t1
    for point, d in demands.items():
        if point not in POINTS or POINTS[point][0] > k:
            continue
        tier = point_tier(point, backend)
        cpu_s, wait_s = float(d.get("cpu_us") or 0) / 1e6, float(d.get("wait_us") or 0) / 1e6
        if d.get("locked") and cpu_s + wait_s > 0:
            key = f"lock of {tier}"
            out[key] = out.get(key, 0.0) + (cpu_s + wait_s) / max(int(replicas.get(tier, 1)), 1)
        if cpu_s > 0:
            pool, c = (tier, tier_cores[tier]) if tier in (tier_cores or {}) else ("stack", cores)
            key = f"CPU of {pool}"
            out[key] = out.get(key, 0.0) + cpu_s / c
    return out


def _error(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return (value - reference) / reference


def compare(demands: Mapping[str, Mapping], paths: Mapping[int, float | None],
            segments: list[Segment], *, backend: str | None = None,
            replicas: Mapping[str, int] | None = None, cores: float = 1.0,
            tier_cores: Mapping[str, float] | None = None, tolerance: float = 0.03) -> dict:
    """Derived vs expected per segment, serial vs bottleneck predictions per path, verdict.

    demands: point -> {cpu_us, wait_us, locked}; paths: k -> measured T(1..k); segments: the
    decomposition of those paths; cores: C of the shared CPU; tier_cores: per-tier CPU capacity
    when quotas are set (then each tier's CPU is its own resource)."""
    replicas = replicas or {}
    unknown = sorted(set(demands) - set(POINTS))
    by_segment: dict[int, dict[str, Mapping]] = {}
    for point, d in demands.items():
        if point in POINTS:
            by_segment.setdefault(POINTS[point][0], {})[point] = d
    derived = {s.segment: s for s in segments}
    caps: dict[int, float | None] = {}
    seg_rows = []
    for k in sorted(set(paths) | set(by_segment) | set(derived)):
        if k == 1:
            cap, formula = paths.get(1), "measured T(1..1) (segment 1 has no demand knob)"
        else:
            cap, formula = segment_capacity(by_segment.get(k, {}), cores)
        caps[k] = cap
        d = derived.get(k)
        seg_rows.append({"segment": k, "demand": {p: dict(v) for p, v in by_segment.get(k, {}).items()},
                         "expected": cap, "formula": formula,
                         "derived": d.throughput if d else None,
                         "error": _error(d.throughput if d else None, cap),
                         "reason": d.reason if d else "not decomposed"})
    path_rows = []
    for k in sorted(paths):
        cs = [caps.get(j) for j in range(1, k + 1) if caps.get(j)]
        serial = 1.0 / sum(1.0 / c for c in cs) if cs else None
        res = resource_demands(demands, k, backend, replicas, cores, tier_cores, paths.get(1))
        top = max(res, key=res.get) if res else None
        bottleneck = 1.0 / res[top] if top else None
        measured = paths.get(k)
        path_rows.append({"path": k, "measured": measured,
                          "serial_prediction": serial, "serial_error": _error(serial, measured),
                          "bottleneck_prediction": bottleneck,
                          "bottleneck_error": _error(bottleneck, measured), "bottleneck_resource": top})
    out = {"segments": seg_rows, "paths": path_rows, **verdict(path_rows, tolerance)}
    if unknown:
        out["ignored_points"] = unknown
    return out


def verdict(path_rows: list[dict], tolerance: float) -> dict:
    """Which prediction matched the measured paths: the smaller mean |ln(prediction / measured)|
    over paths 2..K (symmetric: see the module's docstring); mean |error| is kept for the reader.
    If the predictions agree within the tolerance on every path, the run cannot tell them apart."""
    rows = [r for r in path_rows if r["path"] >= 2 and r["measured"]
            and r["serial_error"] is not None and r["bottleneck_error"] is not None]
    if not rows:
        return {"matched": None, "mean_abs_error": {SERIAL: None, BOTTLENECK: None},
                "mean_factor": {SERIAL: None, BOTTLENECK: None},
                "verdict": "no path with both a measurement and a prediction"}
    mae = {SERIAL: sum(abs(r["serial_error"]) for r in rows) / len(rows),
           BOTTLENECK: sum(abs(r["bottleneck_error"]) for r in rows) / len(rows)}
    factor = {law: math.exp(sum(abs(math.log(r[f"{law}_prediction"] / r["measured"])) for r in rows)
                            / len(rows)) for law in (SERIAL, BOTTLENECK)}
    telling = [r for r in rows if abs(r["serial_prediction"] - r["bottleneck_prediction"])
               > tolerance * r["bottleneck_prediction"]]
    if not telling:
        return {"matched": "indistinguishable", "mean_abs_error": mae, "mean_factor": factor,
                "verdict": "serial and bottleneck predictions agree within the tolerance on every "
                           "path (one resource dominates): the run cannot tell the regimes apart"}
    matched = SERIAL if factor[SERIAL] <= factor[BOTTLENECK] else BOTTLENECK
    other = BOTTLENECK if matched == SERIAL else SERIAL
    law = "serial-demand law" if matched == SERIAL else "bottleneck law"
    return {"matched": matched, "mean_abs_error": mae, "mean_factor": factor,
            "verdict": f"the {law} matched: its predictions off by ×{factor[matched]:.3f} on average "
                       f"(geometric; mean |error| {mae[matched]:.1%}) vs ×{factor[other]:.3f} "
                       f"({mae[other]:.1%}) for the {other} prediction, over {len(rows)} path(s)"}
