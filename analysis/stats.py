"""Summary statistics of repeated measurements, the same way in every study: median and
spread, never a mean of a skewed sample.

    describe([2.0, 2.2, 2.1]) -> {"n": 3, "median": 2.1, "min": 2.0, "max": 2.2,
                                  "p25": 2.05, "p75": 2.15, "spread": 0.095...}

spread = (max - min) / median (0 with one value; None when the median is 0).
percentile uses linear interpolation between closest ranks (numpy's default).
"""
from __future__ import annotations

import math
import statistics


def percentile(values: list[float], q: float) -> float | None:
    """q in 0..100."""
    xs = sorted(values)
    if not xs:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is not within 0..100")
    pos = (len(xs) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def describe(values: list[float]) -> dict:
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return {"n": 0, "median": None, "min": None, "max": None, "p25": None, "p75": None, "spread": None}
    med = statistics.median(xs)
    return {"n": len(xs), "median": med, "min": min(xs), "max": max(xs),
            "p25": percentile(xs, 25), "p75": percentile(xs, 75),
            "spread": (max(xs) - min(xs)) / med if med else None}


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b, or None when either is missing or b is 0."""
    if a is None or b in (None, 0):
        return None
    return a / b
