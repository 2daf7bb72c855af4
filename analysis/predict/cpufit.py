"""A tier's CPU as a background rate plus a demand per request: U = U0 + D·X.

U is the tier's CPU in cores over a load step, X the step's throughput. U0 is what the tier
spends whatever the load (its JIT, GC, timers, pollers: per second, not per request), D its
marginal CPU per request. Measured over steps at different throughputs, the least-squares line
through (X, U) separates the two; at one throughput (or several close together) it cannot, and
the demand stays the utilisation law's D = U / X (U0 = 0, the background counted per request).

With steps from runs with different replica counts n of the tier (a second cost probe
with 2 clones, say), the background is per replica: U = n·U0 + D·X.

A fit is used ("resolved") only when
- there are at least MIN_STEPS steps (a line through two points has no interval),
- the steps' throughputs span at least MIN_SPAN (max / min): closer together, U0 and D trade
  off against each other within the noise of the CPU samples,
- U0 is not below zero (a cost per request that grows with the load is not this model).
Otherwise the fit says why it fell back. Where D's 95 % interval reaches zero over such a span
and stays below half the mean U / X (MOSTLY: most of the CPU is not per request), the CPU does
not measurably grow with the load: the fit keeps its line with D no lower than
zero (U0 the mean rate where the fitted slope was negative) and says so in `note`. The
utilisation law's U / X would charge that background to every request, several times over at
the higher throughputs (the host's unattributed CPU, 1.3 % of a core whatever the load, read
0.31 ms a request at the baseline's 43/s against 0.06 ms measured at 442/s).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

MIN_STEPS = 3
MIN_SPAN = 1.5
MOSTLY = 0.5        # D's interval below this share of the mean U / X: the CPU is mostly background


@dataclass(frozen=True)
class CpuFit:
    """u0 -- cores whatever the load; d -- s of CPU per request (the fallback's U / X mean
    when not resolved, u0 then 0); d_low / d_high, u0_low / u0_high -- 95 % intervals (None:
    not resolved or one step); why -- the reason it fell back (None: resolved)."""

    u0: float
    d: float
    d_low: float | None
    d_high: float | None
    u0_low: float | None
    u0_high: float | None
    steps: int
    span: float
    why: str | None = None
    note: str | None = None

    @property
    def resolved(self) -> bool:
        return self.why is None

    def to_json(self) -> dict:
        return {"u0_cores": self.u0, "d_s": self.d, "d_low": self.d_low, "d_high": self.d_high,
                "u0_low": self.u0_low, "u0_high": self.u0_high, "steps": self.steps, "span": self.span,
                "resolved": self.resolved, "why": self.why, "note": self.note}


def fit(xs: list[float], us: list[float], replicas: list[int] | None = None) -> CpuFit:
    """U = n·U0 + D·X by least squares over the steps (xs: throughput /s, us: CPU in cores,
    replicas: the tier's replicas n in each step, 1 if not given)."""
    reps = replicas or [1] * len(xs)
    pts = [(x, u, k) for x, u, k in zip(xs, us, reps) if x and x > 0 and u is not None and math.isfinite(u)]
    n = len(pts)
    if not n:
        raise ValueError("no step with a throughput and a CPU figure to fit")
    per_request = [u / x for x, u, _ in pts]
    span = max(x for x, _, _ in pts) / min(x for x, _, _ in pts)

    def fallback(why: str) -> CpuFit:
        return CpuFit(0.0, sum(per_request) / n, None, None, None, None, n, span, why)
    if n < MIN_STEPS:
        return fallback(f"{n} step(s): at least {MIN_STEPS} are needed for a line with an interval; D = U / X")
    if span < MIN_SPAN:
        return fallback(f"the steps' throughputs span only {span:.2f}x (at least {MIN_SPAN:g}x is needed to "
                        "tell a background rate from a cost per request); D = U / X")
    a = np.array([[k, x] for x, _, k in pts], dtype=float)
    b = np.array([u for _, u, _ in pts], dtype=float)
    (u0, d), *_ = np.linalg.lstsq(a, b, rcond=None)
    rss = float(np.sum((b - a @ np.array([u0, d])) ** 2))
    try:
        cov = rss / (n - 2) * np.linalg.inv(a.T @ a)
    except np.linalg.LinAlgError:
        return fallback("the replicas and the throughputs of the steps move together; D = U / X")
    t = float(sps.t.ppf(0.975, n - 2))
    u0_half, d_half = t * math.sqrt(max(cov[0, 0], 0.0)), t * math.sqrt(max(cov[1, 1], 0.0))
    if u0 < 0:
        return fallback(f"the fitted background is below zero ({u0:.3f} cores: the CPU per request "
                        "grows with the load); D = U / X")
    if not d - d_half > 0 and d + d_half >= MOSTLY * sum(per_request) / n:
        return fallback(f"the fitted cost per request {d * 1e3:.3f} ms has an interval reaching "
                        f"{(d - d_half) * 1e3:.3f} ms (not above zero) and {(d + d_half) * 1e3:.3f} ms (the "
                        "background and the cost per request cannot be told apart); D = U / X")
    if not d - d_half > 0:
        note = (f"the CPU does not grow measurably with the load (D {d * 1e3:.3f} ms, its interval reaching "
                f"{(d - d_half) * 1e3:.3f} ms): mostly background")
        if d < 0:                       # no cost per request at all: the mean rate, per replica
            d, u0 = 0.0, float(b.sum() / a[:, 0].sum())
        return CpuFit(float(u0), float(d), 0.0, float(max(d + d_half, 0.0)),
                      float(u0 - u0_half), float(u0 + u0_half), n, span, note=note)
    return CpuFit(float(u0), float(d), float(d - d_half), float(d + d_half),
                  float(u0 - u0_half), float(u0 + u0_half), n, span)
