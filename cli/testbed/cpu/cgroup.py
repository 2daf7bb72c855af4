"""Reading a cgroup's CPU accounting: which file counts a process's cgroup CPU time, and how
many seconds it holds (cgroup v1 cpuacct.usage in ns, v2 cpu.stat usage_usec). Used by the
CPU sampler (run/record/sampler.py) and by the containerized stacks (docker.py, swarmnodes.py) that
tell the sampler where each container's accounting lives — on a cluster made here, below its
node's cgroup. Reading only: creating cgroups is not done here.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PROC = Path("/proc")


def cgroup_dir(pid: int, proc: Path = PROC, root: Path = ROOT) -> Path | None:
    """The directory of the cgroup a process is in, in the hierarchy that accounts CPU (v1
    cpuacct, v2 unified), or None when it cannot be read from here."""
    try:
        lines = (proc / str(pid) / "cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            for mount in ("cpu,cpuacct", "cpuacct,cpu", "cpuacct"):
                d = root / mount / path.lstrip("/")
                if (d / "cpuacct.usage").exists():
                    return d
    for line in lines:
        if line.startswith("0::"):
            d = root / line[3:].lstrip("/")
            if (d / "cpu.stat").exists():
                return d
    return None


def dir_cpu_file(d: Path) -> str | None:
    """A cgroup directory's CPU accounting file."""
    for name in ("cpuacct.usage", "cpu.stat"):
        if (d / name).exists():
            return str(d / name)
    return None


def cpu_file(pid: int, proc: Path = PROC, root: Path = ROOT) -> str | None:
    """The CPU accounting file of the cgroup a process is in (v1 cpuacct.usage, v2 cpu.stat),
    or None when it cannot be read from here (another host, no permission, no such pid)."""
    d = cgroup_dir(pid, proc, root)
    return dir_cpu_file(d) if d else None


def node_dir(node_pid: int, proc: Path = PROC, root: Path = ROOT) -> Path | None:
    """The cgroup of a whole Docker-in-Docker node (testbed.cluster): its main process's, or on
    cgroup v2 the parent of the `init` leaf the node moves its own processes into."""
    d = cgroup_dir(node_pid, proc, root)
    if d is not None and d.name == "init" and (d.parent / "cpu.stat").exists():
        return d.parent
    return d


def nested_cpu_file(node: Path, container_id: str, depth: int = 3) -> str | None:
    """The CPU accounting file of a container that a node's own engine runs: a cgroup below the
    node's, named by the container's id (cgroupfs driver: docker/<id>; systemd: docker-<id>.scope)."""
    level = [node]
    for _ in range(depth):
        nxt = []
        for d in level:
            try:
                children = [c for c in d.iterdir() if c.is_dir()]
            except OSError:
                continue
            for c in children:
                if c.name == container_id or c.name == f"docker-{container_id}.scope":
                    return dir_cpu_file(c)
            nxt.extend(children)
        level = nxt
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
