"""One Stack interface, two implementations (cli/testbed/stack.py): the parts that need no
running stack and no Docker engine. The live checks: tests/experiments (local) and
tests/docker/check_stack.py (containers, CI)."""
from __future__ import annotations

import json
import os

import pytest

from testbed.cpu import cgroup
from testbed.stacks import compose as docker
from testbed.stacks import dockercli
from testbed.stacks import local
from testbed import stack
from testbed.stacks import factory as stacks
from testbed.config import StackConfig
from testbed.run import reconfigure


def _cfg(tmp_path) -> StackConfig:
    cfg = StackConfig.load()
    cfg.state_dir = tmp_path / "state"
    return cfg


def test_both_implementations_implement_the_whole_interface(tmp_path):
    for cls in (local.LocalStack, docker.ComposeStack):
        s = cls(_cfg(tmp_path))             # an abstract method left out would raise here
        assert isinstance(s, stack.Stack) and s.mode in stack.MODES


def test_open_stack_refuses_a_second_stack_in_the_other_mode(tmp_path, monkeypatch):
    running = docker.ComposeStack(_cfg(tmp_path))
    monkeypatch.setattr(stacks, "detect", lambda cfg=None: running)
    assert stacks.open_stack(_cfg(tmp_path)) is running
    assert stacks.open_stack(_cfg(tmp_path), docker=True) is running
    with pytest.raises(stack.StackError, match="a docker stack is running.*./testbed down first"):
        stacks.open_stack(_cfg(tmp_path), docker=False)


def test_open_stack_without_a_running_stack_gives_the_mode_asked_for(tmp_path, monkeypatch):
    monkeypatch.setattr(stacks, "detect", lambda cfg=None: None)
    assert stacks.open_stack(_cfg(tmp_path)).mode == "local"
    assert stacks.open_stack(_cfg(tmp_path), docker=True).mode == "docker"


def _compose_fakes(monkeypatch, s: docker.ComposeStack):
    rows = [{"Service": "haproxy", "Name": "testbed-haproxy-1", "State": "running", "Health": "healthy"},
            {"Service": "clone", "Name": "testbed-clone-1", "State": "running", "Health": "healthy"},
            {"Service": "clone", "Name": "testbed-clone-2", "State": "exited", "Health": ""}]
    info = {"testbed-haproxy-1": ("haproxy", 1, "172.18.0.2", 4000),
            "testbed-clone-1": ("clone", 1, "172.18.0.5", 4100)}
    monkeypatch.setattr(docker, "containers", lambda env=None: rows)
    monkeypatch.setattr(docker, "inspect", lambda names: [
        {"name": n, "id": "x", "pid": info[n][3], "service": info[n][0], "number": info[n][1],
         "cpus": 0.5 if info[n][0] == "clone" else None, "image": "sha256:1", "ips": {info[n][2]}}
        for n in names])
    monkeypatch.setattr(s, "haproxy_servers", lambda timeout=3.0: [
        {"pxname": "clone", "svname": "clone1", "addr": "172.18.0.5:8080", "status": "UP", "scur": "3"},
        {"pxname": "clone", "svname": "clone2", "addr": "", "status": "MAINT (resolution)", "scur": "0"}])


def test_compose_status_has_the_same_shape_as_local_status(tmp_path, monkeypatch):
    s = docker.ComposeStack(_cfg(tmp_path))
    _compose_fakes(monkeypatch, s)
    st = s.status()
    assert st["mode"] == "docker" and st["up"] is True
    assert [tuple(r) for r in st["replicas"]] == [stack.REPLICA_KEYS] * 2
    one, two = st["replicas"]
    assert (one["tier"], one["replica"], one["haproxy"], one["sessions"], one["url"], one["pid"]) == \
        ("clone", 1, "UP", 3, "http://172.18.0.5:8080", 4100)
    assert (two["alive"], two["haproxy"], two["url"]) == (False, "-", None)
    # the local stack, with one (dead) replica in its state file
    ls = local.LocalStack(_cfg(tmp_path))
    ls.dir.mkdir(parents=True)
    proc = {"name": "clone-1", "pid": 2 ** 22 + 7, "start_ticks": 1, "port": 19401, "log": "x", "argv": []}
    ls.state_file.write_text(json.dumps({"haproxy": None, "replicas": {"clone": [
        {"index": 1, "port": 19401, "proc": proc}]}}))
    lst = ls.status()
    assert set(lst) == set(st) and lst["mode"] == "local"
    assert [tuple(r) for r in lst["replicas"]] == [stack.REPLICA_KEYS]


