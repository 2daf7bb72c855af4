"""A headless Locust run of the testbed's locustfile against a small HTTP server of the test's own on
loopback, with or without a worker, optionally inside CPU quota groups: the harness of the load
generator's tests (tests/loadgen). Bounded: one step of a few seconds, every process waited for
at most 90 s and killed after."""
from __future__ import annotations

import csv
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from testbed import procs
from testbed.run.locustrun import LOCUSTFILES, ROOT


class Server(ThreadingHTTPServer):
    """Answers every GET with "ok" after wait() seconds; counts the answers."""
    daemon_threads = True

    def __init__(self, wait=lambda: 0.0):
        self.answered, self.lock = 0, threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(h):
                time.sleep(wait())
                h.send_response(200)
                h.send_header("Content-Length", "2")
                h.end_headers()
                h.wfile.write(b"ok")
                h.wfile.flush()
                with self.lock:
                    self.answered += 1

            def log_message(h, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)


def run_locust(tmp_path: Path, server: Server, workers: int, extra: list[str] = (), users: int = 8,
               seconds: int = 4, stop_timeout: int = 5, cgroups: list[str] = (), latency_log: bool = True) -> dict:
    """One step of `users` for `seconds` against server (served here meanwhile), the latency log
    and the raw log in tmp_path when latency_log; every Locust process entering the cgroups' procs
    files (a CPU quota) when given. Locust's Aggregated totals."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = procs.free_port()
    common = [sys.executable, "-m", "locust", "-f", LOCUSTFILES]
    logs = (["--latency-log", str(tmp_path / "latency.hlog"), "--latency-raw", str(tmp_path / "raw")]
            if latency_log else [])

    enter = procs.entering(cgroups)           # in the child, before exec: into the quota's groups

    def start(argv: list[str], log: str) -> subprocess.Popen:
        return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(tmp_path / log, "w"),
                                preexec_fn=enter)
    master = start(
        common + ["--headless", "-H", f"http://127.0.0.1:{server.server_address[1]}",
                  "--csv", str(tmp_path / "locust"), "--only-summary", "--stop-timeout", str(stop_timeout),
                  "--exit-code-on-error", "0", "--step-users", str(users), "--step-seconds", str(seconds),
                  "--warmup-seconds", "0", *logs, *extra]
        + (["--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(port),
            "--expect-workers", "1", "--expect-workers-max-wait", "60"] if workers else []) + ["Seg1StaticPage"],
        "master.log")
    started = [master] + [start(common + ["--worker", "--master-host", "127.0.0.1", "--master-port", str(port)],
                                "worker.log") for _ in range(workers)]
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
