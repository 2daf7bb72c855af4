"""client_time.csv: the client tier's own timers, once a second (docs/results.md).

Each clone replica counts, per backend, the calls that got a SOAP client, the time they waited
for it, the time they held it (the singleton client's lock) and their thread's CPU while
holding it (client-clones ClientTime, in GET /status "backends"."<b>"."client_time"). The
counters are cumulative since the replica started; the analysis takes differences over each
step's window (analysis/predict/demands.py). One row per replica and backend per sample:
`timestamp,replica,backend,calls,wait_ns,hold_ns,hold_cpu_ns`. A replica that does not answer
is skipped for that second (its counters keep counting); rows are flushed as written.
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


class ClientTimeSampler:
    """Polls GET /status of each clone replica in `replicas()` ([{tier, replica, url}])."""

    def __init__(self, path: Path, replicas, interval: float = INTERVAL_S):
        self.path, self.replicas, self.interval = path, replicas, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="client-time-sampler", daemon=True)
        self.errors: list[str] = []

    def start(self) -> "ClientTimeSampler":
        self.path.write_text(HEADER)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _poll(self, out) -> None:
        for r in self.replicas():
            if r.get("tier") != "clone" or not r.get("url"):
                continue
            try:
                with urllib.request.urlopen(r["url"] + "/status", timeout=TIMEOUT_S) as resp:
                    status = json.loads(resp.read())
                out.write("".join(rows(str(r["replica"]), status, time.time())))
            except (OSError, ValueError) as e:
                if len(self.errors) < 20:
                    self.errors.append(f"clone-{r.get('replica')}: {type(e).__name__}: {e}"[:160])

    def _loop(self) -> None:
        start = time.monotonic()
        with open(self.path, "a", buffering=1) as out:
            for tick in itertools.count(1):        # on a fixed grid: a slow answer does not shift it
                self._poll(out)
                if self._stop.wait(max(0.0, start + tick * self.interval - time.monotonic())):
                    return
