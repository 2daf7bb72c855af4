"""cpu.csv: the CPU of every process that takes part in a run, once a second.

One row per process per sample, `timestamp,tier,replica,pid,cpu_percent` (docs/results.md):
each stack replica (front, clone, axis, gsoap), HAProxy (its master and workers summed: a
reload replaces the worker), each Locust process of the run (loadgen master / worker-N /
local) and of the idle web UI if one runs (ui-master, ui-worker-N), and the host
(psutil.cpu_percent × cores). 100 = one core busy. A process's first reading is skipped
(there is no interval yet); rows are flushed as written, so a Ctrl-C keeps them. A local
replica with a CPU quota has a group of its own (testbed/quotas.py) and is read from it like a
container below: nanoseconds of every thread and child instead of /proc's 10 ms clock ticks.

A container (docker mode) is sampled from its cgroup's CPU accounting, which counts every
process in it (cgroup v1 cpuacct.usage in ns, v2 cpu.stat usage_usec); `pid` is then the
container's main process as the host sees it (reading the accounting: testbed/cgroup.py). Where
the cgroup cannot be read from this host, the main process and its children are sampled instead.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

import psutil

from testbed.cgroup import cpu_seconds
from testbed.stack import CpuTarget as Target  # noqa: F401  (what a sampler is given)

HEADER = "timestamp,tier,replica,pid,cpu_percent\n"
INTERVAL_S = 1.0


class _CgroupMeter:
    """CPU % of a cgroup between two readings."""

    def __init__(self, path: str):
        self.path = path
        self.last = (time.monotonic(), cpu_seconds(path))

    def read(self) -> float | None:
        try:
            now = (time.monotonic(), cpu_seconds(self.path))
        except (OSError, ValueError) as e:
            raise psutil.NoSuchProcess(0, msg=str(e)) from None   # the container is gone
        (t0, c0), (t1, c1) = self.last, now
        self.last = now
        return max(0.0, (c1 - c0) / (t1 - t0) * 100) if t1 > t0 else None


class _Meter:
    """CPU % of one process (and, for a tree, its children) between two readings."""

    def __init__(self, pid: int, tree: bool):
        self.proc = psutil.Process(pid)
        self.tree = tree
        self.children: dict[int, psutil.Process] = {}
        self.primed = False
        self.proc.cpu_percent(None)

    def read(self) -> float | None:
        value = self.proc.cpu_percent(None)
        if self.tree:
            try:
                kids = {c.pid: c for c in self.proc.children(recursive=True)}
            except psutil.Error:
                kids = {}
            for pid, child in kids.items():
                known = self.children.get(pid)
                if known is None:
                    try:
                        child.cpu_percent(None)      # first reading: no interval yet
                        self.children[pid] = child
                    except psutil.Error:
                        pass
                    continue
                try:
                    value += known.cpu_percent(None)
                except psutil.Error:
                    self.children.pop(pid, None)
            for pid in set(self.children) - set(kids):
                self.children.pop(pid, None)
        if not self.primed:
            self.primed = True
            return None
        return value


class CpuSampler:
    """Samples `targets()` (re-asked every second, so new processes are picked up) into path."""

    def __init__(self, path: Path, targets, interval: float = INTERVAL_S):
        self.path = path
        self.targets = targets
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="cpu-sampler", daemon=True)
        self._meters: dict[tuple[str, str, int], _Meter] = {}
        self.errors: list[str] = []
        self.latest: dict[tuple[str, str], float] = {}      # for the progress line
        self.host_latest: float | None = None

    def start(self) -> "CpuSampler":
        self.path.write_text(HEADER)
        psutil.cpu_percent(None)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        cores = psutil.cpu_count() or 1
        with open(self.path, "a", buffering=1) as out:
            due = time.monotonic()
            while not self._stop.is_set():
                try:
                    rows = self._sample(cores)
                    out.write("".join(rows))
                except Exception as e:          # never let sampling kill the run; note it
                    if len(self.errors) < 20:
                        self.errors.append(f"{type(e).__name__}: {e}")
                due += self.interval
                self._stop.wait(max(0.0, due - time.monotonic()))

    def _sample(self, cores: int) -> list[str]:
        try:
            targets = list(self.targets())
        except Exception as e:
            targets = []
            if len(self.errors) < 20:
                self.errors.append(f"targets: {type(e).__name__}: {e}")
        rows = []
        now = time.time()
        live = set()
        latest: dict[tuple[str, str], float] = {}
        for t in targets:
            key = (t.tier, t.replica, t.pid)
            live.add(key)
            meter = self._meters.get(key)
            try:
                if meter is None:
                    self._meters[key] = _CgroupMeter(t.cgroup) if t.cgroup else _Meter(t.pid, t.tree)
                    continue
                value = meter.read()
            except (psutil.Error, OSError, ValueError):
                # gone (a process ended; a cgroup removed with its container, or with its whole
                # node on a cluster, while the manager still lists the task): this target only
                self._meters.pop(key, None)
                continue
            if value is not None:
                rows.append(f"{now:.3f},{t.tier},{t.replica},{t.pid},{value:.1f}\n")
                latest[(t.tier, t.replica)] = value
        for key in set(self._meters) - live:
            self._meters.pop(key, None)
        host = psutil.cpu_percent(None) * cores
        self.latest, self.host_latest = latest, host
        rows.append(f"{now:.3f},host,all,,{host:.1f}\n")
        return rows

    def tier_totals(self) -> dict[str, float]:
        """Latest CPU per tier (sum over replicas), for progress lines."""
        out: dict[str, float] = {}
        for (tier, _), v in self.latest.items():
            out[tier] = out.get(tier, 0.0) + v
        return out
