"""The clone's garbage collector per request, step by step: where a demand grows with load.

The model charges every tier a fixed CPU per request. A client per request breaks that at the
clone: each call leaves a service client and a stub that Axis2 2.0.0 finalizes, so they outlive
one collection and fill the old generation, and the collector's share of the clone's CPU grows
with the requests in flight (at a 512 MiB heap 0.31 ms a request at 12 users, 0.53 at 64: 67
full collections in 7 minutes; docs/predict.md, "The per-request clone's garbage"). The probe
builds its clients at 2 threads and cannot see that growth, so where it shows, a CPU-bound
prediction of the per-request clone reads high.

Read from clone_gc.csv (cli/testbed/run/record/clienttime.py: each clone replica's collections and
their time since start, once a second): per step, the collectors' time per second summed over
the replicas (each replica's increase between its first and last sample in the step's measured
window, over that span) divided by the step's throughput. The time is the collectors' own
elapsed time (the pauses of a stop-the-world collection; G1's concurrent work is not in it), a
floor of the collector's CPU. Per configuration: that figure at its lowest valid step and at its
highest-throughput one (the step tiercpu compares), the median over its runs.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from analysis.predict.baseline_demands import read_counter_rows, replica_spans

FILE = "clone_gc.csv"          # cli/testbed/run/record/clienttime.py GC_FILE


def read(path: Path) -> list[dict]:
    """clone_gc.csv rows as dicts of numbers; a cut or unreadable row is skipped."""
    return read_counter_rows(path, {"timestamp": float, "replica": str, "collections": int, "gc_ns": int})


def window_rate(rows: list[dict], start: float, end: float) -> tuple[float, float] | None:
    """(collector seconds per second, collections per second) over [start, end], summed over the
    replicas; None where no replica has two samples inside it (or each restarted)."""
    seconds = collections = 0.0
    seen = False
    for a, b in replica_spans(rows, "collections", start, end):
        span = b["timestamp"] - a["timestamp"]
        if span <= 0:
            continue
        seen = True
        seconds += (b["gc_ns"] - a["gc_ns"]) / 1e9 / span
        collections += (b["collections"] - a["collections"]) / span
    return (seconds, collections) if seen else None


def per_step(rows: list[dict], step) -> dict | None:
    """{users, throughput, gc_s (per request), collections_per_s} of one StepSample; None where
    it has no throughput, no window or no samples in it."""
    start = step.measure_from if step.measure_from is not None else step.start
    if not step.throughput or start is None or step.end is None:
        return None
    rate = window_rate(rows, start, step.end)
    if rate is None:
        return None
    return {"users": step.users, "throughput": step.throughput, "gc_s": rate[0] / step.throughput,
            "collections_per_s": rate[1]}


def compare(result, steps: dict, run_ids: list[str]) -> dict | None:
    """{"lowest": {...}, "highest": {...}} — per_step at each run's lowest valid step and at its
    highest-throughput valid step, the median of each figure over the runs; None where no run
    has clone_gc.csv rows in both."""
    runs = {r.id: r for r in result.runs}
    low, high = [], []
    for rid in run_ids:
        valid = [s for s in steps.get(rid, []) if s.valid and s.throughput]
        rows = read(Path(runs[rid].dir) / FILE) if rid in runs and valid else []
        a = per_step(rows, min(valid, key=lambda s: s.users)) if rows else None
        b = per_step(rows, max(valid, key=lambda s: (s.throughput, s.users))) if rows else None
        if a and b:
            low.append(a)
            high.append(b)
    if not low:
        return None

    def median(points: list[dict]) -> dict:
        return {k: statistics.median(p[k] for p in points) for k in points[0]}
    return {"lowest": median(low), "highest": median(high), "runs": len(low)}


def text(c: dict | None) -> str | None:
    """"0.31 → 0.53 ms (12 → 64 users; 0.4 → 1.2 collections/s)" or None."""
    if not c:
        return None
    a, b = c["lowest"], c["highest"]
    return (f"{a['gc_s'] * 1e3:.2f} → {b['gc_s'] * 1e3:.2f} ms ({a['users']:g} → {b['users']:g} users; "
            f"{a['collections_per_s']:.1f} → {b['collections_per_s']:.1f} collections/s)")
