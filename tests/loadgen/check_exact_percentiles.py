"""Exact percentiles on a large run (docs/latency.md, "Checking it"): a headless Locust run, one
master and one worker, against a running stack's /seg/1 (HAProxy on loopback) for --seconds (at
least --requests answers, or it fails), with the latency log and a raw per-request log beside it; every percentile the
analysis reads from the log must equal the raw one within the histogram's precision.

    ./testbed up                      # any stack on loopback
    .venv/bin/python tests/loadgen/check_exact_percentiles.py [--requests 100000] [--url URL]

Prints one line per percentile and exits 1 when one differs beyond the precision (or fewer answers
came). Bounded: --seconds of load (default 40), loopback only."""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "cli"), str(ROOT)]

from analysis.load import latency  # noqa: E402
from testbed import procs  # noqa: E402
from testbed.run.locustrun import LOCUSTFILES  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--seconds", type=int, default=40, help="seconds of load (enough for --requests)")
    ap.add_argument("--url", default="http://127.0.0.1:8080", help="the stack's web entry (loopback)")
    ap.add_argument("--users", type=int, default=32)
    a = ap.parse_args()
    if not a.url.startswith(("http://127.", "http://localhost")):
        print("check: loopback only (--url http://127.0.0.1:PORT)")
        return 2
    work = Path(tempfile.mkdtemp(prefix="exact-"))
    port = procs.free_port()
    common = [sys.executable, "-m", "locust", "-f", LOCUSTFILES]
    seconds = a.seconds
    master = subprocess.Popen(
        common + ["--headless", "-H", a.url, "--csv", str(work / "locust"), "--only-summary",
                  "--exit-code-on-error", "0", "--step-users", str(a.users), "--step-seconds", str(seconds),
                  "--warmup-seconds", "0", "--latency-log", str(work / latency.LOG_FILE),
                  "--latency-raw", str(work / "raw"),
                  "--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(port),
                  "--expect-workers", "1", "--expect-workers-max-wait", "60", "Seg1StaticPage"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(work / "master.log", "w"))
    worker = subprocess.Popen(common + ["--worker", "--master-host", "127.0.0.1", "--master-port", str(port)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(work / "worker.log", "w"))
    t0 = time.monotonic()
    try:
        master.wait(timeout=seconds + 90)
        worker.wait(timeout=30)
    finally:
        for p in (master, worker):
            if p.poll() is None:
                p.kill()
    raw = sorted(int(line.split(",")[1]) for f in work.glob("raw.*") for line in f.read_text().splitlines())
    intervals, bad = latency.read(work / latency.LOG_FILE)
    hist = latency.merged(intervals)
    print(f"check: {len(raw):,} responses in {time.monotonic() - t0:.0f} s; the log holds {hist.get_total_count():,} "
          f"({len(intervals)} intervals, {len(bad)} unreadable lines); files in {work}")
    ok = hist.get_total_count() == len(raw) >= a.requests and not bad
    for q in (*latency.PERCENTILES, 99.99, 100.0):
        exact = raw[max(int(q * len(raw) / 100 + 0.5), 1) - 1]
        logged = hist.get_value_at_percentile(q)
        same = hist.values_are_equivalent(exact, logged) and abs(logged - exact) <= exact / 1000
        ok &= same
        print(f"  p{q:g}: raw {exact / 1000:.3f} ms, log {logged / 1000:.3f} ms, "
              f"{'within' if same else 'BEYOND'} the precision (±0.1 %: 3 significant digits)")
    print("check: " + ("every percentile exact" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
