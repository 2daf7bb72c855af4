"""The containers of this stack, seen from inside one of its containers with no Docker API:
what the Locust master's Testbed tab and the CPU exporter read in compose (and Swarm) mode.

Needs the host's /sys/fs/cgroup mounted read-only (at CGROUP_HOST_ROOT, default
/host/sys/fs/cgroup; docker-compose.yml does it for locust-master and cpu-exporter). Each
container has a cgroup directory named by its full id: cgroup v1 <controller>/docker/<id>, v2
docker/<id> (cgroupfs driver) or system.slice/docker-<id>.scope (systemd driver). Docker's
embedded DNS answers a container's short id (its first 12 hex digits, one of its network
aliases) with its address on the networks this container shares with it, and that address's
PTR record with "<container name>.<network>": testbed-clone-2.testbed_default is replica 2 of
service clone; a Swarm task's is <stack>_clone.2.<task id>. A container on no shared network
(another project, the host's own) does not resolve and is left out.
"""
from __future__ import annotations

import os
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from testbed.stack import CpuTarget

CGROUP_HOST_ROOT = Path(os.environ.get("CGROUP_HOST_ROOT", "/host/sys/fs/cgroup"))
SERVICES = ("front", "clone", "axis", "gsoap", "haproxy", "locust-master", "locust-worker",
            "prometheus", "cpu-exporter")
_ID = re.compile(r"^(?:docker-)?([0-9a-f]{64})(?:\.scope)?$")
_COMPOSE = re.compile(r"^.+?[-_](?P<service>" + "|".join(map(re.escape, SERVICES)) + r")[-_](?P<n>\d+)$")
_SWARM = re.compile(r"^.+?_(?P<service>" + "|".join(map(re.escape, SERVICES)) + r")\.(?P<n>\d+)\.[0-9a-z]+$")
RETRY_S = 10.0          # an id that did not resolve is asked again after this long


@dataclass(frozen=True)
class Container:
    service: str
    number: int
    address: str
    cpu_file: str            # cpuacct.usage (v1) or cpu.stat (v2)

    def target(self) -> CpuTarget:
        """As cpu.csv and ComposeStack.cpu_targets name it: the Locust containers are loadgen."""
        tier = "loadgen" if self.service.startswith("locust-") else self.service
        replica = ("ui-master" if self.service == "locust-master" else
                   f"ui-worker-{self.number}" if self.service == "locust-worker" else str(self.number))
        return CpuTarget(tier, replica, 0, cgroup=self.cpu_file)


def cgroup_dirs(root: Path = CGROUP_HOST_ROOT) -> dict[str, str]:
    """container id -> its CPU accounting file, under a cgroup v1 or v2 tree."""
    out: dict[str, str] = {}
    bases = [(root / m / "docker", "cpuacct.usage") for m in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu")]
    bases += [(root / "docker", "cpu.stat"), (root / "system.slice", "cpu.stat")]
    for base, name in bases:
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for e in entries:
            m = _ID.match(e.name)
            if m and e.is_dir() and m.group(1) not in out and os.path.exists(os.path.join(e.path, name)):
                out[m.group(1)] = os.path.join(e.path, name)
    return out


def parse_name(ptr: str) -> tuple[str, int] | None:
    """(service, number) of a container from its PTR name, or None when it is none of ours:
    compose "<project>-<service>-<n>.<network>", Swarm "<stack>_<service>.<slot>.<task>.<network>"."""
    host = ptr.rstrip(".")
    m = _SWARM.match(host.rsplit(".", 1)[0]) if host.count(".") >= 3 else None
    m = m or _COMPOSE.match(host.split(".", 1)[0])
    return (m.group("service"), int(m.group("n"))) if m else None


class ContainerScan:
    """The containers this one can see and name (see the module). Cheap to call every second:
    the cgroup tree is listed each time, DNS is asked only about ids not seen before."""

    def __init__(self, root: Path = CGROUP_HOST_ROOT, resolve=socket.gethostbyname,
                 reverse=lambda ip: socket.gethostbyaddr(ip)[0]):
        self.root, self._resolve, self._reverse = root, resolve, reverse
        self._known: dict[str, tuple[str, int, str] | None] = {}     # id -> (service, n, ip) | None
        self._asked: dict[str, float] = {}

    def available(self) -> bool:
        return self.root.is_dir()

    def _name(self, cid: str) -> tuple[str, int, str] | None:
        if cid in self._known and (self._known[cid] or time.monotonic() - self._asked[cid] < RETRY_S):
            return self._known[cid]
        self._asked[cid] = time.monotonic()
        found = None
        try:
            ip = self._resolve(cid[:12])
            parsed = parse_name(self._reverse(ip))
            if parsed:
                found = (*parsed, ip)
        except OSError:
            pass
        self._known[cid] = found
        return found

    def containers(self) -> list[Container]:
        dirs = cgroup_dirs(self.root)
        for gone in set(self._known) - set(dirs):
            self._known.pop(gone, None)
            self._asked.pop(gone, None)
        out = []
        for cid, cpu_file in dirs.items():
            named = self._name(cid)
            if named:
                out.append(Container(named[0], named[1], named[2], cpu_file))
        return sorted(out, key=lambda c: (c.service, c.number))