def test_compose_current_counts_running_replicas_and_keeps_overrides(tmp_path, monkeypatch):
    s = docker.ComposeStack(_cfg(tmp_path))
    _compose_fakes(monkeypatch, s)
    s._save_overrides({"CLIENT_MODE": "pool"})
    counts, knobs = s.current()
    assert counts == {"front": 0, "clone": 1, "axis": 0, "gsoap": 0}
    assert knobs["CLIENT_MODE"] == "pool"
    assert s.describe()["cpu_quotas"] == {"front": None, "clone": 0.5, "axis": None, "gsoap": None}


def test_a_restarted_tier_is_ready_once_its_replicas_answer_and_haproxy_has_them_up_at_their_addresses(
        tmp_path, monkeypatch):
    s = docker.ComposeStack(_cfg(tmp_path))
    monkeypatch.setattr(s, "_running_inspected", lambda services=None: [
        {"name": "testbed-clone-1", "ips": {"172.18.0.5"}}, {"name": "testbed-clone-2", "ips": {"172.18.0.6"}}])
    monkeypatch.setattr(docker, "health_test", lambda name: ["bash", "-c", "probe"])
    answers = {"testbed-clone-1": [True], "testbed-clone-2": [False, False, True]}
    asked: list[str] = []
    monkeypatch.setattr(docker, "passes", lambda name, test: asked.append(name) or answers[name].pop(0))
    # HAProxy first still shows the slot of the stopped container (an old address) UP
    views = [[("clone1", "172.18.0.5", "UP"), ("clone2", "172.18.0.9", "UP")],
             [("clone1", "172.18.0.5", "UP"), ("clone2", "172.18.0.6", "DOWN")],
             [("clone1", "172.18.0.5", "UP"), ("clone2", "172.18.0.6", "UP")]]
    seen: list[int] = []
    monkeypatch.setattr(s, "haproxy_servers", lambda timeout=3.0: seen.append(1) or [
        {"pxname": "clone", "svname": n, "addr": f"{a}:8080", "status": st} for n, a, st in views[len(seen) - 1]])
    monkeypatch.setattr(docker.time, "sleep", lambda s: None)
    s._wait_ready("clone", 2)
    assert asked == ["testbed-clone-1", "testbed-clone-2", "testbed-clone-2", "testbed-clone-2"]
    assert len(seen) == 3, "the stale UP slot and the DOWN one were not counted"


def test_a_replica_that_stops_while_it_starts_is_a_clear_error(tmp_path, monkeypatch):
    s = docker.ComposeStack(_cfg(tmp_path))
    monkeypatch.setattr(s, "_running_inspected", lambda services=None: [{"name": "testbed-front-1", "ips": set()}])
    monkeypatch.setattr(docker, "health_test", lambda name: ["true"])
    monkeypatch.setattr(docker, "passes", lambda name, test: None)
    with pytest.raises(docker.DockerError, match=r"testbed-front-1 stopped while it started; ./testbed logs front"):
        s._wait_ready("front", 1)


def test_a_replica_docker_has_not_checked_yet_is_healthy_once_haproxy_has_it_up(tmp_path, monkeypatch):
    """Docker checks every HEALTHCHECK_INTERVAL: a replica the scale just waited for (its own
    healthcheck run with docker exec, then HAProxy's server UP) is still "starting" for Docker."""
    s = docker.ComposeStack(_cfg(tmp_path))
    rows = [("axis-1", "healthy", "172.18.0.3", "UP"), ("axis-2", "starting", "172.18.0.7", "UP"),
            ("axis-3", "starting", "172.18.0.8", "DOWN"), ("axis-4", "unhealthy", "172.18.0.9", "UP")]
    monkeypatch.setattr(s, "_containers", lambda: [{"Name": f"testbed-{n}", "Service": "axis", "State": "running",
                                                    "Health": h} for n, h, _, _ in rows])
    monkeypatch.setattr(docker, "inspect", lambda names: [
        {"name": f"testbed-{n}", "pid": 1, "number": int(n[-1]), "ips": {ip}, "cpus": None} for n, _, ip, _ in rows])
    monkeypatch.setattr(s, "haproxy_servers", lambda timeout=3.0: [
        {"pxname": "axis", "svname": f"axis{n[-1]}", "addr": f"{ip}:8080", "status": st} for n, _, ip, st in rows])
    got = {f"axis-{r['replica']}": r["healthy"] for r in s.status()["replicas"]}
    assert got == {"axis-1": True, "axis-2": True, "axis-3": False, "axis-4": False}
    assert dockercli.healthy("starting", "UP") and not dockercli.healthy("starting", "UP 1/3")


