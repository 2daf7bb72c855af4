"""Summary statistics of repeated measurements, the same way in every study: median and
spread, never a mean of a skewed sample.

    describe([2.0, 2.2, 2.1]) -> {"n": 3, "median": 2.1, "min": 2.0, "max": 2.2,
                                  "p25": 2.05, "p75": 2.15, "spread": 0.095...}

spread = (max - min) / median (0 with one value; None when the median is 0).
Percentiles and medians are numpy's (linear interpolation between closest ranks).

Confidence intervals (95 %, two-sided) of a mean from n samples: mean ± t(0.975, n−1)·s/√n,
s the sample standard deviation, t Student's quantile from scipy.stats (mean_ci); of a
quantity derived from measured intervals, the range its formula takes over them
(ratio_interval: [a_lo/b_hi, a_hi/b_lo]).
"""
from __future__ import annotations

import numpy as np
from scipy import stats as scistats   # import cost, measured: +1.4 s over numpy alone (best of 9,
# load average 20, 2 cores) against 8-12 s for `./testbed report` of a sample folder (saving the
# figures takes most of it); commands that analyse nothing (status, up, ...) never import it.


def percentile(values: list[float], q: float) -> float | None:
    """q in 0..100; None without values."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is not within 0..100")
    return float(np.percentile(values, q)) if len(values) else None


def describe(values: list[float]) -> dict:
    xs = np.array([float(v) for v in values if v is not None])
    if not xs.size:
        return {"n": 0, "median": None, "min": None, "max": None, "p25": None, "p75": None, "spread": None}
    med = float(np.median(xs))
    p25, p75 = (float(p) for p in np.percentile(xs, [25, 75]))
    lo, hi = float(xs.min()), float(xs.max())
    return {"n": int(xs.size), "median": med, "min": lo, "max": hi, "p25": p25, "p75": p75,
            "spread": (hi - lo) / med if med else None}


def ratio(a: float | None, b: float | None) -> float | None:
    """a / b, or None when either is missing or b is 0."""
    if a is None or b in (None, 0):
        return None
    return a / b


def mean_ci(samples: list[float]) -> tuple[float, float] | None:
    """(mean, half-width of its 95 % confidence interval) of >= 2 samples, else None."""
    xs = np.asarray(samples, dtype=float)
    if xs.size < 2:
        return None
    return float(xs.mean()), float(scistats.t.ppf(0.975, xs.size - 1) * scistats.sem(xs))


Interval = tuple[float, float]


def ratio_interval(a: Interval | None, b: Interval | None) -> Interval | None:
    """The range of x/y for x in a, y in b (positive intervals); None when b reaches 0."""
    if a is None or b is None or b[0] <= 0 or a[0] < 0:
        return None
    return a[0] / b[1], a[1] / b[0]
