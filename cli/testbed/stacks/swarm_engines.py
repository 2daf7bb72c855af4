"""The node-aware half of SwarmStack (swarm.py): which engine a command goes to, the stack's
tasks and the node each runs on, the node labels of a placement, and what is measured on a
replica's own node — CPU from its cgroup (a cluster made here: below its node's cgroup, read on
this host since the nodes share its kernel), thread dumps and signals through its node's
engine, and the node's own CPU. Also the Locust workers of an experiment on the load-generator
node, and node faults (a node's container stopped, frozen, started again)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

from testbed import tiers
from testbed.cpu import cgroup
from testbed.swarm import placement
from testbed.stacks.dockercli import DockerError, extract_dump
from testbed.haproxy.config import DOCKER_TIER_PORT
from testbed.swarm.nodes import ENTRY_LABEL, LOADGEN_LABEL, host_pid
from testbed.stack import CpuTarget, StackError
from testbed.stacks.swarm_tasks import CONTAINER_FORMAT, Task, parse_container, parse_ids, parse_task, per_node, replica_row

LOADGEN_SERVICE = "loadgen"       # <stack>_loadgen: an experiment's Locust workers on the cluster
SETTLE_TIMEOUT = 300              # a tier moved by a new placement: JVMs start on their new nodes
DUMP_TIMEOUT = 20
NODE_TIMEOUT = 5                  # one node's engine to answer an inspect


def _natural(name: str):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", name)]


class SwarmNodes:
    """Mixed into SwarmStack; expects self.cluster (testbed.nodes.Cluster or None), self.name
    (the stack), self.cfg, self.log, self._local and ComposeStack's HAProxy helpers."""

    # ------------------------------------------------------------------ engines
    def _local_node(self) -> str:
        if self._local is None:
            r = subprocess.run(["docker", "info", "--format", "{{.Name}}"], text=True, capture_output=True,
                               timeout=30)
            self._local = r.stdout.strip()
        return self._local

    def _engine(self, node: str | None = None) -> dict[str, str] | None:
        """The environment of docker commands for the manager (node None) or one node; None
        where that node's engine cannot be reached from here."""
        env = dict(os.environ)
        if self.cluster:
            n = self.cluster.manager if node is None else self.cluster.node(node)
            return {**env, **n.env()} if n else None
        return env if node is None or node == self._local_node() else None

    def _docker(self, args: list[str], timeout: float = 120, check: bool = True, node: str | None = None,
                **kw) -> subprocess.CompletedProcess:
        env = self._engine(node)
        if env is None:
            raise StackError(f"the engine of node {node} cannot be reached from here")
        r = subprocess.run(["docker", *args], text=True, capture_output=True, timeout=timeout, env=env, **kw)
        if check and r.returncode != 0:
            raise DockerError(f"docker {' '.join(args[:4])} ... failed (exit {r.returncode}): "
                              f"{(r.stderr or r.stdout).strip()[-800:]}")
        return r

    def _node_names(self) -> list[str]:
        r = self._docker(["node", "ls", "--format", "{{.Hostname}}"], check=False)
        return sorted(r.stdout.split(), key=_natural)

    def _entry_label(self) -> str | None:
        """The node label that pins HAProxy: a cluster's entry node has it; on another Swarm,
        a node a person labelled testbed.entry=true (docs/docker.md)."""
        if self.cluster:
            return ENTRY_LABEL
        r = self._docker(["node", "ls", "-q", "--filter", f"node.label={ENTRY_LABEL}=true"], check=False)
        return ENTRY_LABEL if r.returncode == 0 and r.stdout.strip() else None

    # ------------------------------------------------------------------ placement
    def _resolved(self, knobs: dict[str, str]) -> dict[str, tuple[str, ...]]:
        names = self._node_names()
        entry = self.cluster.entry.name if self.cluster else None
        if entry is None and self._entry_label():
            entry = self._docker(["node", "ls", "--format", "{{.Hostname}}", "--filter",
                                  f"node.label={ENTRY_LABEL}=true"]).stdout.split()[0]
        try:
            return placement.resolve(knobs, names, entry)
        except placement.PlacementError as e:
            raise StackError(str(e)) from None

    def _label(self, resolved: dict[str, tuple[str, ...]]) -> None:
        """Set each node's testbed.<tier> labels to the placement (Swarm then moves what no
        longer fits)."""
        for node, want in placement.labels(resolved, self._node_names()).items():
            have = self._docker(["node", "inspect", "--format", "{{range $k, $v := .Spec.Labels}}{{$k}} {{end}}",
                                 node]).stdout.split()
            args = [a for lab, on in want.items() if on and lab not in have for a in ("--label-add", f"{lab}=true")]
            args += [a for lab, on in want.items() if not on and lab in have for a in ("--label-rm", lab)]
            if args:
                self._docker(["node", "update", *args, node])

    def _settle(self, tier: str, timeout: float = SETTLE_TIMEOUT) -> None:
        """Until every task of the tier runs on a node its placement allows."""
        knobs = {**self.cfg.knobs, **self.overrides()}
        allowed = set(self._resolved(knobs).get(tier, ()))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            tasks = [t for t in self._tasks() if t.service == tier]
            if tasks and all(t.state == "running" and t.node in allowed for t in tasks):
                return
            time.sleep(2)
        raise DockerError(f"{tier}'s tasks did not all run on {', '.join(sorted(allowed))} within "
                          f"{timeout:.0f} s: docker service ps {self.name}_{tier}")

    # ------------------------------------------------------------------ tasks
    def _tasks(self) -> list[Task]:
        """The stack's tasks that should be running, with their nodes (from the manager)."""
        ids = self._docker(["stack", "ps", "--quiet", "--no-trunc", "--filter", "desired-state=running",
                            self.name], check=False).stdout.split()
        if not ids:
            return []
        names = parse_ids(self._docker(["node", "ls", "--format", "{{.ID}} {{.Hostname}}"]).stdout)
        services = parse_ids(self._docker(["service", "ls", "--format", "{{.ID}} {{.Name}}"]).stdout)
        r = self._docker(["inspect", "--type", "task", *ids], check=False)
        try:
            raw = json.loads(r.stdout or "[]")
        except ValueError:
            raw = []
        return [parse_task(t, self.name, names, services) for t in raw]

    def _node_dir(self, node: str) -> Path | None:
        cache = self.__dict__.setdefault("_node_dirs", {})
        if node not in cache:
            n = self.cluster.node(node) if self.cluster else None
            pid = host_pid(n.container) if n else None
            cache[node] = cgroup.node_dir(pid) if pid else None
        return cache[node]

    def _task_containers(self, tasks: list[Task]) -> dict[str, dict]:
        """container id -> its node's inspect, with "cgroup" (its CPU accounting file on this
        host) and "host_pid", for the tasks whose node's engine can be reached."""
        by_node: dict[str, list[str]] = {}
        for t in tasks:
            if t.container_id and self._engine(t.node) is not None:
                by_node.setdefault(t.node, []).append(t.container_id)
        out = {}
        for node, ids in by_node.items():
            try:          # a frozen node (fault pause) does not answer: its tasks count as not inspected
                r = self._docker(["inspect", "--type", "container", "--format", CONTAINER_FORMAT, *ids],
                                 NODE_TIMEOUT, node=node, check=False)
            except subprocess.TimeoutExpired:
                continue
            for line in r.stdout.splitlines():
                if not line.strip():
                    continue
                c = parse_container(line)
                if self.cluster:
                    d = self._node_dir(node)
                    c["cgroup"] = cgroup.nested_cpu_file(d, c["id"]) if d else None
                    c["host_pid"] = _first_pid(c["cgroup"])
                else:
                    c["cgroup"] = cgroup.cpu_file(c["pid"]) if c["pid"] else None
                    c["host_pid"] = c["pid"] or None
                out[c["id"]] = c
        return out

    def _running_inspected(self, services: tuple[str, ...] | None = None) -> list[dict]:
        """ComposeStack's shape (describe() reads it) for the tasks inspected on their nodes."""
        tasks = [t for t in self._tasks() if services is None or t.service in services]
        info = self._task_containers(tasks)
        return [{"name": info[t.container_id]["name"], "id": t.container_id,
                 "pid": info[t.container_id]["host_pid"] or 0, "service": t.service, "number": t.slot,
                 "cpus": info[t.container_id]["cpus"], "image": info[t.container_id]["image"],
                 "ips": {t.address} if t.address else set(), "node": t.node}
                for t in tasks if t.container_id in info and info[t.container_id]["state"] == "running"]

    def status(self) -> dict:
        tasks = self._tasks()
        info = self._task_containers(tasks)
        try:
            servers = self.haproxy_servers()
        except OSError:
            servers = []
        hp = [t for t in tasks if t.service == "haproxy"]
        up = any(t.state == "running" for t in hp)
        replicas = []
        for t in sorted((t for t in tasks if t.service in tiers.TIERS), key=lambda t: (t.service, t.slot)):
            slot = next((s for s in servers if s["pxname"] == t.service and t.address
                         and s.get("addr", "").rpartition(":")[0] == t.address), {})
            c = info.get(t.container_id)
            replicas.append(replica_row(t, c, slot, DOCKER_TIER_PORT, c["host_pid"] if c else None))
        elsewhere: dict[str, int] = {}
        for r in replicas:
            if r["container"] is None and r["alive"]:
                elsewhere[r["tier"]] = elsewhere.get(r["tier"], 0) + 1
        hp_c = info.get(hp[0].container_id) if hp else None
        return {"mode": self.mode, "up": up, "state_dir": str(self.cfg.state_dir),
                "entry_points": self.entry_points() if up else {},
                "haproxy": {"alive": up, "pid": hp_c["host_pid"] if hp_c else None, "node": hp[0].node or None}
                           if hp else None,
                "locust": [{"name": f"{t.service}.{t.slot}", "pid": (info.get(t.container_id) or {}).get("host_pid"),
                            "alive": t.state == "running", "node": t.node or None}
                           for t in tasks if t.service in ("locust-master", "locust-worker", LOADGEN_SERVICE)],
                "replicas": replicas, "elsewhere": elsewhere, "nodes": per_node(replicas)}

    # ------------------------------------------------------------------ measurement
    def cpu_targets(self) -> list[CpuTarget]:
        tasks = self._tasks()
        info = self._task_containers(tasks)
        out = []
        for t in tasks:
            c = info.get(t.container_id)
            if not c or c["state"] != "running" or not (c["cgroup"] or c["host_pid"]):
                continue
            tier, replica = t.service, str(t.slot)
            if t.service == "locust-master":
                tier, replica = "loadgen", "ui-master"
            elif t.service == "locust-worker":
                tier, replica = "loadgen", f"ui-worker-{t.slot}"
            elif t.service == LOADGEN_SERVICE:
                tier, replica = "loadgen", f"remote-{t.slot}"
            out.append(CpuTarget(tier, replica, c["host_pid"] or 0, tree=True, cgroup=c["cgroup"]))
        for n in (self.cluster.nodes if self.cluster else []):
            d = self._node_dir(n.name)
            f = (d / "cpuacct.usage") if d and (d / "cpuacct.usage").exists() else (d / "cpu.stat") if d else None
            if f and f.exists():
                out.append(CpuTarget("node", n.name, _first_pid(str(f)) or 0, cgroup=str(f)))
        return out

    def signal(self, replica: dict, sig: int) -> None:
        """Through the engine of the replica's node (`docker kill --signal`)."""
        if not replica.get("container"):
            raise StackError(f"{replica['tier']}-{replica['replica']} runs on {replica.get('node')}, whose engine "
                             "cannot be reached from here")
        r = self._docker(["kill", "--signal", str(int(sig)), replica["container"]], 30, check=False,
                         node=replica.get("node"))
        if r.returncode != 0:
            raise StackError(f"docker kill --signal {int(sig)} {replica['container']} on {replica.get('node')}: "
                             f"{r.stderr.strip()[:200]}")

    def thread_dump(self, replica: dict) -> str:
        """SIGQUIT through the replica's node's engine, the dump read back from its log there."""
        node, name = replica.get("node"), replica.get("container")
        if not name:
            raise StackError(f"{replica['tier']}-{replica['replica']}: its node's engine cannot be reached")
        since = time.time() - 1
        self.signal(replica, 3)
        deadline = time.monotonic() + DUMP_TIMEOUT
        while time.monotonic() < deadline:
            time.sleep(0.5)
            logs = self._docker(["logs", "--since", f"{since:.3f}", name], 30, check=False, node=node)
            dump = extract_dump(logs.stdout + logs.stderr)
            if dump:
                return dump
        raise StackError(f"no thread dump in {name}'s log on {node} within {DUMP_TIMEOUT} s of SIGQUIT")

    # ------------------------------------------------------------------ load from the cluster
    def remote_workers(self, count: int) -> tuple[str, int] | None:
        """Start `count` Locust workers as the service <stack>_loadgen on the node labelled
        testbed.loadgen (a cluster made here), connecting to a master on this host's address on
        the cluster's network; (that address, the port) for the master. None: no such node."""
        if not self.cluster or count < 1:
            return None
        from testbed.procs import free_port
        port = free_port(self.cluster.gateway)
        image = (f"{self.cluster.registry}/{self.cfg.knobs.get('IMAGE_PREFIX') or 'soap-testbed'}/locust:"
                 f"{self.cfg.knobs.get('IMAGE_TAG') or 'latest'}")
        self.stop_remote_workers()
        self._docker(["service", "create", "--detach", "--name", f"{self.name}_{LOADGEN_SERVICE}",
                      "--label", f"com.docker.stack.namespace={self.name}",
                      "--container-label", f"com.docker.stack.namespace={self.name}",
                      "--replicas", str(count), "--network", "host",
                      "--constraint", f"node.labels.{LOADGEN_LABEL} == true",
                      # a worker quits when its run's master does; Swarm starts it again for the next run
                      "--restart-condition", "any", "--restart-delay", "1s",
                      image, "--worker", "--master-host", self.cluster.gateway, "--master-port", str(port)], 120)
        return self.cluster.gateway, port

    def stop_remote_workers(self) -> None:
        if self.cluster:
            self._docker(["service", "rm", f"{self.name}_{LOADGEN_SERVICE}"], 60, check=False)

    # ------------------------------------------------------------------ node faults
    def node_replicas(self, node: str) -> list[dict]:
        return [r for r in self.status()["replicas"] if r.get("node") == node]

    def node_action(self, node: str, action: str) -> None:
        """kill: the node's container gets SIGKILL (a machine that loses power); pause: frozen
        (cgroup freezer: a machine that hangs); resume / start: back."""
        if not self.cluster or not self.cluster.node(node):
            raise StackError(f"node faults need a cluster made by ./testbed cluster up (node {node!r} is not one "
                             f"of its nodes: {', '.join(self.cluster.names()) if self.cluster else 'no cluster'})")
        container = self.cluster.node(node).container
        argv = {"kill": ["kill", container], "pause": ["pause", container], "resume": ["unpause", container],
                "start": ["start", container]}[action]
        env = {k: v for k, v in os.environ.items() if k != "DOCKER_HOST"}       # the host's engine
        r = subprocess.run(["docker", *argv], text=True, capture_output=True, timeout=120, env=env)
        if r.returncode != 0:
            raise StackError(f"docker {' '.join(argv)}: {r.stderr.strip()[:300]}")
        if action == "start":
            self.__dict__.pop("_node_dirs", None)


def _first_pid(cpu_file: str | None) -> int | None:
    """A process of the cgroup whose CPU file this is, as this host numbers it."""
    if not cpu_file:
        return None
    try:
        first = (Path(cpu_file).parent / "cgroup.procs").read_text().split()
    except OSError:
        return None
    return int(first[0]) if first else None
