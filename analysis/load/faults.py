"""Faults injected during a run (runs/<id>/faults.jsonl, written by cli/testbed/faults/injector.py): what
failed inside each fault's window, and the per-second timeline the report draws them on.

Method: a fault's window is [start, end + GRACE_S] (GRACE_S covers requests that were stuck
on the faulty replica and fail or finish just after it ends); a fault on a whole cluster node
ends its window no sooner than NODE_STUCK_S + GRACE_S after its start: the node's network
namespace vanishes without a reset, so the requests in flight there fail only when the front
stops waiting (INVOKER_TIMEOUT_MS, 30 s by default: HTTP 504). Its requests and failures are
the increase of Locust's cumulative Total Request/Failure Count between the last history row
at or before the window's start and the last row inside the window. The timeline's
throughput at second t is the increase of the cumulative request count from the row before,
divided by the seconds between them; latency is the row's p95 (Locust's ~10 s sliding window).
"""
from __future__ import annotations

import json
from pathlib import Path

from analysis.load.locust_csv import History

FAULTS_FILE = "faults.jsonl"
GRACE_S = 5.0
NODE_STUCK_S = 30.0      # the front's INVOKER_TIMEOUT_MS default (services/front FrontConfig)


def read(run_dir: Path) -> tuple[list[dict], list[str]]:
    """The run's fault records and what could not be read."""
    path = run_dir / FAULTS_FILE
    if not path.exists():
        return [], []
    out, lost = [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            out.append(json.loads(line))
        except ValueError:
            lost.append(f"{FAULTS_FILE} line {n} is cut off")
    return out, lost


def window_counts(history: History, start: float, end: float) -> tuple[int | None, int | None]:
    """(requests, failures) inside [start, end]; None when the history does not cover it."""
    rows = history.rows
    before = [r for r in rows if r.timestamp <= start]
    inside = [r for r in rows if start < r.timestamp <= end]
    if not inside:
        return None, None
    base = before[-1] if before else None
    last = inside[-1]
    return (last.total_requests - (base.total_requests if base else 0),
            last.total_failures - (base.total_failures if base else 0))


def in_step(steps, t: float | None) -> int | None:
    """The index of the step whose measurement window [measure_from, end] holds time t, or None."""
    for s in steps or ():
        lo = s.measure_from if s.measure_from is not None else s.start
        if t is not None and lo is not None and s.end is not None and lo <= t <= s.end:
            return s.index
    return None


def summarize(run_id: str, records: list[dict], history: History, steps=None) -> list[dict]:
    """Each fault of a run as the report shows it; "step": the step whose measurement window it began
    in (steps: the run's analysis.steps.StepSample list), None when it began outside every one."""
    out = []
    t0 = history.rows[0].timestamp if history.rows else None
    for f in records:
        start, end = f.get("start"), f.get("end")
        req = fail = None
        if start is not None and end is not None:
            last = max(end, start + NODE_STUCK_S) if f.get("node") else end
            req, fail = window_counts(history, start, last + GRACE_S)
        out.append({"run_id": run_id, "action": f.get("action"), "target": f.get("target"),
                    "server": f.get("server"), "replica": f.get("replica"),
                    "from_s": None if start is None or t0 is None else round(start - t0, 1),
                    "to_s": None if end is None or t0 is None else round(end - t0, 1),
                    "in_flight": f.get("in_flight"), "ejected_after_s": f.get("ejected_after_s"),
                    "back_after_s": f.get("back_after_s"), "rescheduled_after_s": f.get("rescheduled_after_s"),
                    "replicas": f.get("replicas"), "requests_in_window": req,
                    "failures_in_window": fail, "error": f.get("error"), "step": in_step(steps, start)})
    return out


def timeline(history: History, latency: list | None = None) -> list[dict]:
    """Per history row: seconds since the first row, throughput since the row before, p95 — of the
    responses since the row before where the run has its latency log (analysis/load/latency.py;
    rows are written at the middle of a second: locustfile.py), else Locust's (its last ~10 s)."""
    import bisect

    from analysis.load import latency as lat
    rows, out = history.rows, []
    untagged = sorted((iv for iv in latency or [] if not iv.tag), key=lambda iv: iv.middle)
    middles = [iv.middle for iv in untagged]
    for a, b in zip(rows, rows[1:]):
        dt = b.timestamp - a.timestamp
        if dt <= 0:
            continue
        p95 = b.p95_ms
        if latency:        # the intervals of this second only (bisect), and its p95 alone: no full summary
            lo = bisect.bisect_left(middles, a.timestamp + 0.5)
            hist = lat.merged(untagged[lo:bisect.bisect_right(middles, b.timestamp + 0.5)])
            p95 = hist.get_value_at_percentile(95.0) / 1000.0 if hist is not None and hist.get_total_count() else None
        out.append({"t": b.timestamp - rows[0].timestamp, "throughput": max(0, b.total_requests - a.total_requests) / dt,
                    "failures": max(0, b.total_failures - a.total_failures) / dt, "p95_ms": p95})
    return out
