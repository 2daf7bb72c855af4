"""Exact percentiles (loadgen/latency_record.py, analysis/load/latency.py): a headless Locust run,
with and without a worker, writes every successful response into HdrHistogram's interval log, and
each percentile read from that log equals the one computed from a raw per-request log of the same
run (--latency-raw, written for this check) within the histogram's precision — answers slower than
100 ms included, where Locust's own figures keep two significant digits."""
from __future__ import annotations

import math
import random
import threading

import pytest

from analysis.load import latency
from locust_runs import Server, run_locust as run

pytestmark = pytest.mark.timeout(120)


def varied() -> Server:
    """Answers after 0-20 ms, one request in ten after 100-300 ms."""
    rnd, lock = random.Random(7), threading.Lock()

    def wait() -> float:
        with lock:
            return rnd.uniform(0.1, 0.3) if rnd.random() < 0.1 else rnd.uniform(0.0, 0.02)
    return Server(wait)


def run_locust(tmp_path, workers: int, extra: list[str] = (), users: int = 8) -> dict:
    """A 4 s headless run against varied() with the latency log and the raw log; Locust's totals."""
    return run(tmp_path, varied(), workers, extra, users)


def raw_at(values: list[int], q: float) -> int:
    """HdrHistogram's definition on the raw values: the value of rank round(q·n/100), at least 1."""
    return sorted(values)[max(int(q * len(values) / 100 + 0.5), 1) - 1]


def raw_lines(tmp_path) -> list[list[int]]:
    return [[int(x) for x in line.split(",")[1:]] for f in sorted(tmp_path.glob("raw.*")) for line in f.read_text().splitlines()]


@pytest.mark.parametrize("workers", [0, 1])
def test_every_percentile_of_the_log_is_the_raw_one_within_the_histograms_precision(workers, tmp_path):
    total = run_locust(tmp_path, workers)
    raw = [r[0] for r in raw_lines(tmp_path)]
    text = (tmp_path / latency.LOG_FILE).read_text()
    assert text.startswith("#[Histogram log format version 1.2]") and "#[BaseTime: 0.000" in text
    intervals, bad = latency.read(tmp_path / latency.LOG_FILE)
    assert not bad and len(intervals) >= 4                  # one every 0.5 s or so
    hist = latency.merged(intervals)
    # a closed loop: no schedule to time from; the generator's own event loop timed beside
    assert {iv.tag for iv in intervals} == {"", latency.LOOP}
    ok = int(total["Request Count"]) - int(total["Failure Count"])
    # every successful response is in the log, once: the worker's last report included
    assert hist.get_total_count() == len(raw) == ok > 100
    assert max(raw) > 100_000                                # answers slower than 100 ms were there
    for q in (*latency.PERCENTILES, 100.0):
        exact, logged = raw_at(raw, q), hist.get_value_at_percentile(q)
        # 3 significant digits: the histogram's value lies in the raw value's bucket
        assert hist.values_are_equivalent(exact, logged) and abs(logged - exact) <= exact / 1000, (q, exact, logged)
    s = latency.summary(hist)
    assert s["count"] == len(raw) and math.isclose(s["p50_ms"], hist.get_value_at_percentile(50) / 1000)
    lo, hi = s["ci95"]["p90"]
    assert lo <= s["p90_ms"] <= hi


def test_the_open_loop_times_each_request_from_its_place_in_the_schedule_and_counts_the_dropped(tmp_path):
    """2 users at 40/s each, at most 2 requests in flight each: the one answer in ten that takes
    100-300 ms fills a user's slots, and the requests due meanwhile are dropped."""
    total = run_locust(tmp_path, 1, ["--open-loop-rate", "40", "--open-loop-max-outstanding", "2"], users=2)
    raw = raw_lines(tmp_path)
    assert raw and all(len(r) == 2 and r[1] >= r[0] for r in raw)   # from the schedule: never less
    intervals, bad = latency.read(tmp_path / latency.LOG_FILE)
    assert not bad and {iv.tag for iv in intervals} == {"", latency.INTENDED, latency.LAG, latency.DROPPED,
                                                   latency.LOOP}
    s = latency.of_window(intervals, None, None)
    assert s["count"] == s["intended"]["count"] == s["lag"]["count"] == len(raw)
    for q in latency.PERCENTILES:
        exact = raw_at([r[1] for r in raw], q)
        logged = latency.merged(intervals, tag=latency.INTENDED).get_value_at_percentile(q)
        assert abs(logged - exact) <= exact / 1000, (q, exact, logged)
    # every dropped request is one of Locust's failures, and nothing else failed
    assert s["dropped"] == int(total["Failure Count"]) > 0
    assert s["count"] == int(total["Request Count"]) - int(total["Failure Count"])
