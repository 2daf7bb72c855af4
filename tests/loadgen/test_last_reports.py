"""Nothing lost at the end of a headless run (loadgen/locustfile.py, _final_reports_before_quit
and _final_totals): every request a slow server answered is in Locust's locust_stats.csv,
including the answers to the requests still in flight when the last step ended — which
returned after Locust's own fixed 0.5 s wait for the workers' last reports, and after its last
rewrite of the CSV."""
from __future__ import annotations

import csv
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from testbed import procs
from testbed.run.locustrun import LOCUSTFILES, ROOT

pytestmark = pytest.mark.timeout(120)

ANSWER_S = 1.5          # each answer this late: longer than Locust's 0.5 s, shorter than --stop-timeout


class SlowServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        self.answered, self.lock = 0, threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(h):
                time.sleep(ANSWER_S)
                body = b"ok"
                h.send_response(200)
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                h.wfile.write(body)
                h.wfile.flush()
                with self.lock:
                    self.answered += 1

            def log_message(h, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.mark.parametrize("workers", [0, 1])
def test_the_answers_to_requests_in_flight_at_the_end_are_counted(workers, tmp_path):
    server = SlowServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port, users = procs.free_port(), 4
    common = [sys.executable, "-m", "locust", "-f", LOCUSTFILES]
    master = subprocess.Popen(
        common + ["--headless", "-H", f"http://127.0.0.1:{server.server_address[1]}",
                  "--csv", str(tmp_path / "locust"), "--only-summary", "--stop-timeout", "10",
                  "--step-users", str(users), "--step-seconds", "4", "--warmup-seconds", "0"]
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
        total = next(r for r in csv.DictReader(f) if r["Name"] == "Aggregated")
    counted = int(total["Request Count"]) - int(total["Failure Count"])
    # each user had a request in flight when the step ended: its answer came ANSWER_S later
    assert server.answered >= 2 * users
    assert counted == server.answered, (tmp_path / "master.log").read_text()[-2000:]
