"""A run's exact latencies: latency.hlog, HdrHistogram's interval log that the load generator writes
(loadgen/latency_record.py with LogWriter below; docs/latency.md), read into per-window percentiles.

Each line is one worker's histogram of the successful responses it counted in an interval
(about 0.5 s, absolute epoch times); the lines of a time span added up are every response in it.
A step's latencies are those of the lines whose interval's middle lies inside its measurement
window [measure_from, end] — within 0.25 s of the window's edges, the same responses as its
throughput (locustfile.py puts reports and history rows on one clock).

Percentiles (PERCENTILES) are HdrHistogram's: the value at or below which that share of the
responses lie, to the histogram's precision (3 significant digits: ± 0.05 % of the value).
Each has a distribution-free 95 % interval: the values at the ranks n·q ± 1.96·√(n·q·(1−q)) (the
normal approximation to the binomial count of responses below the true percentile; Conover,
"Practical Nonparametric Statistics", 3.2) — none where n·q·(1−q) < 5, too few responses that far out.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

LOG_FILE = "latency.hlog"
LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS = 1, 3_600_000_000, 3     # 1 µs to one hour, ± 0.05 %
MAX_RATIO = 1000.0                 # the log's Interval_Max column in milliseconds (values are µs)
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)
Z95 = 1.959964
MIN_TAIL = 5.0                     # n·q·(1−q) at least this for an interval
LINE = re.compile(r"^(?:Tag=([^,]*),)?([\d.]+),([\d.]+),([\d.]+),(\S+)$")
INTENDED, LAG, DROPPED = "intended", "lag", "dropped"     # the open loop's tags (loadgen/latency_record.py)
LOOP = "loop"                      # how late the generator's event loop woke a greenlet (its own timer)


def _hdr():
    from hdrh.histogram import HdrHistogram       # loaded only where a log is read
    return HdrHistogram


def new_histogram():
    return _hdr()(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


class LogWriter:
    """HdrHistogram's interval log (format 1.2) with absolute times, flushed after every line."""

    def __init__(self, path: str | Path):
        self.fh = open(path, "w", encoding="ascii")
        now = time.time()
        self.fh.write("#[Histogram log format version 1.2]\n")
        self.fh.write(f"#[StartTime: {now:.3f} (seconds since epoch), "
                      f"{time.strftime('%a %b %d %H:%M:%S %Z %Y', time.localtime(now))}]\n")
        self.fh.write("#[BaseTime: 0.000 (seconds since epoch)]\n")
        self.fh.write("#[values in microseconds: the response times of successful requests]\n")
        self.fh.write('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n')
        self.fh.flush()
        self.lines = 0

    def interval(self, start: float, end: float, max_us: int, encoded: str, tag: str = "") -> None:
        prefix = f"Tag={tag}," if tag else ""
        self.fh.write(f"{prefix}{start:.3f},{max(end - start, 0.0):.3f},{max_us / MAX_RATIO:.3f},{encoded}\n")
        self.fh.flush()
        self.lines += 1

    def close(self) -> None:
        if not self.fh.closed:
            self.fh.close()


@dataclass
class Interval:
    start: float
    end: float
    encoded: str
    tag: str = ""        # "": response times from the send; INTENDED, LAG, DROPPED: the open loop's

    @property
    def middle(self) -> float:
        return (self.start + self.end) / 2