def test_a_healthcheck_runs_in_the_container_as_docker_runs_it():
    assert dockercli.exec_form(["CMD", "bash", "-c", "exit 0"]) == ["bash", "-c", "exit 0"]
    assert dockercli.exec_form(["CMD-SHELL", "curl -f x"]) == ["/bin/sh", "-c", "curl -f x"]
    assert dockercli.exec_form(["NONE"]) is None and dockercli.exec_form([]) is None


def test_a_cpu_quota_restarts_the_tier_in_every_mode(tmp_path):
    """A JVM sizes its GC and compiler threads by its quota at start: local mode restarts too."""
    now = {"front": 1, "clone": 1, "axis": 1, "gsoap": 0}
    knobs = {"CPUS_CLONE": "0.5"}
    p = reconfigure.plan(now, {}, now, knobs, docker.ComposeStack(_cfg(tmp_path)).tier_config)
    assert p["restart"] == ["clone"]
    p = reconfigure.plan(now, {}, now, knobs, local.LocalStack(_cfg(tmp_path)).tier_config)
    assert p["restart"] == ["clone"]
    p = reconfigure.plan(now, {"CPUS_CLONE": "0.50"}, now, knobs, local.LocalStack(_cfg(tmp_path)).tier_config)
    assert p["restart"] == [], "0.50 and 0.5 are one quota"


def test_thread_dump_is_cut_out_of_a_container_log_with_application_lines_around_it():
    log = ("INFO clone: serving\n2026-11-23 08:00:00\nFull thread dump OpenJDK 64-Bit Server VM:\n\n"
           '"main" #1 prio=5\n   java.lang.Thread.State: RUNNABLE\n\nJNI global refs: 16, weak refs: 0\n\n'
           "Heap\n PSYoungGen total 1K\nINFO clone: next request\n")
    dump = docker.extract_dump(log)
    assert dump.startswith("Full thread dump") and dump.rstrip().endswith("weak refs: 0")
    assert "INFO" not in dump
    assert docker.extract_dump("Full thread dump ... (cut off before its end)") is None
    assert docker.extract_dump("no dump at all") is None


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_containers_cpu_is_read_from_its_cgroup(tmp_path, version):
    proc, root = tmp_path / "proc", tmp_path / "cgroup"
    (proc / "42").mkdir(parents=True)
    if version == "v1":
        (proc / "42" / "cgroup").write_text("5:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n")
        f = root / "cpu,cpuacct" / "docker" / "abc" / "cpuacct.usage"
        f.parent.mkdir(parents=True)
        f.write_text("2500000000\n")
    else:
        (proc / "42" / "cgroup").write_text("0::/system.slice/docker-abc.scope\n")
        f = root / "system.slice" / "docker-abc.scope" / "cpu.stat"
        f.parent.mkdir(parents=True)
        f.write_text("usage_usec 2500000\nuser_usec 2000000\n")
    path = cgroup.cpu_file(42, proc, root)
    assert path == str(f)
    assert cgroup.cpu_seconds(path) == pytest.approx(2.5)
    assert cgroup.cpu_file(43, proc, root) is None          # no such process


def test_this_machines_own_process_has_a_readable_cgroup_or_none():
    path = cgroup.cpu_file(os.getpid())
    assert path is None or cgroup.cpu_seconds(path) > 0


def test_docker_inspect_lines_of_compose_and_swarm_containers_are_read_alike():
    compose = dockercli.parse_inspect("/testbed-clone-2|abc|4242|clone|2|500000000|sha256:1|172.18.0.5 |"
                                   "<no value>|<no value>")
    assert (compose["service"], compose["number"], compose["cpus"], compose["ips"]) == ("clone", 2, 0.5, {"172.18.0.5"})
    swarm = dockercli.parse_inspect("/testbed_clone.3.xyz|abc|4243|<no value>|<no value>|0|sha256:1|10.0.1.5 |"
                                 "testbed|testbed_clone.3.xyzxyz")
    assert (swarm["service"], swarm["number"], swarm["cpus"], swarm["name"]) == ("clone", 3, None, "testbed_clone.3.xyz")
