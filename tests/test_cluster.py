"""A multi-node Swarm (cli/testbed/stacks/cluster.py, placement.py, swarm.py, swarmtasks.py): the parts
that need no cluster — placement as an experiment key and a CLI flag, the node field of status
rows, the cgroup files of a node's containers, node fault targets, and what `cluster down`
removes. The live check is tests/docker/check_cluster.py (CI)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from testbed.cpu import cgroup
from testbed.stacks import cluster
from testbed.faults import spec as faults
from testbed.swarm import placement
from testbed import stack
from testbed.stacks import swarm_tasks as swarmtasks
from testbed.config import StackConfig
from testbed.swarm.nodes import Cluster, Node
from testbed.experiment import definition
from testbed.experiment.plan import DefinitionError
from testbed.stacks.swarm import SwarmStack

DATA = Path(__file__).parent / "docker" / "data"
NODES = ["node-1", "node-2", "node-3", "node-4"]


# ------------------------------------------------------------------------------- placement
def test_spread_tier_per_node_puts_front_clone_and_axis_on_three_nodes_off_the_entry_node():
    four = placement.spread_tiers("tier-per-node", NODES, "node-1")
    assert four == {"front": ("node-2",), "clone": ("node-3",), "axis": ("node-4",), "gsoap": ("node-4",)}
    five = placement.spread_tiers("tier-per-node", [*NODES, "node-5"], "node-1")
    assert five["gsoap"] == ("node-5",) and len({five[t] for t in ("front", "clone", "axis", "gsoap")}) == 4
    three = placement.spread_tiers("tier-per-node", NODES[:3], "node-1")   # the entry node takes the front
    assert three == {"front": ("node-1",), "clone": ("node-2",), "axis": ("node-3",), "gsoap": ("node-3",)}
    with pytest.raises(placement.PlacementError, match="at least 3 nodes.*cluster up --nodes 4"):
        placement.spread_tiers("tier-per-node", NODES[:2], "node-1")


def test_placement_resolves_over_a_spread_and_names_unknown_nodes():
    knobs = placement.to_knobs({"clone": ("node-3", "node-4")}, "tier-per-node")
    r = placement.resolve(knobs, NODES, "node-1")
    assert r["clone"] == ("node-3", "node-4") and r["front"] == ("node-2",)
    assert placement.resolve(placement.to_knobs({}, None), NODES, "node-1")["front"] == tuple(NODES)
    with pytest.raises(placement.PlacementError, match="node-9.*nodes: node-1, node-2"):
        placement.resolve(placement.to_knobs({"front": ("node-9",)}, None), NODES, "node-1")


def test_labels_add_a_tier_where_it_may_run_and_remove_it_elsewhere():
    lab = placement.labels({"front": ("node-2",), "clone": ("node-3", "node-4"), "axis": tuple(NODES),
                            "gsoap": ("node-4",)}, NODES)
    assert lab["node-2"] == {"testbed.front": True, "testbed.clone": False, "testbed.axis": True,
                             "testbed.gsoap": False}
    assert [n for n in NODES if lab[n]["testbed.clone"]] == ["node-3", "node-4"]


def test_the_placement_stack_file_constrains_every_tier_and_pins_haproxy_to_the_entry_node():
    doc = yaml.safe_load(placement.override("testbed.entry", version_key=True))
    assert doc["version"] == "3.9"
    for t in placement.TIERS:
        assert doc["services"][t]["deploy"]["placement"]["constraints"] == [f"node.labels.testbed.{t} == true"]
    assert doc["services"]["haproxy"]["deploy"]["placement"]["constraints"] == ["node.labels.testbed.entry == true"]
    assert "haproxy" not in yaml.safe_load(placement.override(None))["services"]


def test_the_cli_placement_flag_reads_lists_and_refuses_what_is_not_a_placement():
    assert placement.parse_spec("front=node-2,clone=node-3+node-4") == {
        "front": ("node-2",), "clone": ("node-3", "node-4")}
    for bad, why in (("front", "expected TIER=NODE"), ("db=node-2", "unknown tier"), ("front=", "node name")):
        with pytest.raises(placement.PlacementError, match=why):
            placement.parse_spec(bad)


HEAD = """
    name = "placed"
    kind = "clones"
    [load]
    users = [1]
    """


def _experiment(tmp_path, body: str):
    path = tmp_path / "e.toml"
    path.write_text(textwrap.dedent(HEAD) + textwrap.dedent(body))
    return definition.load(str(path))


def test_placement_and_spread_are_experiment_keys_carried_as_knobs(tmp_path):
    exp = _experiment(tmp_path, """
        [defaults]
        placement = { front = "node-2" }
        [[runs]]
        id = "a"
        spread = "tier-per-node"
        placement = { clone = ["node-3", "node-4"] }
        [[runs]]
        id = "b"
        """)
    a, b = (r.stack_knobs() for r in exp.runs)
    assert (a["PLACE_FRONT"], a["PLACE_CLONE"], a["PLACE_AXIS"], a["SPREAD"]) == ("node-2", "node-3 node-4", "",
                                                                                 "tier-per-node")
    assert (b["PLACE_FRONT"], b["PLACE_CLONE"], b["SPREAD"]) == ("node-2", "", "")
    assert placement.from_knobs(a) == ({"front": ("node-2",), "clone": ("node-3", "node-4")}, "tier-per-node")


def test_a_run_without_placement_in_a_placed_file_is_told_to_run_anywhere(tmp_path):
    exp = _experiment(tmp_path, """
        [[runs]]
        id = "a"
        spread = "tier-per-node"
        [[runs]]
        id = "b"
        """)
    assert exp.runs[1].stack_knobs()["SPREAD"] == "" and exp.runs[1].stack_knobs()["PLACE_CLONE"] == ""


@pytest.mark.parametrize("bad, why", [
    ('placement = { db = "node-2" }', "placement.db: unknown tier"),
    ('placement = { front = 3 }', "placement.front must be a node name"),
    ('spread = "round-robin"', "spread must be one of tier-per-node"),
    ('knobs = { PLACE_FRONT = "node-2" }', "knobs.PLACE_FRONT: set it with placement or spread"),
])
def test_a_bad_placement_in_an_experiment_is_an_error_naming_the_key(tmp_path, bad, why):
    with pytest.raises(DefinitionError, match=why):
        _experiment(tmp_path, f"""
            [[runs]]
            id = "a"
            {bad}
            """)


# ----------------------------------------------------------------------------- node faults
def test_a_node_is_a_fault_target_for_kill_and_pause_but_not_slow():
    f = faults.parse("kill", "node-3", duration=30)
    assert (f.tier, f.node, f.target, f.duration) == ("node", "node-3", "node-3", 30)
    assert faults.parse("pause", "node:worker-a").node == "worker-a"
    assert faults.parse("pause", "node-2").duration == 10.0
    with pytest.raises(faults.FaultError, match="slow one of its replicas"):
        faults.parse("slow", "node-3")
    assert faults.from_table({"action": "kill", "target": "node-4", "at": 5}, "x").node == "node-4"


def test_node_faults_are_refused_on_a_stack_without_nodes(tmp_path):
    from testbed.stacks.compose import ComposeStack
    cfg = StackConfig.load()
    cfg.state_dir = tmp_path
    with pytest.raises(stack.StackError, match="cluster made by ./testbed cluster up"):
        ComposeStack(cfg).node_action("node-3", "kill")


# ------------------------------------------------------------------------------ tasks, status
def test_a_task_says_its_node_its_container_and_its_address_on_the_stack_network():
    raw = json.loads((DATA / "swarm-task.json").read_text())
    t = swarmtasks.parse_task(raw, "testbed", {raw["NodeID"]: "node-3"}, {raw["ServiceID"][:12]: "testbed_clone"})
    assert (t.service, t.slot, t.node, t.state) == ("clone", 1, "node-3", "running")
    assert t.container_id == raw["Status"]["ContainerStatus"]["ContainerID"]
    assert t.address == "10.0.1.3"
    assert swarmtasks.parse_ids("xa8j node-2\nq7b node-3\n") == {"xa8j": "node-2", "q7b": "node-3"}


def _cluster(tmp_path) -> Cluster:
    nodes = [Node(f"node-{i}", f"tc-node-{i}", "manager" if i == 1 else "worker", f"172.30.0.{i + 1}", 1.0,
                  str(tmp_path / f"node-{i}.sock")) for i in (1, 2, 3)]
    return Cluster("tc", "tc-net", "172.30.0.1", "node-1:5000", 45000,
                   StackConfig.load().entry_ports(), nodes)


def test_swarm_status_rows_have_the_common_shape_with_the_node_of_each_replica(tmp_path, monkeypatch):
    cfg = StackConfig.load()
    cfg.state_dir = tmp_path
    _cluster(tmp_path).save(tmp_path)
    s = SwarmStack(cfg)
    assert s.cluster is not None and s.cluster.manager.name == "node-1"
    tasks = [swarmtasks.Task("t1", "haproxy", 1, "n1", "node-1", "running", "c1", "10.0.1.2"),
             swarmtasks.Task("t2", "clone", 1, "n3", "node-3", "running", "c3", "10.0.1.5"),
             swarmtasks.Task("t3", "front", 1, "n2", "node-2", "running", "", "10.0.1.4")]
    monkeypatch.setattr(s, "_tasks", lambda: tasks)
    monkeypatch.setattr(s, "_task_containers", lambda ts: {
        "c3": {"id": "c3", "name": "testbed_clone.1.x", "state": "running", "health": "healthy", "cpus": None,
               "image": "i", "pid": 7, "cgroup": None, "host_pid": 4242},
        "c1": {"id": "c1", "name": "testbed_haproxy.1.y", "state": "running", "health": "healthy", "cpus": None,
               "image": "i", "pid": 1, "cgroup": None, "host_pid": 4000}})
    monkeypatch.setattr(s, "haproxy_servers", lambda timeout=3.0: [
        {"pxname": "clone", "svname": "clone1", "addr": "10.0.1.5:8080", "status": "UP", "scur": "2"},
        {"pxname": "front", "svname": "front1", "addr": "10.0.1.4:8080", "status": "UP", "scur": "0"}])
    st = s.status()
    assert [tuple(r) for r in st["replicas"]] == [stack.REPLICA_KEYS] * 2
    clone, front = st["replicas"]
    assert (clone["tier"], clone["node"], clone["pid"], clone["haproxy"], clone["healthy"]) == \
        ("clone", "node-3", 4242, "UP", True)
    # a task not started yet has no container to inspect: HAProxy's view says whether it serves
    assert (front["node"], front["container"], front["healthy"]) == ("node-2", None, True)
    assert st["nodes"] == {"node-2": ["front-1"], "node-3": ["clone-1"]}
    assert st["haproxy"]["node"] == "node-1"


# ----------------------------------------------------------------------------- cgroup files
def _tree(root: Path, rel: str, files: dict[str, str]) -> Path:
    d = root / rel
    d.mkdir(parents=True, exist_ok=True)
    for k, v in files.items():
        (d / k).write_text(v)
    return d


def test_a_node_containers_cgroup_is_found_below_the_nodes_own_on_cgroup_v1(tmp_path):
    sys_root, proc = tmp_path / "sys", tmp_path / "proc"
    _tree(proc, "77", {"cgroup": "2:cpuacct:/docker/NODE\n1:cpu:/docker/NODE\n0::/docker/NODE\n"})
    node = _tree(sys_root, "cpuacct/docker/NODE", {"cpuacct.usage": "5", "cgroup.procs": "77\n"})
    inner = _tree(sys_root, "cpuacct/docker/NODE/docker/abc123", {"cpuacct.usage": "9", "cgroup.procs": "91\n"})
    assert cgroup.node_dir(77, proc, sys_root) == node
    assert cgroup.nested_cpu_file(node, "abc123") == str(inner / "cpuacct.usage")
    assert cgroup.nested_cpu_file(node, "nope") is None


def test_on_cgroup_v2_the_node_is_the_parent_of_its_init_leaf_and_systemd_scopes_are_found(tmp_path):
    sys_root, proc = tmp_path / "sys", tmp_path / "proc"
    _tree(proc, "77", {"cgroup": "0::/system.slice/docker-NODE.scope/init\n"})
    node = _tree(sys_root, "system.slice/docker-NODE.scope", {"cpu.stat": "usage_usec 5\n"})
    _tree(sys_root, "system.slice/docker-NODE.scope/init", {"cpu.stat": "usage_usec 1\n"})
    inner = _tree(sys_root, "system.slice/docker-NODE.scope/system.slice/docker-abc.scope",
                  {"cpu.stat": "usage_usec 3\n"})
    assert cgroup.node_dir(77, proc, sys_root) == node
    assert cgroup.nested_cpu_file(node, "abc") == str(inner / "cpu.stat")


# --------------------------------------------------------------------------- cluster down
class FakeHost:
    """The host engine as `docker` answers the cluster module: what carries the label."""

    def __init__(self, left: dict[str, list[str]]):
        self.have = {k: list(v) for k, v in left.items()}
        self.calls: list[list[str]] = []
        self.stubborn: set[str] = set()

    def __call__(self, args, timeout=120, check=True, **kw):
        import subprocess
        self.calls.append(args)
        out = ""
        kind = {"ps": "containers", "network": "networks", "volume": "volumes"}.get(args[0])
        if "--format" in args and kind:
            out = "\n".join(self.have[kind])
        elif args[:1] == ["rm"] or args[:2] in (["network", "rm"], ["volume", "rm"]):
            kind = "containers" if args[0] == "rm" else args[0] + "s"
            self.have[kind] = [x for x in self.have[kind] if x not in args or x in self.stubborn]
        return subprocess.CompletedProcess(args, 0, out, "")


def test_cluster_down_removes_every_labelled_container_network_and_volume_and_its_state(tmp_path, monkeypatch):
    cfg = StackConfig.load()
    cfg.state_dir = tmp_path
    _cluster(tmp_path).save(tmp_path)
    (tmp_path / "swarm-overrides.json").write_text("{}")
    host = FakeHost({"containers": ["testbed-cluster-node-1", "testbed-cluster-node-2"],
                     "networks": ["testbed-cluster-net"],
                     "volumes": ["testbed-cluster-node-1", "testbed-cluster-node-2"]})
    monkeypatch.setattr(cluster, "_host", host)
    removed = cluster.down(cfg, log=lambda *_: None)
    assert removed == {"containers": ["testbed-cluster-node-1", "testbed-cluster-node-2"],
                       "networks": ["testbed-cluster-net"],
                       "volumes": ["testbed-cluster-node-1", "testbed-cluster-node-2"]}
    assert cluster.nothing_left(cluster.owned("testbed-cluster"))
    assert not (tmp_path / "cluster").exists() and not (tmp_path / "swarm-overrides.json").exists()
    # every listing asked for the cluster's label only: nothing of anyone else is touched
    listings = [c for c in host.calls if "--format" in c]
    assert listings and all("label=testbed.cluster=testbed-cluster" in c for c in listings)


def test_cluster_down_says_what_is_left_when_something_stays(tmp_path, monkeypatch):
    cfg = StackConfig.load()
    cfg.state_dir = tmp_path
    host = FakeHost({"containers": [], "networks": ["testbed-cluster-net"], "volumes": []})
    host.stubborn = {"testbed-cluster-net"}
    monkeypatch.setattr(cluster, "_host", host)
    with pytest.raises(cluster.ClusterError, match="still there after removal.*testbed-cluster-net"):
        cluster.down(cfg, log=lambda *_: None)


def test_cluster_up_refuses_a_second_cluster_of_the_same_name_and_bad_sizes(tmp_path, monkeypatch):
    cfg = StackConfig.load()
    cfg.state_dir = tmp_path
    monkeypatch.setattr(cluster, "_host", FakeHost({"containers": ["testbed-cluster-node-1"], "networks": [],
                                                   "volumes": []}))
    with pytest.raises(cluster.ClusterError, match="exists already.*cluster down first"):
        cluster.up(cfg, 3, None)
    with pytest.raises(cluster.ClusterError, match="--nodes must be 1..16"):
        cluster.up(cfg, 0, None)
    with pytest.raises(cluster.ClusterError, match="--node-cpus must be"):
        cluster.up(cfg, 3, 0.01)


def test_the_swarm_stacks_name_comes_from_the_environment_as_documented(monkeypatch):
    # SWARM_STACK is not in .env: the environment alone must name the stack that status,
    # bench and the runner attach to (before, the default "testbed" won whatever was set)
    monkeypatch.setenv("SWARM_STACK", "mine")
    assert SwarmStack(StackConfig.load()).name == "mine"
    monkeypatch.delenv("SWARM_STACK")
    assert SwarmStack(StackConfig.load()).name == "testbed"


# ------------------------------------------------------------------ up returns once it serves
def _seg5_server(fail_first: int):
    """A loopback HTTP server in the front's place: /seg/5 answers the front's 502 page (the
    clone's unknown-host reason) for its first fail_first requests per backend, then 200."""
    from urllib.parse import parse_qs, urlparse
    from standin import serve
    seen: dict[str, int] = {}

    def seg5(method, path):
        backend = parse_qs(urlparse(path).query).get("backend", ["?"])[0]
        seen[backend] = seen.get(backend, 0) + 1
        ok = seen[backend] > fail_first
        body = (b"segments: 1,2,3,4,5\nsoap-result: ok=true" if ok else
                b"<pre>\nerror: 502\nfailing-tier: soap-service\nreason: the client tier answered HTTP 502 "
                b"to GET /invoke: unknown host: UnknownHostException: haproxy</pre>")
        return (200 if ok else 502), body

    server = serve(seg5)
    return server, seen


def test_swarm_up_waits_until_seg5_answers_through_haproxy_for_each_backend():
    from testbed.stacks.swarm import wait_served
    server, seen = _seg5_server(fail_first=2)
    lines: list[str] = []
    try:
        took = wait_served(server.server_address[1], ["axis", "gsoap"], timeout=30, log=lines.append)
    finally:
        server.shutdown()
    assert seen == {"axis": 3, "gsoap": 3}       # each backend: 502, 502, then 200
    assert took >= 1.0 and lines and "axis, gsoap" in lines[0]


def test_swarm_up_names_the_reason_when_seg5_never_answers():
    from testbed.stacks.swarm import wait_served
    server, seen = _seg5_server(fail_first=10**6)
    try:
        with pytest.raises(stack.StackError) as e:
            wait_served(server.server_address[1], ["axis"], timeout=1.5, log=lambda _: None)
    finally:
        server.shutdown()
    assert "HTTP 502" in str(e.value) and "UnknownHostException: haproxy" in str(e.value)
    assert seen["axis"] >= 3
