"""client_time.csv: the client tier's own timers, once a second (docs/results.md).

Each clone replica counts, per backend, the calls that got a SOAP client, the time they waited
for it, the time they held it (the singleton client's lock) and their thread's CPU while
holding it (client-clones ClientTime, in GET /status "backends"."<b>"."client_time"). The
counters are cumulative since the replica started; the analysis takes differences over each
step's window (analysis/predict/baseline_demands.py). One row per replica and backend per sample:
`timestamp,replica,backend,calls,wait_ns,hold_ns,hold_cpu_ns`. A replica that does not answer
is skipped for that second (its counters keep counting); rows are flushed as written.

From the same answers, clone_gc.csv: each replica's garbage collections and their time since it
started (GET /status "gc", client-clones GcTime), one row per replica per sample:
`timestamp,replica,collections,gc_ns` — the analysis reads the collector's time per request of
each step from it (analysis/predict/clonegc.py).
"""
from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.request
from pathlib import Path

FILE = "client_time.csv"
HEADER = "timestamp,replica,backend,calls,wait_ns,hold_ns,hold_cpu_ns\n"
KEYS = ("calls", "wait_ns", "hold_ns", "hold_cpu_ns")
GC_FILE = "clone_gc.csv"
GC_HEADER = "timestamp,replica,collections,gc_ns\n"
INTERVAL_S = 1.0
TIMEOUT_S = 0.8


def rows(replica: str, status: dict, now: float) -> list[str]:
    """CSV rows of one clone's GET /status answer (backends without timers are left out)."""
    out = []
    for backend, b in sorted((status.get("backends") or {}).items()):
        t = b.get("client_time") if isinstance(b, dict) else None
        if isinstance(t, dict) and all(isinstance(t.get(k), int) for k in KEYS):
            out.append(f"{now:.3f},{replica},{backend}," + ",".join(str(t[k]) for k in KEYS) + "\n")
    return out


def gc_row(replica: str, status: dict, now: float) -> str:
    """The clone_gc.csv row of one clone's GET /status answer ("" without a "gc" object)."""
    g = status.get("gc")
    if isinstance(g, dict) and isinstance(g.get("collections"), int) and isinstance(g.get("time_ns"), int):
        return f"{now:.3f},{replica},{g['collections']},{g['time_ns']}\n"
    return ""


class ClientTimeSampler:
    """Polls GET /status of each clone replica in `replicas()` ([{tier, replica, url}]); writes
    `path` (client_time.csv) and GC_FILE beside it."""

    def __init__(self, path: Path, replicas, interval: float = INTERVAL_S):
        self.path, self.replicas, self.interval = path, replicas, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="client-time-sampler", daemon=True)
        self.errors: list[str] = []

    def start(self) -> "ClientTimeSampler":
        self.path.write_text(HEADER)
        self.path.with_name(GC_FILE).write_text(GC_HEADER)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _poll(self, out, gc) -> None:
        for r in self.replicas():
            if r.get("tier") != "clone" or not r.get("url"):
                continue
            try:
                with urllib.request.urlopen(r["url"] + "/status", timeout=TIMEOUT_S) as resp:
                    status = json.loads(resp.read())
                now = time.time()
                out.write("".join(rows(str(r["replica"]), status, now)))
                gc.write(gc_row(str(r["replica"]), status, now))
            except (OSError, ValueError) as e:
                if len(self.errors) < 20:
                    self.errors.append(f"clone-{r.get('replica')}: {type(e).__name__}: {e}"[:160])

    def _loop(self) -> None:
        start = time.monotonic()
        with open(self.path, "a", buffering=1) as out, open(self.path.with_name(GC_FILE), "a", buffering=1) as gc:
            for tick in itertools.count(1):        # on a fixed grid: a slow answer does not shift it
                self._poll(out, gc)
                if self._stop.wait(max(0.0, start + tick * self.interval - time.monotonic())):
                    return
