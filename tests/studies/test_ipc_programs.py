"""tb-ipc (studies/ipc/), the IPC study's program: every mechanism delivers every message in
order, a channel that loses, reorders or changes data makes the run invalid, limits are
refused by name, and no queue, FIFO, socket or shared-memory object outlives a run — normal,
interrupted (SIGINT, SIGTERM) or killed (SIGKILL, then the study's cleanup)."""
from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from polling import until
from testbed.studies import ipc, ipc_objects

BIN = ipc.BINARY
MECHS = ipc.MECHANISMS
NAMED = ("unix-dgram", "fifo", "sysv-mq", "posix-mq", "shm-ring")   # objects that exist mid-transfer

pytestmark = [
    pytest.mark.skipif(not BIN.exists(), reason="tb-ipc not built: ./testbed build"),
    # one worker for every test that makes IPC objects: the study's own runs (test_ipc_study.py)
    # remove what a dead pid left, which is what some of these tests make on purpose
    pytest.mark.xdist_group("ipc"),
]


@pytest.fixture
def names(tmp_path):
    """Names of a placeholder process that lives as long as the test, so that no study run going
    on meanwhile (another worker, another checkout) takes its objects for a dead run's; removed
    afterwards whatever happened."""
    holder = subprocess.Popen(["sleep", "300"])
    n = ipc_objects.names(holder.pid)
    n.dir.mkdir(mode=0o700, exist_ok=True)
    try:
        yield n
    finally:
        ipc_objects.remove(n)
        holder.kill()
        holder.wait()


def in_system(n: ipc_objects.Names) -> list[str]:
    """What of ours the system holds, asked independently of ipc_objects: ipcs, /dev/shm,
    /dev/mqueue or mq_open, the directory."""
    found = []
    ipcs = subprocess.run(["ipcs", "-q"], capture_output=True, text=True, check=True).stdout
    if f"{n.key:#010x}" in ipcs:
        found.append("ipcs -q")
    if Path("/dev/shm", n.base).exists():
        found.append("/dev/shm")
    if Path("/dev/mqueue").is_dir():
        if Path("/dev/mqueue", n.base).exists():
            found.append("/dev/mqueue")
    else:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.mq_open(f"/{n.base}".encode(), os.O_RDONLY)
        if fd >= 0:
            libc.mq_close(fd)
            found.append("mq_open")
    if n.dir.is_dir():
        found += [str(p) for p in n.dir.iterdir()]
    return found


