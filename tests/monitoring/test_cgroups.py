"""Reading containers' CPU with no Docker API (cli/testbed/cpu/containers.py) and every replica's
CPU as a counter (cli/testbed/cpu/clock.py), on fake cgroup trees and on this process."""
from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from testbed.cpu.containers import ContainerScan, cgroup_dirs, parse_name
from testbed.cpu.clock import CpuClock, process_seconds, quota_cores
from testbed.stack import CpuTarget

ID_A, ID_B = "a" * 64, "b" * 64


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("ptr,expected", [
    ("testbed-clone-2.testbed_default", ("clone", 2)),
    ("i21-locust-worker-3.i21_default.", ("locust-worker", 3)),
    ("testbed_clone.2.x7ab3kq9w0rmt.testbed_default", ("clone", 2)),       # a Swarm task
    ("my-db-1.other_default", None),
    ("vm", None),
])
def test_a_containers_ptr_name_gives_its_service_and_replica(ptr, expected):
    assert parse_name(ptr) == expected


def test_containers_are_found_in_v1_and_v2_trees_and_named_by_dns(tmp_path):
    write(tmp_path / "cpuacct" / "docker" / ID_A / "cpuacct.usage", "2500000000\n")           # v1, cgroupfs
    write(tmp_path / "system.slice" / f"docker-{ID_B}.scope" / "cpu.stat", "usage_usec 1500000\n")  # v2, systemd
    write(tmp_path / "cpuacct" / "docker" / "not-a-container" / "cpuacct.usage", "1\n")
    assert set(cgroup_dirs(tmp_path)) == {ID_A, ID_B}
    dns = {ID_A[:12]: "172.20.0.5", ID_B[:12]: "172.20.0.6"}
    names = {"172.20.0.5": "testbed-clone-3.testbed_default", "172.20.0.6": "testbed-haproxy-1.testbed_default"}
    scan = ContainerScan(tmp_path, resolve=lambda host: dns[host], reverse=lambda ip: names[ip])
    got = {(c.service, c.number, c.address) for c in scan.containers()}
    assert got == {("clone", 3, "172.20.0.5"), ("haproxy", 1, "172.20.0.6")}
    seconds = CpuClock().read([c.target() for c in scan.containers()])
    assert seconds == {("clone", "3"): pytest.approx(2.5), ("haproxy", "1"): pytest.approx(1.5)}


def test_a_container_on_no_shared_network_is_left_out(tmp_path):
    write(tmp_path / "docker" / ID_A / "cpu.stat", "usage_usec 1\n")

    def nxdomain(host):
        raise OSError("no such host")
    assert ContainerScan(tmp_path, resolve=nxdomain, reverse=lambda ip: "").containers() == []


@pytest.mark.parametrize("layout", ["v1-split", "v1-joined", "v2"])
def test_a_containers_quota_is_read_beside_its_accounting(tmp_path, layout):
    if layout == "v2":
        acct = tmp_path / "docker" / ID_A / "cpu.stat"
        write(acct, "usage_usec 1\n")
        write(acct.parent / "cpu.max", "50000 100000\n")
        write(tmp_path / "docker" / ID_B / "cpu.max", "max 100000\n")
        none = tmp_path / "docker" / ID_B / "cpu.stat"
    else:
        ctl = "cpuacct" if layout == "v1-split" else "cpu,cpuacct"
        acct = tmp_path / ctl / "docker" / ID_A / "cpuacct.usage"
        write(acct, "1\n")
        quota_dir = tmp_path / ("cpu" if layout == "v1-split" else ctl) / "docker" / ID_A
        write(quota_dir / "cpu.cfs_quota_us", "150000\n")
        write(quota_dir / "cpu.cfs_period_us", "100000\n")
        none = tmp_path / ctl / "docker" / ID_B / "cpuacct.usage"
        write(tmp_path / ("cpu" if layout == "v1-split" else ctl) / "docker" / ID_B / "cpu.cfs_quota_us", "-1\n")
    write(none, "1\n")
    assert quota_cores(str(acct)) == (0.5 if layout == "v2" else 1.5)
    assert quota_cores(str(none)) is None


def test_a_process_trees_counter_never_falls_when_a_child_exits():
    """HAProxy's reload retires a worker: its CPU stays counted (a Prometheus counter)."""
    burn = "import time; t = time.process_time()\nwhile time.process_time() - t < 0.3: pass\ntime.sleep(60)"
    parent = subprocess.Popen(["bash", "-c", f"{sys.executable} -c '{burn}' & wait; sleep 60"])
    try:
        clock = CpuClock()
        target = [CpuTarget("haproxy", "1", parent.pid, tree=True)]
        deadline = time.monotonic() + 20
        seconds = 0.0
        while time.monotonic() < deadline and seconds < 0.25:      # the child's 0.3 s counted
            time.sleep(0.1)
            seconds = clock.read(target).get(("haproxy", "1"), 0.0)
        assert seconds >= 0.25
        child = psutil.Process(parent.pid).children()[0]
        child.kill()
        child.wait(10)
        assert psutil.Process(parent.pid).children() == []
        assert clock.read(target)[("haproxy", "1")] >= seconds
    finally:
        parent.kill()
        parent.wait()


def test_the_testbed_tab_loads_with_the_locust_images_packages_only():
    """The Locust image has Locust (and psutil) but not numpy or scipy, which the analysis'
    statistics use: the tab's code (loadgen/testbed_tab.py -> testbed.live.view -> analysis.measure.bottleneck,
    analysis.steps) must load without them (docs/docker.md).
    Checked failing with analysis/steps.py importing analysis.stats at the top."""
    from testbed import ROOT
    code = ("import sys; sys.modules['numpy'] = sys.modules['scipy'] = None\n"
            "import testbed.live.view, testbed_tab\n"
            "from analysis.steps import StepSample\n"
            "print(StepSample.__name__)")
    env = {"PYTHONPATH": f"{ROOT / 'cli'}:{ROOT}:{ROOT / 'loadgen'}", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "StepSample", r.stderr[-2000:]


def test_a_processs_seconds_count_its_threads_and_are_none_once_it_is_gone():
    """process_seconds: user + system of every thread of one process (wrk's CPU per request)."""
    burn = ("import threading, time\ndef spin():\n    t = time.thread_time()\n    while time.thread_time() - t < 0.3: pass\n"
            "threading.Thread(target=spin).start()\ntime.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", burn])
    try:
        deadline = time.monotonic() + 20
        seconds = 0.0
        while time.monotonic() < deadline and seconds < 0.25:      # the thread's 0.3 s counted
            time.sleep(0.1)
            seconds = process_seconds(proc.pid) or 0.0
        assert seconds >= 0.25
    finally:
        proc.kill()
        proc.wait()
    assert process_seconds(proc.pid) is None and process_seconds(None) is None
