"""Segment decomposition by the serial-demand law, and composition of segment throughputs.

For cumulative paths 1..k with maximum throughputs T(1..k):
    1/T(1..k) = 1/T(1..k-1) + 1/T(k)  =>  T(k) = T(1..k-1)·T(1..k) / (T(1..k-1) − T(1..k)),
and T(1) = T(1..1). When T(1..k) >= T(1..k-1)·(1 − tolerance) the difference is within noise:
segment k is not measurable at this resolution, its throughput is None with a reason, never
negative or infinite. Inside the noise band the formula's value is still given, flagged
(`derived`, `within_noise`), with the lower bound the noise allows: with the difference
d = T(1..k-1) − T(1..k) uncertain by ±tolerance·T(1..k-1), T(k) ≥ T(1..k-1)·T(1..k) /
(d + tolerance·T(1..k-1)); no upper bound. The same law composes: 1/X = Σ 1/T(k).
Interval: with 95 % intervals [a_lo, a_hi] of T(1..k-1) and [b_lo, b_hi] of T(1..k), T(k) falls
with T(1..k-1) and rises with T(1..k), so its interval is [f(a_hi, b_lo), f(a_lo, b_hi)],
f(a, b) = a·b/(a − b); the upper end is unbounded (None) when the intervals overlap (a_lo <= b_hi).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_TOLERANCE = 0.03


@dataclass(frozen=True)
class Segment:
    segment: int
    throughput: float | None            # T(k); None = not measurable (see reason)
    reason: str | None
    path_throughput: float | None       # T(1..k)
    previous_path_throughput: float | None  # T(1..k-1); None for k = 1
    tolerance: float
    derived: float | None = None        # the formula's value, also inside the noise band
    lower_bound: float | None = None    # inside the noise band: the least T(k) the noise allows
    interval: tuple[float, float | None] | None = None   # 95 % (upper None: unbounded)

    @property
    def within_noise(self) -> bool:
        return self.throughput is None and self.derived is not None

    @property
    def name(self) -> str:
        return f"T({self.segment})"

    def to_json(self) -> dict:
        return {"segment": self.segment, "name": self.name, "throughput": self.throughput,
                "reason": self.reason, "path_throughput": self.path_throughput,
                "previous_path_throughput": self.previous_path_throughput,
                "tolerance": self.tolerance, "derived": self.derived,
                "within_noise": self.within_noise, "lower_bound": self.lower_bound,
                "interval": None if self.interval is None else list(self.interval)}

    def text(self) -> str:
        """T(k) as a person reads it: the value, or the flagged value inside the noise band."""
        if self.throughput is not None:
            return f"{self.throughput:,.1f}"
        if self.derived is not None:
            return (f"{self.derived:,.0f} — within noise (±{self.tolerance:.1%}; "
                    f"at least {self.lower_bound:,.0f})")
        why = (self.reason or "").removeprefix("not measurable: ")
        return "not measurable" + (f" — {why}" if why else "")


def segment_throughput(previous: float, current: float, tolerance: float = DEFAULT_TOLERANCE
                       ) -> tuple[float | None, str | None]:
    """T(k) from T(1..k-1) = previous and T(1..k) = current, or (None, why not measurable)."""
    if previous <= 0 or current <= 0:
        return None, "a path throughput is zero: nothing to decompose"
    if current >= previous * (1 - tolerance):
        if current > previous * (1 + tolerance):
            why = (f"T(1..k)={current:g} exceeds T(1..k-1)={previous:g} by more than the "
                   f"{tolerance:.1%} tolerance: noise, or the segments do not share one "
                   "resource serially (then the bottleneck law applies)")
        else:
            why = (f"not measurable: T(1..k)={current:g} >= T(1..k-1)·(1−{tolerance:.1%})="
                   f"{previous * (1 - tolerance):g}; the segment's demand is below the "
                   "measurement resolution")
        return None, why
    return previous * current / (previous - current), None


def segment_interval(previous: tuple[float, float] | None, current: tuple[float, float] | None
                     ) -> tuple[float, float | None] | None:
    """95 % interval of T(k) from the intervals of T(1..k-1) and T(1..k) (module docstring);
    None when no value in them gives a positive T(k) or an interval is missing."""
    if previous is None or current is None:
        return None
    (a_lo, a_hi), (b_lo, b_hi) = previous, current
    if a_hi <= b_lo or b_lo <= 0:
        return None
    low = a_hi * b_lo / (a_hi - b_lo)
    high = a_lo * b_hi / (a_lo - b_hi) if a_lo > b_hi else None
    return low, high


def decompose(paths: Mapping[int, float | None],
              tolerance: float | Mapping[int, float] = DEFAULT_TOLERANCE,
              intervals: Mapping[int, tuple[float, float] | None] | None = None) -> list[Segment]:
    """Per-segment throughputs for segments 1..max(paths) from path maxima {k: T(1..k)}.

    tolerance: one value, or one per segment k (e.g. from repeat spread).
    intervals: 95 % intervals of the path maxima {k: (low, high)}, for the segments' intervals."""
    iv = intervals or {}
    out = []
    for k in range(1, max(paths, default=0) + 1):
        tol = tolerance.get(k, DEFAULT_TOLERANCE) if isinstance(tolerance, Mapping) else tolerance
        cur, prev = paths.get(k), paths.get(k - 1) if k > 1 else None
        if cur is None:
            out.append(Segment(k, None, f"path 1..{k} has no maximum (not run, or no valid step)",
                               None, prev, tol))
        elif k == 1:
            out.append(Segment(1, cur, None, cur, None, tol, interval=iv.get(1)) if cur > 0 else
                       Segment(1, None, "path 1..1 throughput is zero", cur, None, tol))
        elif prev is None:
            out.append(Segment(k, None, f"path 1..{k - 1} has no maximum, so T({k}) cannot be "
                               "separated", cur, None, tol))
        else:
            value, why = segment_throughput(prev, cur, tol)
            derived = bound = None
            if why:
                why = why.replace("T(1..k-1)", f"T(1..{k - 1})").replace("T(1..k)", f"T(1..{k})")
                if 0 < cur < prev:
                    derived = prev * cur / (prev - cur)
                    bound = prev * cur / (prev - cur + tol * prev)
            out.append(Segment(k, value, why, cur, prev, tol, derived, bound,
                               segment_interval(iv.get(k - 1), iv.get(k))))
    return out


def tolerances(spreads: Mapping[int, float | None], base: float = DEFAULT_TOLERANCE) -> dict[int, float]:
    """Per-segment tolerance from repeat spreads {k: spread of T(1..k)}: for segment k the
    largest of base, spread(1..k-1) and spread(1..k). Spread only widens the band: with few
    repeats it is itself a noisy estimate."""
    out = {}
    for k in spreads:
        candidates = [base, spreads.get(k), spreads.get(k - 1)]
        out[k] = max(c for c in candidates if c is not None)
    return out


def compose(*throughputs: float) -> float:
    """Throughput of serial segments sharing one resource: 1 / Σ 1/T."""
    if not throughputs or any(t is None or t <= 0 for t in throughputs):
        raise ValueError("compose: every throughput must be a positive number")
    return 1.0 / sum(1.0 / t for t in throughputs)


def whole_path(t_1_to_4: float, target_t5: float) -> float:
    """Whole-path throughput 1/(1/T(1..4) + 1/T5) for a target per-segment throughput T5."""
    return compose(t_1_to_4, target_t5)
