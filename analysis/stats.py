"""Summary statistics of repeated measurements, the same way in every study: median and
spread, never a mean of a skewed sample.

    describe([2.0, 2.2, 2.1]) -> {"n": 3, "median": 2.1, "min": 2.0, "max": 2.2,
                                  "p25": 2.05, "p75": 2.15, "spread": 0.095...}

spread = (max - min) / median (0 with one value; None when the median is 0).
percentile uses linear interpolation between closest ranks (numpy's default).

Confidence intervals (95 %, two-sided) of a mean from n samples: mean ± t(0.975, n−1)·s/√n,
s the sample standard deviation (mean_ci); of a quantity derived from measured intervals, the
range its formula takes over them (ratio_interval: [a_lo/b_hi, a_hi/b_lo]).
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


# Student's t, 97.5 % quantile by degrees of freedom (loadgen/shapes.py holds the same table: a
# test checks they agree); between 30 and infinity linear in 1/df (error < 0.001).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
        25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000,
        120: 1.980}
Z975 = 1.960


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with df degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError(f"t quantile: need df >= 1, got {df}")
    if df in T975:
        return T975[df]
    knots = [(d, T975[d]) for d in (30, 40, 60, 120)] + [(math.inf, Z975)]
    for (d0, t0), (d1, t1) in zip(knots, knots[1:]):
        if d0 < df < d1:
            w = (1 / d0 - 1 / df) / (1 / d0 - (0 if d1 == math.inf else 1 / d1))
            return t0 + (t1 - t0) * w
    return Z975


def mean_ci(samples: list[float]) -> tuple[float, float] | None:
    """(mean, half-width of its 95 % confidence interval) of >= 2 samples, else None."""
    xs = [float(x) for x in samples]
    n = len(xs)
    if n < 2:
        return None
    mean = sum(xs) / n
    sd = statistics.stdev(xs)
    return mean, t975(n - 1) * sd / math.sqrt(n)


Interval = tuple[float, float]


def ratio_interval(a: Interval | None, b: Interval | None) -> Interval | None:
    """The range of x/y for x in a, y in b (positive intervals); None when b reaches 0."""
    if a is None or b is None or b[0] <= 0 or a[0] < 0:
        return None
    return a[0] / b[1], a[1] / b[0]
