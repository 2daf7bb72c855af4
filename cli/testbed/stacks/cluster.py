"""`./testbed cluster up|down|status`: a Docker Swarm of N machines on this one — Docker-in-Docker
nodes, each a container with its own engine, network namespace, cgroup namespace and CPU quota,
joined into one Swarm (the first node is the manager), an overlay network between them, and a
private registry on the manager that every node pulls the stack's images from
(docs/docker.md, "A cluster on one machine"; the same steps on real machines are there too).

    ./testbed cluster up --nodes 4 --node-cpus 1.0
    ./testbed up --swarm --spread tier-per-node       # then every verb acts on the cluster
    ./testbed cluster down                             # every node, network and volume: gone

Everything it makes is named <CLUSTER_NAME>-... (default testbed-cluster) and labelled
testbed.cluster=<CLUSTER_NAME>; `down` removes exactly what carries the label and then checks
that nothing is left. The nodes are not --privileged: every capability but CAP_SYS_RESOURCE, no
seccomp or AppArmor profile, their own cgroup namespace (docker/cluster-node/entrypoint.sh).
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from testbed import ROOT
from testbed.config import StackConfig
from testbed.stacks.dockercli import DockerError
from testbed.swarm.nodes import (ENTRY_LABEL, LABEL, LOADGEN_LABEL, REGISTRY_PORT, Cluster, Node, load, state_dir_of,
                           state_file)
from testbed.procs import free_port

DEFAULT_NAME = "testbed-cluster"
MAX_NODES = 16
ENGINE_TIMEOUT = 90          # a node's engine to answer
STACK_SERVICES = ("haproxy", "front", "clone", "axis", "gsoap", "locust-master")


class ClusterError(DockerError):
    """The cluster could not be made or removed as asked; the text names the fix."""


def name_of(cfg: StackConfig) -> str:
    return cfg.knobs.get("CLUSTER_NAME") or DEFAULT_NAME


def node_image(cfg: StackConfig) -> str:
    return f"{cfg.knobs.get('IMAGE_PREFIX') or 'soap-testbed'}/cluster-node:{cfg.knobs.get('IMAGE_TAG') or 'latest'}"


def stack_images(cfg: StackConfig) -> list[str]:
    """The images `docker stack deploy` runs (locust-worker shares locust-master's)."""
    prefix, tag = cfg.knobs.get("IMAGE_PREFIX") or "soap-testbed", cfg.knobs.get("IMAGE_TAG") or "latest"
    return [f"{prefix}/{s}:{tag}" for s in ("haproxy", "front", "clone", "axis", "gsoap", "locust")]


def _host(args: list[str], timeout: float = 120, check: bool = True, **kw) -> subprocess.CompletedProcess:
    """`docker ARGS` on this host's engine (never a node's: DOCKER_HOST is dropped)."""
    env = {k: v for k, v in os.environ.items() if k != "DOCKER_HOST"}
    r = subprocess.run(["docker", *args], cwd=ROOT, env=env, text=True, capture_output=True,
                       timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise ClusterError(f"docker {' '.join(args[:3])} ... failed (exit {r.returncode}): "
                           f"{(r.stderr or r.stdout).strip()[-600:]}")
    return r


class Progress:
    """One line per step with the seconds since `cluster up` began."""

    def __init__(self, log=print):
        self.t0, self.log = time.monotonic(), log

    def __call__(self, text: str) -> None:
        self.log(f"[{time.monotonic() - self.t0:5.0f} s] {text}")


# ---------------------------------------------------------------------------------- what it owns
def owned(name: str) -> dict[str, list[str]]:
    """Containers, networks and volumes of the host engine that carry this cluster's label."""
    out = {}
    for kind, args in (("containers", ["ps", "--all", "--format", "{{.Names}}"]),
                       ("networks", ["network", "ls", "--format", "{{.Name}}"]),
                       ("volumes", ["volume", "ls", "--format", "{{.Name}}"])):
        r = _host([*args[:-2], "--filter", f"label={LABEL}={name}", *args[-2:]], 60, check=False)
        out[kind] = sorted(r.stdout.split())
    return out


def nothing_left(owned_now: dict[str, list[str]]) -> bool:
    return not any(owned_now.values())


# ---------------------------------------------------------------------------------------- up
def up(cfg: StackConfig, count: int, node_cpus: float | None, log=print) -> Cluster:
    name = name_of(cfg)
    if not 1 <= count <= MAX_NODES:
        raise ClusterError(f"cluster up: --nodes must be 1..{MAX_NODES} (got {count})")
    cores = os.cpu_count() or 1
    if node_cpus is not None and not 0.1 <= node_cpus <= cores:
        raise ClusterError(f"cluster up: --node-cpus must be 0.1..{cores} (this host's cores), got {node_cpus:g}")
    if not shutil.which("docker"):
        raise ClusterError("docker not found: install Docker (docs/docker.md)")
    if not nothing_left(owned(name)):
        raise ClusterError(f"a cluster named {name!r} exists already (./testbed cluster status); "
                           "./testbed cluster down first, or set CLUSTER_NAME")
    say = Progress(log)
    if node_cpus and node_cpus * count > cores:
        say(f"note: {count} nodes × {node_cpus:g} CPU = {node_cpus * count:g} > this host's {cores} cores: "
            "each quota is a ceiling, not a guarantee; nodes that are busy at once share the cores")
    _images(cfg, say)
    ports = cfg.entry_ports()
    reg_port = free_port()
    made = Cluster(name=name, network=f"{name}-net", gateway="", registry=f"node-1:{REGISTRY_PORT}",
                   registry_port=reg_port, ports=ports, created=time.time(),
                   ui_password=secrets.token_urlsafe(12))
    try:
        _network(made, say)
        for i in range(1, count + 1):
            made.nodes.append(_start_node(cfg, made, i, node_cpus))
        say(f"started {count} node(s): " + ", ".join(f"{n.name} {n.ip}" for n in made.nodes)
            + (f", {node_cpus:g} CPU each" if node_cpus else ", no CPU quota"))
        made.save(cfg.state_dir)
        for n in made.nodes:
            _wait_engine(made, n)
        say("every node's engine answers")
        _swarm(made, say)
        _push(cfg, made, say)
    except BaseException:
        log("cluster up: failed; removing what was made ...")
        try:
            down(cfg, log=lambda *_: None)
        except ClusterError as e:
            log(f"testbed: {e}")
        raise
    say(f"cluster {name} up: {count} node(s), manager {made.manager.name}, registry {made.registry}")
    return made


def _images(cfg: StackConfig, say) -> None:
    """The node image (built from the base image here, once) and the stack's images (built by
    `docker compose build` when missing; the Swarm then pulls them from the registry)."""
    image = node_image(cfg)
    if _host(["image", "inspect", image], 30, check=False).returncode != 0:
        say(f"building the node image {image} (Debian's docker.io and docker-registry; once, ~1-2 min) ...")
        r = subprocess.run(["docker", "build", "-t", image, "--label", "testbed.image=cluster-node",
                            "-f", "docker/cluster-node/Dockerfile", "."], cwd=ROOT, text=True,
                           capture_output=True, timeout=1800)
        if r.returncode != 0:
            raise ClusterError(f"building {image} failed:\n{(r.stderr or r.stdout)[-1500:]}")
    missing = [i for i in stack_images(cfg) if _host(["image", "inspect", i], 30, check=False).returncode != 0]
    if missing:
        say(f"building the stack's images ({', '.join(missing)}): docker compose build, a few minutes ...")
        env = {**os.environ, "IMAGE_PREFIX": cfg.knobs.get("IMAGE_PREFIX") or "soap-testbed",
               "IMAGE_TAG": cfg.knobs.get("IMAGE_TAG") or "latest"}
        r = subprocess.run(["docker", "compose", "build"], cwd=ROOT, env=env, text=True, timeout=3600)
        if r.returncode != 0:
            raise ClusterError("docker compose build failed (its output is above)")


def _network(c: Cluster, say) -> None:
    _host(["network", "create", "--driver", "bridge", "--label", f"{LABEL}={c.name}", c.network])
    c.gateway = _host(["network", "inspect", "--format", "{{(index .IPAM.Config 0).Gateway}}",
                       c.network]).stdout.strip()
    say(f"network {c.network} (this host: {c.gateway})")


def _start_node(cfg: StackConfig, c: Cluster, i: int, cpus: float | None) -> Node:
    host_name = f"node-{i}"
    container = f"{c.name}-{host_name}"
    sockets = state_dir_of(cfg.state_dir) / host_name
    sockets.mkdir(parents=True, exist_ok=True)
    role = "manager" if i == 1 else "worker"
    _host(["volume", "create", "--label", f"{LABEL}={c.name}", container])
    args = ["run", "--detach", "--name", container, "--hostname", host_name, "--label", f"{LABEL}={c.name}",
            "--network", c.network, "--network-alias", host_name,
            # everything --privileged gives but CAP_SYS_RESOURCE (refused where the host lacks it)
            "--cap-add", "ALL", "--cap-drop", "SYS_RESOURCE",
            "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
            "--cgroupns", "private",          # the node's containers sit below its own cgroup
            "--mount", f"type=volume,src={container},dst=/var/lib/docker",
            "--tmpfs", "/run",                # the engine's pid files and sockets: gone on a restart
            "--mount", f"type=bind,src={sockets},dst=/run/testbed",
            "--env", f"NODE_ROLE={role}", "--env", f"REGISTRY={c.registry}"]
    if cpus:
        args += ["--cpus", f"{cpus:g}"]
    if role == "manager":
        # the entry points (HAProxy runs here) and the registry, on this host's loopback only
        for port in c.ports.values():
            args += ["--publish", f"{cfg.client_host}:{port}:{port}"]
        args += ["--publish", f"127.0.0.1:{c.registry_port}:{REGISTRY_PORT}"]
    _host([*args, node_image(cfg)], 120)
    ip = _host(["inspect", "--format", f'{{{{(index .NetworkSettings.Networks "{c.network}").IPAddress}}}}',
                container]).stdout.strip()
    return Node(host_name, container, role, ip, cpus, str(sockets / "docker.sock"))


def _wait_engine(c: Cluster, n: Node) -> None:
    deadline = time.monotonic() + ENGINE_TIMEOUT
    while time.monotonic() < deadline:
        if c.docker(n, ["info", "--format", "{{.ServerVersion}}"], 10).returncode == 0:
            return
        state = _host(["inspect", "--format", "{{.State.Status}}", n.container], 30, check=False).stdout.strip()
        if state != "running":
            break
        time.sleep(1)
    logs = _host(["logs", "--tail", "15", n.container], 30, check=False)
    raise ClusterError(f"the engine of {n.name} did not answer within {ENGINE_TIMEOUT} s; its log ends:\n"
                       + (logs.stdout + logs.stderr)[-1500:])


def _swarm(c: Cluster, say) -> None:
    m = c.manager
    r = c.docker(m, ["swarm", "init", "--advertise-addr", m.ip, "--listen-addr", f"{m.ip}:2377"], 60)
    if r.returncode != 0:
        raise ClusterError(f"docker swarm init on {m.name}: {r.stderr.strip()[-500:]}")
    token = c.docker(m, ["swarm", "join-token", "--quiet", "worker"], 30).stdout.strip()
    for n in c.nodes:
        if n is m:
            continue
        r = c.docker(n, ["swarm", "join", "--token", token, f"{m.ip}:2377"], 60)
        if r.returncode != 0:
            raise ClusterError(f"docker swarm join on {n.name}: {r.stderr.strip()[-500:]}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready = c.docker(m, ["node", "ls", "--format", "{{.Hostname}} {{.Status}}"], 30).stdout.split("\n")
        if sum(1 for line in ready if line.endswith(" Ready")) == len(c.nodes):
            break
        time.sleep(1)
    else:
        raise ClusterError(f"not every node is Ready in the Swarm within 60 s: {ready}")
    r = c.docker(m, ["node", "update", "--label-add", f"{ENTRY_LABEL}=true", "--label-add",
                     f"{LOADGEN_LABEL}=true", m.name], 30)
    if r.returncode != 0:
        raise ClusterError(f"docker node update {m.name}: {r.stderr.strip()[-300:]}")
    say(f"Swarm: {m.name} manager, {len(c.nodes) - 1} worker(s) joined, all Ready; "
        f"{m.name} labelled {ENTRY_LABEL} (HAProxy) and {LOADGEN_LABEL} (Locust workers)")


def _push(cfg: StackConfig, c: Cluster, say) -> None:
    """Every stack image into the manager's registry, pushed through this host's loopback
    (an engine trusts a plain-HTTP registry on 127.0.0.0/8 without being told)."""
    base = f"http://127.0.0.1:{c.registry_port}/v2/"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base, timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                raise ClusterError(f"the registry on {c.manager.name} does not answer at {base}") from None
            time.sleep(0.5)
    for image in stack_images(cfg):
        local = f"127.0.0.1:{c.registry_port}/{image}"
        t0 = time.monotonic()
        _host(["tag", image, local], 30)
        try:
            _host(["push", local], 900)
        finally:
            _host(["image", "rm", local], 60, check=False)     # the tag only; the image stays
        say(f"pushed {image} to the registry ({time.monotonic() - t0:.0f} s)")


# -------------------------------------------------------------------------------------- down
def down(cfg: StackConfig, log=print) -> dict[str, list[str]]:
    """Remove every container, network and volume of the cluster, and its state; what was
    removed. Raises ClusterError when something is left (named)."""
    name = name_of(cfg)
    found = owned(name)
    if found["containers"]:
        _host(["rm", "--force", "--volumes", *found["containers"]], 300)
    if found["networks"]:
        _host(["network", "rm", *found["networks"]], 120)
    if found["volumes"]:
        _host(["volume", "rm", "--force", *found["volumes"]], 300)
    shutil.rmtree(state_dir_of(cfg.state_dir), ignore_errors=True)
    (cfg.state_dir / "swarm-overrides.json").unlink(missing_ok=True)
    left = owned(name)
    if not nothing_left(left):
        raise ClusterError(f"cluster down: still there after removal: {json.dumps(left)}")
    log("cluster down: removed " + "; ".join(f"{len(v)} {k}" for k, v in found.items()))
    return found


# ------------------------------------------------------------------------------------ status
def status(cfg: StackConfig) -> dict:
    """The cluster's nodes as the host engine and the Swarm see them, and the tasks on each."""
    c = load(cfg.state_dir)
    name = name_of(cfg)
    out = {"name": name, "up": False, "owned": owned(name), "nodes": [], "registry": None}
    if c is None:
        return out
    out["registry"] = c.registry
    out["state_file"] = str(state_file(cfg.state_dir))
    swarm = {}
    r = c.docker(None, ["node", "ls", "--format", "{{json .}}"], 30)
    for line in r.stdout.splitlines():
        row = json.loads(line)
        swarm[row["Hostname"]] = row
    tasks: dict[str, list[str]] = {}
    r = c.docker(None, ["node", "ps", "--filter", "desired-state=running", "--format", "{{.Node}} {{.Name}}",
                        *c.names()], 60)
    for line in r.stdout.splitlines():
        node, _, task = line.partition(" ")
        tasks.setdefault(node, []).append(task)
    for n in c.nodes:
        state = _host(["inspect", "--format", "{{.State.Status}}", n.container], 30, check=False).stdout.strip()
        s = swarm.get(n.name, {})
        out["nodes"].append({"name": n.name, "container": n.container, "role": n.role, "ip": n.ip,
                             "cpus": n.cpus, "container_state": state or "gone",
                             "swarm": s.get("Status"), "availability": s.get("Availability"),
                             "tasks": sorted(set(tasks.get(n.name, [])))})
    out["up"] = any(x["container_state"] == "running" for x in out["nodes"])
    return out


def print_status(st: dict) -> int:
    if not st["nodes"]:
        left = {k: v for k, v in st["owned"].items() if v}
        print(f"cluster: none (./testbed cluster up --nodes 4)"
              + (f"; but the host engine has leftovers labelled {LABEL}={st['name']}: {left} "
                 "(./testbed cluster down removes them)" if left else ""))
        return 3
    print(f"cluster {st['name']}: {len(st['nodes'])} node(s), registry {st['registry']}; HAProxy's stats page and "
          "the Locust UI ask for UI_USER and UI_PASSWORD, or without one the password in "
          f"{st['state_file']}")
    print(f"  {'node':8s} {'role':8s} {'address':15s} {'cpus':5s} {'container':10s} {'swarm':8s} tasks")
    for n in st["nodes"]:
        print(f"  {n['name']:8s} {n['role']:8s} {n['ip']:15s} {n['cpus'] or '-'!s:5s} {n['container_state']:10s} "
              f"{n['swarm'] or '-':8s} {', '.join(n['tasks']) or '-'}")
    return 0 if st["up"] else 3


def add_arguments(s) -> None:
    s.add_argument("action", choices=("up", "down", "status"))
    s.add_argument("--nodes", type=int, default=4, metavar="N", help="up: nodes (default 4; the first is the manager)")
    s.add_argument("--node-cpus", type=float, default=None, metavar="C",
                   help="up: CPU quota of each node in cores (default: none)")
    s.add_argument("--json", action="store_true", help="status: machine-readable")


def command(args) -> int:
    """`./testbed cluster ...` with the stack's configuration (a config error: one line, exit 2)."""
    from testbed.config import ConfigError
    try:
        cfg = StackConfig.load()
    except ConfigError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
    return main(args, cfg)


def main(args, cfg: StackConfig | None = None) -> int:
    cfg = cfg or StackConfig.load()
    try:
        if args.action == "up":
            t0 = time.monotonic()
            up(cfg, args.nodes, args.node_cpus)
            print(f"cluster up: {time.monotonic() - t0:.0f} s. Next: ./testbed up --swarm --spread tier-per-node")
            return 0
        if args.action == "down":
            from testbed.stacks.swarm import SwarmStack
            stack = SwarmStack(cfg)
            if stack.running():
                print("cluster down: the Swarm stack goes with the nodes")
            down(cfg)
            return 0
        st = status(cfg)
        if args.json:
            print(json.dumps(st, indent=1))
            return 0 if st["up"] else 3
        return print_status(st)
    except (ClusterError, subprocess.TimeoutExpired) as e:
        print(f"testbed: cluster {args.action}: {e}", file=sys.stderr)
        return 1

