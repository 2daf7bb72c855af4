"""Exact percentiles (loadgen/latency_record.py, analysis/load/latency.py): a headless Locust run,
with and without a worker, writes every successful response into HdrHistogram's interval log, and
each percentile read from that log equals the one computed from a raw per-request log of the same
run (--latency-raw, written for this check) within the histogram's precision — answers slower than
100 ms included, where Locust's own figures keep two significant digits."""
from __future__ import annotations

import csv
import math
import random
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from analysis.load import latency
from testbed import procs
from testbed.run.locustrun import LOCUSTFILES, ROOT

pytestmark = pytest.mark.timeout(120)


class VariedServer(ThreadingHTTPServer):
    """Answers after 0-20 ms, one request in ten after 100-300 ms."""
    daemon_threads = True

    def __init__(self):
        rnd, lock = random.Random(7), threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(h):
                with lock:
                    wait = rnd.uniform(0.1, 0.3) if rnd.random() < 0.1 else rnd.uniform(0.0, 0.02)
                time.sleep(wait)
                h.send_response(200)
                h.send_header("Content-Length", "2")
                h.end_headers()
                h.wfile.write(b"ok")

            def log_message(h, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)


def raw_at(values: list[int], q: float) -> int:
    """HdrHistogram's definition on the raw values: the value of rank round(q·n/100), at least 1."""
    return sorted(values)[max(int(q * len(values) / 100 + 0.5), 1) - 1]


def run_locust(tmp_path, workers: int, extra: list[str] = (), users: int = 8) -> dict:
    """A 4 s headless run against VariedServer with the latency log and the raw log; Locust's
    Aggregated totals."""
    server = VariedServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = procs.free_port()
    common = [sys.executable, "-m", "locust", "-f", LOCUSTFILES]
    master = subprocess.Popen(
        common + ["--headless", "-H", f"http://127.0.0.1:{server.server_address[1]}",
                  "--csv", str(tmp_path / "locust"), "--only-summary", "--stop-timeout", "5", "--exit-code-on-error", "0",
                  "--step-users", str(users), "--step-seconds", "4", "--warmup-seconds", "0",
                  "--latency-log", str(tmp_path / latency.LOG_FILE), "--latency-raw", str(tmp_path / "raw"), *extra]
        + (["--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(port),
            "--expect-workers", "1", "--expect-workers-max-wait", "60"] if workers else []) + ["Seg1StaticPage"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "master.log", "w"))
    started = [master] + [subprocess.Popen(
        common + ["--worker", "--master-host", "127.0.0.1", "--master-port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "worker.log", "w")) for _ in range(workers)]
    try:
        assert master.wait(timeout=90) == 0, (tmp_path / "master.log").read_text()[-2000:]
        for p in started[1:]:
            p.wait(timeout=30)
    finally:
        for p in started:
            if p.poll() is None:
                p.kill()
        server.shutdown()
    with open(tmp_path / "locust_stats.csv") as f:
        return next(r for r in csv.DictReader(f) if r["Name"] == "Aggregated")


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
    assert not any(iv.tag for iv in intervals)              # a closed loop: no schedule to time from
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
    assert not bad and {iv.tag for iv in intervals} == {"", latency.INTENDED, latency.LAG, latency.DROPPED}
    s = latency.of_window(intervals, None, None)
    assert s["count"] == s["intended"]["count"] == s["lag"]["count"] == len(raw)
    for q in latency.PERCENTILES:
        exact = raw_at([r[1] for r in raw], q)
        logged = latency.merged(intervals, tag=latency.INTENDED).get_value_at_percentile(q)
        assert abs(logged - exact) <= exact / 1000, (q, exact, logged)
    # every dropped request is one of Locust's failures, and nothing else failed
    assert s["dropped"] == int(total["Failure Count"]) > 0
    assert s["count"] == int(total["Request Count"]) - int(total["Failure Count"])
