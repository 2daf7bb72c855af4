"""cpu.csv: the CPU of every process that takes part in a run, once a second.

One row per process per sample, `timestamp,tier,replica,pid,cpu_percent` (docs/results.md),
from the CPU clock of testbed.cpu_clock -- the readings the CPU exporter gives Prometheus, so a
report and Prometheus show the same series:
each stack replica (front, clone, axis, gsoap), HAProxy (its master and workers summed: a
reload replaces the worker), each Locust process of the run (loadgen master / worker-N /
local) and of the idle web UI if one runs (ui-master, ui-worker-N), and the host
(psutil.cpu_percent × cores), and with kernel=True (the container modes) the host's softirq time
as tier "kernel": the kernel's packet work on the bridge and veth pairs, which runs in softirq
context that no container's cgroup is charged for (on loopback, local mode, the sending process
is charged for it and the row is left out). 100 = one core busy. A process's first reading is skipped
(there is no interval yet); rows are flushed as written, so a Ctrl-C keeps them. A local
replica with a CPU quota has a group of its own (testbed/cpu/quotas.py) and is read from it like a
container below: nanoseconds of every thread and child instead of /proc's 10 ms clock ticks.

A container (docker mode) is sampled from its cgroup's CPU accounting, which counts every
process in it (cgroup v1 cpuacct.usage in ns, v2 cpu.stat usage_usec); `pid` is then the
container's main process as the host sees it (reading the accounting: testbed/cpu/cgroup.py). Where
the cgroup cannot be read from this host, the main process and its children are sampled instead.

With speed=PATH each sample also times the host speed probe (speedprobe.py) into PATH.
"""
from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import psutil

from testbed.cpu.clock import CpuClock
from testbed.run.record import speedprobe
from testbed.stack import CpuTarget as Target  # noqa: F401  (what a sampler is given)

HEADER = "timestamp,tier,replica,pid,cpu_percent\n"
INTERVAL_S = 1.0


class CpuSampler:
    """Samples `targets()` (re-asked every second, so new processes are picked up) into path."""

    def __init__(self, path: Path, targets, interval: float = INTERVAL_S, kernel: bool = False,
                 speed: Path | None = None):
        self.path = path
        self.speed = speed
        self.kernel = kernel
        self._softirq: tuple[float, float] | None = None     # (monotonic, softirq seconds)
        self.targets = targets
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="cpu-sampler", daemon=True)
        self._clock = None                       # cpu_clock.CpuClock, made in start()
        self._last: tuple[float, dict[tuple[str, str], float]] | None = None
        self.errors: list[str] = []
        self.latest: dict[tuple[str, str], float] = {}      # for the progress line
        self.host_latest: float | None = None

    def start(self) -> "CpuSampler":
        self._clock = CpuClock()
        self.path.write_text(HEADER)
        if self.speed is not None:
            self.speed.write_text(speedprobe.HEADER)
        psutil.cpu_percent(None)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        cores = psutil.cpu_count() or 1
        with open(self.path, "a", buffering=1) as out, \
                (open(self.speed, "a", buffering=1) if self.speed is not None else contextlib.nullcontext()) as speed:
            due = time.monotonic()
            while not self._stop.is_set():
                try:
                    rows = self._sample(cores)
                    out.write("".join(rows))
                    if self.speed is not None:
                        speed.write(f"{time.time():.3f},{speedprobe.probe_us():.1f}\n")
                except Exception as e:          # never let sampling kill the run; note it
                    if len(self.errors) < 20:
                        self.errors.append(f"{type(e).__name__}: {e}")
                due += self.interval
                self._stop.wait(max(0.0, due - time.monotonic()))

    def _sample(self, cores: int) -> list[str]:
        """One row per target: its CPU % since the previous sample, from the CPU clock the CPU
        exporter serves too (a replica's first sample has no interval yet and is skipped)."""
        try:
            targets = list(self.targets())
        except Exception as e:
            targets = []
            if len(self.errors) < 20:
                self.errors.append(f"targets: {type(e).__name__}: {e}")
        rows = []
        now, at = time.time(), time.monotonic()
        seconds = self._clock.read(targets)
        last, self._last = self._last, (at, seconds)
        pids = {(t.tier, t.replica): t.pid for t in targets}
        latest: dict[tuple[str, str], float] = {}
        if last is not None and at > last[0]:
            for key, value in seconds.items():
                if key in last[1]:
                    latest[key] = max(0.0, value - last[1][key]) / (at - last[0]) * 100
                    rows.append(f"{now:.3f},{key[0]},{key[1]},{pids[key]},{latest[key]:.1f}\n")
        host = psutil.cpu_percent(None) * cores
        self.latest, self.host_latest = latest, host
        rows.append(f"{now:.3f},host,all,,{host:.1f}\n")
        if self.kernel:
            softirq = getattr(psutil.cpu_times(), "softirq", None)     # Linux only
            if softirq is not None:
                prev, self._softirq = self._softirq, (at, softirq)
                if prev is not None and at > prev[0]:
                    rows.append(f"{now:.3f},kernel,softirq,,{max(0.0, softirq - prev[1]) / (at - prev[0]) * 100:.1f}\n")
        return rows

    def tier_totals(self) -> dict[str, float]:
        """Latest CPU per tier (sum over replicas), for progress lines."""
        out: dict[str, float] = {}
        for (tier, _), v in self.latest.items():
            out[tier] = out.get(tier, 0.0) + v
        return out
