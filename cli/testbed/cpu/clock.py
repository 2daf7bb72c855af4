"""CPU seconds of every replica as one monotonic counter each: what the CPU exporter serves as
testbed_cpu_seconds_total (cpu_exporter.py), what the Locust UI's Testbed tab turns into CPU %
(live.py), and what cpu.csv samples (run/record/sampler.py) — one reading, so a report and Prometheus
show the same series.

A container (CpuTarget.cgroup) is read from its cgroup's CPU accounting: every process in it,
a counter the kernel keeps. A process (local mode) is read from /proc through psutil, user +
system time, with its children when it is a tree (HAProxy's master and workers). A tree's sum
would drop when a child exits (an HAProxy reload retires a worker), which a Prometheus counter
must never do: the clock adds each process's increase since the last reading instead, so the
time of an exited child stays counted. The host is psutil's machine-wide CPU times.
process_seconds is one process's user + system time, read once, for a caller that takes its
own differences (the benchmarks: wrk's CPU per request, Zipkin's CPU during a run).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from testbed.cpu.cgroup import cpu_seconds as cgroup_cpu_seconds

if TYPE_CHECKING:                       # what the clock is given (stack.py imports no clock)
    from testbed.stack import CpuTarget


_BUSY_EXCLUDED = ("idle", "iowait", "guest", "guest_nice")   # guest time is in user time already


def host_cpu_seconds() -> tuple[float, float]:
    """(busy, idle) CPU seconds of the whole machine since boot (all cores summed)."""
    t = psutil.cpu_times()._asdict()
    idle = t.get("idle", 0.0) + t.get("iowait", 0.0)
    busy = sum(v for k, v in t.items() if k not in _BUSY_EXCLUDED)
    return busy, idle


def host_cores() -> int:
    return psutil.cpu_count() or 1


def _process_seconds(proc: psutil.Process) -> float:
    t = proc.cpu_times()
    return t.user + t.system


def process_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds of a process so far, all its threads (not its children);
    None when there is no pid or the process is gone."""
    if not pid:
        return None
    try:
        return _process_seconds(psutil.Process(pid))
    except psutil.Error:
        return None


class CpuClock:
    """Cumulative CPU seconds per (tier, replica) of the targets it is shown, never decreasing
    while the same replica lives."""

    def __init__(self):
        self._total: dict[tuple[str, str], float] = {}
        self._last: dict[tuple[str, str], dict[int, float]] = {}     # key -> pid -> last reading
        self._procs: dict[int, psutil.Process] = {}
        self._cgroup: dict[tuple[str, str], str] = {}

    def _process(self, pid: int) -> psutil.Process:
        p = self._procs.get(pid)
        if p is None or not p.is_running():
            p = self._procs[pid] = psutil.Process(pid)
        return p

    def _tree(self, t: CpuTarget) -> dict[int, float]:
        root = self._process(t.pid)
        procs = [root]
        if t.tree:
            try:
                procs += root.children(recursive=True)
            except psutil.Error:
                pass
        out = {}
        for p in procs:
            try:
                out[p.pid] = _process_seconds(p)
            except psutil.Error:
                continue
        if t.pid not in out:
            raise psutil.NoSuchProcess(t.pid)
        return out

    def read(self, targets: list[CpuTarget]) -> dict[tuple[str, str], float]:
        """Cumulative seconds of every target that can be read now (one that vanished, or
        cannot be read from here, is left out)."""
        out: dict[tuple[str, str], float] = {}
        for t in targets:
            key = (t.tier, t.replica)
            try:
                if t.cgroup:
                    if self._cgroup.get(key) != t.cgroup:      # a new container for this replica
                        self._cgroup[key] = t.cgroup
                        self._total.pop(key, None)
                    self._total[key] = cgroup_cpu_seconds(t.cgroup)
                else:
                    now = self._tree(t)
                    last = self._last.get(key)
                    if last is None or t.pid not in last:      # first reading, or a new process
                        self._total[key] = self._total.get(key, 0.0) + sum(now.values())
                    else:
                        self._total[key] += sum(max(0.0, v - last.get(pid, 0.0)) for pid, v in now.items())
                    self._last[key] = now
            except (psutil.Error, OSError, ValueError):
                continue
            out[key] = self._total[key]
        live = {(t.tier, t.replica) for t in targets}
        for key in set(self._total) - live:                   # scaled away: forget it
            self._total.pop(key, None)
            self._last.pop(key, None)
            self._cgroup.pop(key, None)
        self._procs = {pid: p for pid, p in self._procs.items() if any(pid in d for d in self._last.values())}
        return out


def quota_cores(cpu_file: str | None = None, pid: int | None = None,
                root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPU quota (cores) of a cgroup: the one whose accounting file this is (a container),
    else the one a process is in (a local replica in a cgroup of its own); None: no quota, or
    nothing readable. cgroup v2: cpu.max "QUOTA PERIOD" ("max": none); v1: cpu.cfs_quota_us
    (-1: none) / cpu.cfs_period_us, in the cpu controller's hierarchy."""
    for d in _cpu_dirs(cpu_file, pid, root):
        try:
            if (d / "cpu.max").exists():
                fields = (d / "cpu.max").read_text().split()
                quota, period = fields[0], fields[1] if len(fields) > 1 else "100000"
                return None if quota == "max" else int(quota) / int(period)
            if (d / "cpu.cfs_quota_us").exists():
                quota = int((d / "cpu.cfs_quota_us").read_text())
                return None if quota < 0 else quota / int((d / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError, ZeroDivisionError):
            return None
    return None


def _cpu_dirs(cpu_file: str | None, pid: int | None, root: Path) -> list[Path]:
    """Where a cgroup's quota files may be: beside its accounting file (v2, or v1 with cpu and
    cpuacct mounted together), or the same path under v1's cpu controller."""
    if cpu_file:
        d = Path(cpu_file).parent
        parts = d.parts
        alt = [Path(*parts[:i], m, *parts[i + 1:]) for i, part in enumerate(parts) if "cpuacct" in part.split(",")
               for m in ("cpu", "cpu,cpuacct", "cpuacct,cpu")]
        return [d, *alt]
    if pid:
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if controllers == "" or "cpu" in controllers.split(","):
                mounts = [""] if controllers == "" else ["cpu", "cpu,cpuacct", "cpuacct,cpu"]
                out += [root / m / path.lstrip("/") for m in mounts]
        return out
    return []
