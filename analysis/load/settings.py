"""Analysis settings: the thresholds every statistic uses, with their defaults.

They come from experiment.json "settings" (see docs/results.md); a missing key takes the
default below. Unknown keys are kept in `extra` and shown in the report.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

LOCUST_PERCENTILE_WINDOW_S = 10.0  # Locust's CURRENT_RESPONSE_TIME_PERCENTILE_WINDOW
HISTORY_GAP_S = 3.0                # a step whose history ends > this before its end lost data
                                   # (Locust writes every ~1 s; workers report every 3 s)


@dataclass(frozen=True)
class Settings:
    """max_error_rate -- a step with failures/requests above this is flagged high_errors
    loadgen_cpu_saturation_pct -- a locust process at or above this % of one core is saturated
    loadgen_loop_lag_ms -- Locust's event loop late by this much (median), or its open loop's sends, is behind
    loadgen_loop_share -- ... when the loop's median is also at least this share of the step's median latency
    think_time_s -- think time Z used by the load (0 for the segment method)
    tolerance -- relative noise band for "not measurable" and for plateau detection
    utilisation_threshold -- fraction of a capacity counted as saturated (bottleneck hints)
    target_t5 -- what-if per-segment throughput of segment 5 for the composition (None: examples)
    capacity_think_times_s -- think times Z for the capacity examples when think_time_s is 0
    """

    max_error_rate: float = 0.01
    loadgen_cpu_saturation_pct: float = 90.0
    loadgen_loop_lag_ms: float = 10.0
    loadgen_loop_share: float = 0.1
    think_time_s: float = 0.0
    tolerance: float = 0.03
    utilisation_threshold: float = 0.8
    target_t5: float | None = None
    capacity_think_times_s: tuple[float, ...] = (1.0, 10.0)
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def from_json(cls, data: dict | None) -> "Settings":
        data = dict(data or {})
        known = {f.name for f in fields(cls)} - {"extra"}
        kwargs = {}
        for name in known:
            if name in data and data[name] is not None:
                value = data.pop(name)
                kwargs[name] = tuple(float(v) for v in value) if name == "capacity_think_times_s" \
                    else float(value)
            else:
                data.pop(name, None)
        return cls(**kwargs, extra=data)

    def to_json(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        out["capacity_think_times_s"] = list(self.capacity_think_times_s)
        out.update(self.extra)
        return out
