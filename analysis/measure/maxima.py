"""Maximum throughput and critical point of a run; median and spread over repeated runs.

Method: the maximum is taken over the run's valid steps only (steps flagged incomplete,
high_errors or loadgen_saturated are excluded); the critical users are the users of that
step (on a tie, the step with fewer users: the first point where the maximum is reached).
With K runs of one configuration, the configuration's value is the median of the K maxima and
its spread is (max - min) / median of those maxima.
Interval: a run's maximum carries the 95 % interval of its step (steps: per-second samples);
with K runs the configuration's interval spans the lowest to the highest end of the runs'
intervals (a conservative envelope, not an interval of the median). Taking the best of several
steps favours a step that was high by chance: on a plateau the maximum sits up to about one
half-width above the plateau's level.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field

from analysis.steps import StepSample


@dataclass(frozen=True)
class RunMaximum:
    max_throughput: float | None
    critical_users: int | None
    step: int | None            # index of the max-throughput valid step (the plateau step)
    valid_steps: int
    excluded_steps: int
    reason: str | None = None   # why there is no maximum
    interval: tuple[float, float] | None = None   # 95 % interval of the max step's throughput


def run_maximum(steps: list[StepSample]) -> RunMaximum:
    """Max throughput over the valid steps, and the users where it is first reached."""
    valid = [s for s in steps if s.valid]
    excluded = sum(1 for s in steps if s.excluded)
    if not valid:
        why = "no steps recorded" if not steps else f"all {len(steps)} step(s) excluded or empty"
        return RunMaximum(None, None, None, 0, excluded, why)
    best = max(valid, key=lambda s: (s.throughput, -s.users))
    return RunMaximum(best.throughput, best.users, best.index, len(valid), excluded,
                      interval=best.interval)


@dataclass(frozen=True)
class RepeatedMaximum:
    """One configuration over K runs."""

    max_throughput: float | None
    critical_users: float | None
    runs: int                  # K: runs of this configuration
    runs_with_maximum: int     # runs that had at least one valid step
    minimum: float | None = None
    maximum: float | None = None
    spread: float | None = None   # (max - min) / median; None with fewer than 2 maxima
    run_ids: list[str] = field(default_factory=list)
    interval: tuple[float, float] | None = None   # envelope of the runs' 95 % intervals


def repeated(maxima: dict[str, RunMaximum]) -> RepeatedMaximum:
    """Median of the run maxima (run id -> RunMaximum) of one configuration, with spread."""
    have = {rid: m for rid, m in maxima.items() if m.max_throughput is not None}
    ids = sorted(maxima)
    if not have:
        return RepeatedMaximum(None, None, len(maxima), 0, run_ids=ids)
    values = [m.max_throughput for m in have.values()]
    med = statistics.median(values)
    users = statistics.median([m.critical_users for m in have.values()])
    lo, hi = min(values), max(values)
    spread = (hi - lo) / med if len(values) >= 2 and med > 0 else None
    intervals = [m.interval for m in have.values()]
    interval = None if any(i is None for i in intervals) else (
        min(i[0] for i in intervals), max(i[1] for i in intervals))
    return RepeatedMaximum(med, users, len(maxima), len(have), lo, hi, spread, ids, interval)


CONFIG_IGNORED = ("id", "label", "repeat", "status", "steps", "started", "ended", "error",
                  "locust_workers", "locust_csv_full_history", "notes")


def config_key(meta: dict) -> str:
    """Runs with equal keys are repeats of one configuration: run.json minus bookkeeping keys."""
    return json.dumps({k: v for k, v in meta.items() if k not in CONFIG_IGNORED}, sort_keys=True)


def group_by_config(metas: dict[str, dict]) -> dict[str, list[str]]:
    """config key -> run ids, in first-seen order."""
    groups: dict[str, list[str]] = {}
    for rid, meta in metas.items():
        groups.setdefault(config_key(meta), []).append(rid)
    return groups
