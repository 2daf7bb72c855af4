"""Reading a cgroup's CPU accounting: which file counts a process's cgroup CPU time, and how
many seconds it holds (cgroup v1 cpuacct.usage in ns, v2 cpu.stat usage_usec). Used by the
CPU sampler (run/sampler.py) and by the containerized stack (docker.py) that tells the sampler
where each container's accounting lives. Reading only: creating cgroups is not done here.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PROC = Path("/proc")


def cpu_file(pid: int, proc: Path = PROC, root: Path = ROOT) -> str | None:
    """The CPU accounting file of the cgroup a process is in (v1 cpuacct.usage, v2 cpu.stat),
    or None when it cannot be read from here (another host, no permission, no such pid)."""
    try:
        lines = (proc / str(pid) / "cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            for mount in ("cpu,cpuacct", "cpuacct,cpu", "cpuacct"):
                f = root / mount / path.lstrip("/") / "cpuacct.usage"
                if f.exists():
                    return str(f)
    for line in lines:
        if line.startswith("0::"):
            f = root / line[3:].lstrip("/") / "cpu.stat"
            if f.exists():
                return str(f)
    return None


def cpu_seconds(path: str) -> float:
    """The CPU time (s) a cgroup's accounting file (from cpu_file) has counted so far."""
    text = Path(path).read_text()
    if path.endswith("cpuacct.usage"):
        return int(text) / 1e9
    for line in text.splitlines():
        if line.startswith("usage_usec "):
            return int(line.split()[1]) / 1e6
    raise ValueError(f"{path}: no usage_usec line")
