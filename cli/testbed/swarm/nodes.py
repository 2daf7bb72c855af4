"""The nodes of a multi-node Swarm as the testbed reaches them: a cluster of Docker-in-Docker
nodes made on this machine by `./testbed cluster up` (testbed.cluster), described by the file
<state_dir>/cluster/cluster.json that `cluster up` writes and `cluster down` removes.

Each node is a container of the host's engine with its own engine inside; the host reaches
that engine through a unix socket in a directory it mounts into the node
(<state_dir>/cluster/<node>/docker.sock: DOCKER_HOST=unix://... — the same way `docker -H`
reaches a remote machine's engine over ssh://). What a stack needs from it: which engine
manages the Swarm, which node publishes the entry points, each node's engine, and — because
the nodes share this machine's kernel — the cgroup files of every container on any node
(each node has its own cgroup namespace, so its containers sit below its own cgroup).
"""
from __future__ import annotations

import json
import os
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_FILE = "cluster.json"
LABEL = "testbed.cluster"         # on every container, network and volume a cluster makes
ENTRY_LABEL = "testbed.entry"     # node label: HAProxy (the published entry points) runs there
LOADGEN_LABEL = "testbed.loadgen"  # node label: the Locust workers of an experiment run there
REGISTRY_PORT = 5000              # the private registry inside the manager node


@dataclass(frozen=True)
class Node:
    name: str            # its hostname, what Swarm calls it: node-1 ...
    container: str       # the host engine's container
    role: str            # manager | worker
    ip: str              # on the cluster's network
    cpus: float | None   # CPU quota of the whole node (None: none)
    socket: str          # its engine's unix socket, on this host

    def env(self) -> dict[str, str]:
        """Environment that points the docker CLI at this node's engine."""
        return {"DOCKER_HOST": f"unix://{self.socket}"}


@dataclass
class Cluster:
    name: str                    # the prefix of everything it made: <name>-node-1, <name>-net ...
    network: str
    gateway: str                 # this host's address on the cluster's network
    registry: str                # where the nodes pull from: node-1:5000
    registry_port: int           # the same registry on this host's loopback (pushes)
    ports: dict[str, int]        # entry points the entry node publishes on this host's loopback
    nodes: list[Node] = field(default_factory=list)
    created: float = 0.0
    ui_password: str = ""        # HAProxy's stats page and the Locust UI (user UI_USER) unless UI_PASSWORD is set

    @property
    def manager(self) -> Node:
        return next(n for n in self.nodes if n.role == "manager")

    @property
    def entry(self) -> Node:
        """The node that runs HAProxy: the manager, whose container publishes the entry points."""
        return self.manager

    def node(self, name: str) -> Node | None:
        return next((n for n in self.nodes if n.name == name), None)

    def names(self) -> list[str]:
        return [n.name for n in self.nodes]

    def docker(self, node: Node | None, args: list[str], timeout: float = 120,
               **kw) -> subprocess.CompletedProcess:
        """`docker ARGS` against a node's engine (None: the manager's)."""
        node = node or self.manager
        return subprocess.run(["docker", *args], env={**os.environ, **node.env()}, text=True,
                              capture_output=True, timeout=timeout, **kw)

    # ------------------------------------------------------------------ the state file
    def to_json(self) -> dict:
        return {**asdict(self), "nodes": [asdict(n) for n in self.nodes]}

    @classmethod
    def from_json(cls, d: dict) -> "Cluster":
        return cls(**{**d, "nodes": [Node(**n) for n in d.get("nodes", [])]})

    def save(self, state_dir: Path) -> Path:
        path = state_file(state_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)          # it holds the UI password
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path


def state_dir_of(state_dir: Path) -> Path:
    return Path(state_dir) / "cluster"


def state_file(state_dir: Path) -> Path:
    return state_dir_of(state_dir) / STATE_FILE


def load(state_dir: Path) -> Cluster | None:
    """The cluster this configuration made, if its state file is there (whether its nodes
    still run is for the caller to ask: cluster.status)."""
    path = state_file(state_dir)
    try:
        return Cluster.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def host_pid(container: str) -> int | None:
    """A container's main process as this host sees it (the host engine's inspect)."""
    r = subprocess.run(["docker", "inspect", "--format", "{{.State.Pid}}", container], text=True,
                       capture_output=True, timeout=30)
    pid = r.stdout.strip()
    return int(pid) if r.returncode == 0 and pid.isdigit() and int(pid) > 0 else None
