"""Re-make tests/analysis/data/real-sample/: a real ~30 s Locust run on 127.0.0.1.

    .venv/bin/python tests/analysis/data/make_sample.py

A tiny HTTP server answers /seg/1 while holding one process-wide lock for 3 ms (a sleep: a
software bottleneck with idle CPU, like the singleton SOAP client). Locust (headless, one local
process, --csv --csv-full-history) runs the step shape in sample_locustfile.py; a sampler thread
records CPU of the server (tier front), of locust (tier loadgen) and of the host every second
into cpu.csv. Files are then trimmed to a few KB: only the "Aggregated" rows of
stats_history.csv are kept (the analysis reads only those).
"""
import csv
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
OUT = HERE / "real-sample"
RUN = OUT / "runs" / "path1-r0"
SERVER = r'''
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
LOCK = threading.Lock()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else headers and body in two writes cost a 40 ms delayed ACK
    def do_GET(self):
        with LOCK:
            time.sleep(0.003)
        body = b"ok"
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample_cpu(procs: dict, path: Path, stop: threading.Event) -> None:
    handles = {k: psutil.Process(pid) for k, pid in procs.items()}
    for p in handles.values():
        p.cpu_percent(None)
    psutil.cpu_percent(None)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestamp", "tier", "replica", "pid", "cpu_percent"])
        while not stop.wait(1.0):
            now = time.time()
            for (tier, replica), p in handles.items():
                try:
                    w.writerow([f"{now:.3f}", tier, replica, p.pid, f"{p.cpu_percent(None):.1f}"])
                except psutil.NoSuchProcess:
                    pass
            host = psutil.cpu_percent(None) * psutil.cpu_count()
            w.writerow([f"{now:.3f}", "host", "all", "", f"{host:.1f}"])
            f.flush()


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    RUN.mkdir(parents=True)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)],
                              stderr=subprocess.DEVNULL)  # broken pipes when locust stops
    time.sleep(1.0)
    env = dict(os.environ, SAMPLE_STEPS_FILE=str(RUN / "steps.json"))
    started = time.time()
    locust = subprocess.Popen(
        [str(Path(sys.executable).with_name("locust")), "-f", str(HERE / "sample_locustfile.py"),
         "--headless", "--host", f"http://127.0.0.1:{port}", "--csv", str(RUN / "locust"),
         "--csv-full-history", "--only-summary", "--loglevel", "WARNING"],
        env=env, stdout=subprocess.DEVNULL)
    stop = threading.Event()
    sampler = threading.Thread(target=sample_cpu, args=(
        {("front", "1"): server.pid, ("loadgen", "local"): locust.pid}, RUN / "cpu.csv", stop))
    sampler.start()
    try:
        locust.wait(timeout=60)
    finally:
        stop.set()
        sampler.join()
        server.terminate()
        server.wait()
        if locust.poll() is None:
            locust.terminate()
    ended = time.time()
    steps = json.loads((RUN / "steps.json").read_text())
    (RUN / "steps.json").unlink()
    history = RUN / "locust_stats_history.csv"
    with open(history, newline="") as f:
        rows = list(csv.reader(f))
    with open(history, "w", newline="") as f:
        csv.writer(f).writerows([rows[0]] + [r for r in rows[1:] if len(r) > 3 and r[3] == "Aggregated"])
    import locust as locust_pkg
    (RUN / "run.json").write_text(json.dumps({
        "id": "path1-r0", "label": "path 1..1 (sample server, 3 ms under one lock)",
        "kind": "segments", "path": 1, "backend": "sample", "op": "get", "n": 0, "repeat": 0,
        "status": "complete", "locust_workers": 0, "locust_csv_full_history": True,
        "started": started, "ended": ended, "steps": steps}, indent=2) + "\n")
    (OUT / "experiment.json").write_text(json.dumps({
        "format": 1, "name": "real-sample", "kind": "segments",
        "definition": {"note": "made by tests/analysis/data/make_sample.py: one real Locust run "
                               "against a tiny lock-bound HTTP server on 127.0.0.1",
                       "stages": [[1, 10], [4, 10], [16, 10]], "warmup_s": 2},
        "started": started, "ended": ended, "status": "complete", "mode": "local",
        "host": {"cores": psutil.cpu_count(), "cpu_model": platform.processor() or platform.machine(),
                 "mem_gb": round(psutil.virtual_memory().total / 2**30, 1)},
        "cpu_affinity": None, "cpu_quotas": None,
        "settings": {"max_error_rate": 0.01, "loadgen_cpu_saturation_pct": 90, "think_time_s": 0,
                     "tolerance": 0.03},
        "versions": {"locust": locust_pkg.__version__, "python": platform.python_version()},
        "runs": ["path1-r0"]}, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