def peers_of(n) -> list[int]:
    """pids of tb-ipc server/client processes using these names (from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(argv) > 2 and argv[1] in (b"server", b"client") and n.base.encode() in argv:
            out.append(int(d.name))
    return out


def run(n, mech, size, messages, *extra, timeout=60) -> dict:
    p = subprocess.run([str(BIN), "run", "--mech", mech, "--size", str(size), "--messages", str(messages),
                        *n.argv, "--deadline", "20", *extra], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def small_sizes(mech: str) -> list[int]:
    top = ipc.kernel_limits().get(mech, {}).get("max_size") or 65536
    return sorted({16, 71, 4096, min(top, 65536)})


@pytest.mark.parametrize("mech", MECHS)
def test_every_mechanism_delivers_every_message_in_order_and_leaves_nothing(names, mech):
    for size in small_sizes(mech):
        d = run(names, mech, size, 2000)
        assert d["valid"] is True, d["invalid_reason"]
        assert d["server"]["messages"] == d["client"]["messages"] == 2000
        assert d["server"]["bytes"] == 2000 * size
        assert d["server"]["checksum"] == d["client"]["checksum"]
        assert d["server"]["order_errors"] == 0 and d["server"]["extra_bytes"] == 0
        assert d["real_s"] > 0 and d["client"]["sys_s"] >= 0 and d["server"]["user_s"] >= 0
        assert in_system(names) == []


def test_the_checksum_depends_on_order_and_content(names):
    a = run(names, "pipe", 71, 100)["client"]["checksum"]
    assert run(names, "pipe", 71, 100)["client"]["checksum"] == a          # deterministic
    assert run(names, "pipe", 71, 101)["client"]["checksum"] != a
    assert run(names, "pipe", 72, 100)["client"]["checksum"] != a


@pytest.mark.parametrize("mech", MECHS)
@pytest.mark.parametrize("fault,expect", [("drop", "received 999 of 1000"), ("swap", "out of order"),
                                          ("flip", "checksum sent")])
def test_a_lost_reordered_or_changed_message_makes_the_run_invalid(names, mech, fault, expect):
    d = run(names, mech, 71, 1000, "--inject", fault)
    assert d["valid"] is False
    assert expect in d["invalid_reason"]
    assert d["server"]["checksum"] != d["client"]["checksum"]
    assert in_system(names) == []


@pytest.mark.parametrize("mech,key", [("sysv-mq", "kernel.msgmax"), ("posix-mq", "fs.mqueue.msgsize_max")])
def test_a_size_over_the_mechanisms_limit_is_refused_naming_the_limit(names, mech, key):
    top = ipc.kernel_limits()[mech]["max_size"]
    p = subprocess.run([str(BIN), "run", "--mech", mech, "--size", str(top + 1), "--messages", "10", *names.argv],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and key in p.stderr and f"at most {top}" in p.stderr
    assert in_system(names) == []


def test_limits_are_the_kernels(names):
    out = json.loads(subprocess.run([str(BIN), "limits"], capture_output=True, text=True, check=True).stdout)
    assert set(out) == set(MECHS)
    for mech, lim in ipc.kernel_limits().items():
        assert out[mech]["max_size"] == lim["max_size"], mech
    assert out["fifo"]["max_size"] == 0 and out["fifo"]["stream"] is True


def test_bad_arguments_name_the_fix():
    p = subprocess.run([str(BIN), "run", "--mech", "carrier-pigeon", "--size", "71", "--messages", "1"],
                       capture_output=True, text=True, timeout=10)
    assert p.returncode == 2 and "--mech" in p.stderr and "unix-stream" in p.stderr
    p = subprocess.run([str(BIN), "run", "--mech", "fifo", "--size", "4", "--messages", "1"],
                       capture_output=True, text=True, timeout=10)
    assert p.returncode == 2 and "at least 8" in p.stderr


def _start_long_run(n, mech) -> subprocess.Popen:
    p = subprocess.Popen([str(BIN), "run", "--mech", mech, "--size", "71", "--messages", "100000000", *n.argv,
                          "--deadline", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    # mid-transfer: the channel made and both peers running
    until("the channel and both peers", lambda: p.poll() is not None or
          (ipc_objects.leftovers(n) and len(peers_of(n)) == 2), timeout=10)
    assert p.poll() is None, p.communicate()
    return p


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("mech", NAMED)
def test_an_interrupted_run_removes_its_channel_and_stops_its_peers(names, mech, sig):
    p = _start_long_run(names, mech)
    assert in_system(names) != [] and len(peers_of(names)) == 2     # the checks can see them
    os.killpg(p.pid, sig) if sig == signal.SIGINT else p.send_signal(sig)   # Ctrl-C reaches the group
    out, err = p.communicate(timeout=15)
    assert p.returncode == 130, err
    assert "channel removed" in err
    assert in_system(names) == []
    assert peers_of(names) == []


@pytest.mark.parametrize("mech", NAMED)
def test_a_killed_run_leaves_objects_that_the_studys_cleanup_removes(names, mech):
    p = _start_long_run(names, mech)
    os.killpg(p.pid, signal.SIGKILL)                  # what the runner does on a timeout
    p.communicate(timeout=15)
    assert in_system(names) != []                     # nobody was left to remove it ...
    gone = ipc_objects.remove(names)
    assert gone                                       # ... the study's removal saw it ...
    assert in_system(names) == []                     # ... and removed it


def test_objects_of_a_dead_run_are_found_as_stale(names):
    dead = subprocess.Popen(["true"])
    dead.wait()
    n = ipc_objects.names(dead.pid)
    n.dir.mkdir(mode=0o700, exist_ok=True)
    try:
        p = _start_long_run(n, "sysv-mq")
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate(timeout=15)
        assert n in ipc_objects.stale()
        assert n not in ipc_objects.stale(own_pid=dead.pid)       # a run's own names are never stale
        ipc_objects.remove(n)
        assert in_system(n) == []
    finally:
        ipc_objects.remove(n)


def test_objects_of_a_living_run_are_not_stale():
    """Another run going on at the same time (another worktree, another engineer) is left alone."""
    alive = subprocess.Popen(["sleep", "60"])
    n = ipc_objects.names(alive.pid)
    n.dir.mkdir(mode=0o700, exist_ok=True)
    try:
        p = _start_long_run(n, "posix-mq")
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate(timeout=15)
        assert ipc_objects.leftovers(n) and n not in ipc_objects.stale()
    finally:
        alive.kill()
        alive.wait()
        ipc_objects.remove(n)
        assert in_system(n) == []