def read(path: Path) -> tuple[list[Interval], list[str]]:
    """The log's intervals in file order, and its lines that are not (cut or foreign), as notes."""
    intervals: list[Interval] = []
    bad: list[str] = []
    with open(path, encoding="ascii", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#") or line.startswith('"'):
                continue
            m = LINE.match(line)
            if not m:
                bad.append(f"line {n}: not an interval")
                continue
            try:
                _hdr().decode(m.group(5))             # a histogram cut short (the file cut) is left out
            except Exception:                         # hdrh raises its own and zlib's errors
                bad.append(f"line {n}: its histogram does not decode")
                continue
            start, length = float(m.group(2)), float(m.group(3))
            intervals.append(Interval(start, start + length, m.group(5), m.group(1) or ""))
    return intervals, bad


def merged(intervals: list[Interval], t0: float | None = None, t1: float | None = None, tag: str = ""):
    """The sum of the intervals of `tag` whose middle lies in [t0, t1] (None: open), as one HdrHistogram."""
    hist = None
    for iv in intervals:
        if iv.tag != tag or (t0 is not None and iv.middle < t0) or (t1 is not None and iv.middle > t1):
            continue
        one = _hdr().decode(iv.encoded)
        if hist is None:
            hist = one
        else:
            hist.add(one)
    return hist


def mean_us(hist) -> float:
    """The histogram's mean as HdrHistogram defines it (each count at the middle of its value's
    equivalent range), read straight off its counts: the library's own get_mean_value walks a
    Python iterator over every sub-bucket (most of a report's time, 98 s of 113 for one folder)."""
    n = hist.get_total_count()
    if not n:
        return 0.0
    total, median = 0, hist._hdr_median_equiv_value
    for i, c in enumerate(hist.counts):
        if c:
            total += c * median(hist.get_value_from_index(i))
    return total / n


def value_at_rank(hist, rank: int) -> float:
    """The histogram's value (µs, the highest equivalent) of the rank-th response, 1-based."""
    n = hist.get_total_count()
    rank = min(max(rank, 1), n)
    return float(hist.get_value_at_percentile(100.0 * rank / n)) if n else math.nan


def summary(hist) -> dict | None:
    """{"count", "min_ms", "max_ms", "mean_ms", "p50_ms", ..., "ci95": {"p50": [lo, hi] | None, ...}}."""
    if hist is None or hist.get_total_count() == 0:
        return None
    n = hist.get_total_count()
    out: dict = {"count": n, "min_ms": hist.get_min_value() / 1000.0, "max_ms": hist.get_max_value() / 1000.0,
                 "mean_ms": round(mean_us(hist) / 1000.0, 4)}
    ci: dict = {}
    for q in PERCENTILES:
        key = name(q)
        out[f"{key}_ms"] = hist.get_value_at_percentile(q) / 1000.0
        p = q / 100.0
        spread = n * p * (1 - p)
        if spread < MIN_TAIL:
            ci[key] = None
            continue
        half = Z95 * math.sqrt(spread)
        ci[key] = [value_at_rank(hist, math.floor(n * p - half)) / 1000.0,
                   value_at_rank(hist, math.ceil(n * p + half)) / 1000.0]
    out["ci95"] = ci
    return out


def name(q: float) -> str:
    """50.0 -> "p50", 99.9 -> "p99.9"."""
    return f"p{q:g}"


def of_window(intervals: list[Interval], t0: float | None, t1: float | None) -> dict | None:
    """summary() of the responses in [t0, t1]; with an open loop also "intended" (the same from each
    request's intended start: what a user waits when the schedule does not wait for the stack),
    "lag" (how late the sends were) and "dropped" (requests dropped at the outstanding limit); where
    the generator timed its event loop, "loop" (how late it woke a greenlet: analysis/generator.py)."""
    out = summary(merged(intervals, t0, t1))
    if out is None:
        return out
    tags = {iv.tag for iv in intervals}
    if LOOP in tags:
        out["loop"] = summary(merged(intervals, t0, t1, LOOP))
    if not tags & {INTENDED, LAG, DROPPED}:
        return out
    out["intended"] = summary(merged(intervals, t0, t1, INTENDED))
    out["lag"] = summary(merged(intervals, t0, t1, LAG))
    dropped = merged(intervals, t0, t1, DROPPED)
    out["dropped"] = dropped.get_total_count() if dropped is not None else 0
    return out
