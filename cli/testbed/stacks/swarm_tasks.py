"""A Swarm stack's tasks and where they run, as the manager tells it (`docker stack ps`,
`docker inspect` of the tasks, `docker node ls`), and each task's container as its own node's
engine tells it. SwarmStack (swarm.py) builds its status rows, CPU targets, thread dumps and
faults on these; the parsing is kept apart so it can be checked without a Swarm."""
from __future__ import annotations

import json
from dataclasses import dataclass

from testbed.stacks.dockercli import healthy


@dataclass(frozen=True)
class Task:
    id: str
    service: str            # without the stack prefix: clone, haproxy, ...
    slot: int               # the replica number (tasks of a replicated service)
    node_id: str
    node: str               # the node's hostname ("" when the manager does not know it)
    state: str              # running, starting, preparing, shutdown, failed ...
    container_id: str       # "" before the node started it
    address: str | None     # on the stack's network (what HAProxy resolves), without /prefix
    error: str = ""


def parse_task(raw: dict, stack: str, nodes: dict[str, str], services: dict[str, str]) -> Task:
    """One `docker inspect --type task` object. nodes: node id -> hostname; services: service
    id (or its 12-character short form, as `docker service ls` gives it) -> name: an engine's task
    object names its service by id only."""
    sid = raw.get("ServiceID", "")
    service_name = services.get(sid) or next((n for k, n in services.items() if k and sid.startswith(k)), "")
    status = raw.get("Status") or {}
    address = None
    for att in raw.get("NetworksAttachments") or []:
        net = (att.get("Network") or {}).get("Spec", {}).get("Name", "")
        if net == f"{stack}_default" and att.get("Addresses"):
            address = att["Addresses"][0].split("/")[0]
    node_id = raw.get("NodeID", "")
    return Task(id=raw.get("ID", ""), service=service_name.removeprefix(stack + "_"),
                slot=int(raw.get("Slot") or 0), node_id=node_id, node=nodes.get(node_id, ""),
                state=status.get("State", ""),
                container_id=(status.get("ContainerStatus") or {}).get("ContainerID", ""),
                address=address, error=status.get("Err", ""))


def parse_ids(lines: str) -> dict[str, str]:
    """`docker node ls --format '{{.ID}} {{.Hostname}}'` (or `service ls` with {{.Name}})
    -> id -> name."""
    out = {}
    for line in lines.splitlines():
        nid, _, host = line.strip().partition(" ")
        if nid and host:
            out[nid] = host.strip()
    return out


# the state as JSON: an engine leaves .State.Health out of a container without a health check,
# and a template naming it fails on such a container
CONTAINER_FORMAT = "{{.Id}}|{{.Name}}|{{.HostConfig.NanoCpus}}|{{.Image}}|{{json .State}}"


def parse_container(line: str) -> dict:
    """One line of `docker inspect --format CONTAINER_FORMAT` on a node's engine."""
    cid, name, nano, image, state = line.split("|", 4)
    st = json.loads(state)
    return {"id": cid, "name": name.lstrip("/"), "state": st.get("Status", ""),
            "health": (st.get("Health") or {}).get("Status", ""),
            "cpus": int(nano) / 1e9 if nano.isdigit() and int(nano) else None, "image": image,
            "pid": int(st.get("Pid") or 0)}


def replica_row(task: Task, container: dict | None, server: dict, tier_port: int,
                host_pid: int | None) -> dict:
    """A status() replica row (stack.REPLICA_KEYS) of one task. container: its node's inspect
    (None: the node cannot be asked from here); server: HAProxy's stats row of its address."""
    running = task.state == "running" and (container is None or container["state"] == "running")
    return {"tier": task.service, "replica": task.slot, "alive": running,
            "healthy": healthy(container["health"], server.get("status", "")) if container else
                       server.get("status") == "UP",
            "haproxy": server.get("status", "-"), "server": server.get("svname"),
            "sessions": int(server.get("scur") or 0),
            "url": f"http://{task.address}:{tier_port}" if task.address else None,
            "pid": host_pid, "port": tier_port, "container": container["name"] if container else None,
            "address": task.address, "log": None, "cpu_quota": container["cpus"] if container else None,
            "node": task.node or None}


def per_node(rows: list[dict]) -> dict[str, list[str]]:
    """node -> the replicas (tier-replica) on it, from status rows."""
    out: dict[str, list[str]] = {}
    for r in rows:
        if r.get("node"):
            out.setdefault(r["node"], []).append(f"{r['tier']}-{r['replica']}")
    return out
