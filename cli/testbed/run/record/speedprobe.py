"""speed.csv: how fast this host's CPU runs, sampled beside the run's CPU samples.

A shared or virtual machine does not always run the same code at the same speed: a neighbour on
the same physical core, cache or memory bandwidth slows every process alike, and no CPU counter
of ours shows it — the same CPU seconds just buy fewer requests. On this project's 2-core
reference host one configuration measured 334, 455 and 327 requests/s in three rounds with
every tier at the same CPU % in each (docs/log/2026-11-28-prediction-client-build.md). The probe times a fixed piece
of interpreter work in the sampling thread's own CPU time (time.thread_time_ns: waiting for a
core or for the GIL is not counted, only how long the work took once running) — the median of
REPS timings after one warm-up, once a sample (every second: about 3 ms, 0.3 % of a core).
A higher figure is a slower host. Header `timestamp,probe_us` (docs/results.md); the analysis
reads it in analysis/load/hostspeed.py.
"""
from __future__ import annotations

import statistics
import time

FILE = "speed.csv"
HEADER = "timestamp,probe_us\n"
WORK = 10_000          # loop iterations of one timing: ~0.6 ms on the reference host
REPS = 3


def _work(n: int) -> int:
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def probe_us(reps: int = REPS) -> float:
    """Microseconds of this thread's CPU that WORK takes: the median of `reps` after a warm-up."""
    _work(WORK)
    times = []
    for _ in range(reps):
        t0 = time.thread_time_ns()
        _work(WORK)
        times.append(time.thread_time_ns() - t0)
    return statistics.median(times) / 1e3
