"""Helpers that start real tier processes (built by `./testbed build`) and private stacks on
free loopback ports. A module of its own, not conftest.py: several test folders have a
conftest.py, so `from conftest import` would be ambiguous."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from testbed import procs, tiers

# logs and state of the processes the tests start; one folder per pytest-xdist worker (gw0, ...)
RUN_DIR = Path(os.environ.get("TESTBED_TEST_RUN_DIR", tiers.ROOT / ".testbed" / "test-run")) / \
    os.environ.get("PYTEST_XDIST_WORKER", "")


class Server:
    """One running tier process: its URL, its Proc and its log."""

    def __init__(self, proc: procs.Proc, port: int, path: str):
        self.proc, self.port = proc, port
        self.base = f"http://127.0.0.1:{port}"
        self.endpoint = self.base + path

    def log_text(self) -> str:
        return Path(self.proc.log).read_text(errors="replace")


def start_tier(name: str, label: str, endpoint_path: str, env: dict[str, str] | None = None) -> Server:
    tier = tiers.TIERS[name]
    if not tier.built():
        pytest.fail(f"{name} is not built; run ./testbed build (or ./testbed test, which builds)")
    port = procs.free_port()
    proc = procs.start(label, tier.argv(), RUN_DIR / f"{label}.log",
                       env=tiers.process_env(tier, port, extra=env), port=port)
    try:
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}{tier.health_path}", tier.start_timeout)
    except procs.ProcError as e:
        procs.stop(proc)
        pytest.fail(str(e))
    return Server(proc, port, endpoint_path)


# ------------------------------------------------------------------------------------
# The whole local stack (HAProxy + tiers) on private ports, so a user's own `./testbed up`
# on the default ports is never disturbed by the tests.
# ------------------------------------------------------------------------------------
TEST_KNOBS = {
    # small enough that the size-limit test sends a few MiB, not 64
    "AXIS_MAX_MESSAGE_BYTES": str(8 << 20),
    "GSOAP_MAX_MESSAGE_BYTES": str(8 << 20),
}


_bases_taken: dict[int, object] = {}   # slot base -> its lock file, held open while this process runs
SLOT = 1000     # a stack's replica ports: base + tier offset (100..400) + index, and Locust's web UI
# One lock file per slot, shared by every test process on the machine (pytest-xdist workers,
# another checkout's suite): a slot is this process's once it holds the slot's flock.
SLOT_LOCKS = Path(os.environ.get("TESTBED_TEST_SLOT_LOCKS", "/tmp/testbed-test-slots"))


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range: outgoing connections take ports from
    there at any moment, so a server port chosen in it may be held when the server starts."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _lock_slot(base: int):
    """The slot's lock file, locked by this process (held until it exits), or None if another
    process holds it."""
    import fcntl
    SLOT_LOCKS.mkdir(parents=True, exist_ok=True)
    f = open(SLOT_LOCKS / f"{base}.lock", "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return None
    return f


def _slots_per_process(slots: int) -> int:
    """How many slots one test process takes before it uses its own again: an equal share of
    the range among the suite's parallel workers (PYTEST_XDIST_WORKER_COUNT), at least two --
    so that no worker, having made more stacks than the others, leaves another none at all."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return max(2, slots // max(1, workers))


def replica_port_base() -> int:
    """A replica port range of the stack's own: a SLOT-port slot from TESTBED_TEST_PORT_BASE
    (default 20000: above free_port's range and a user's stack at 19000), below the ephemeral
    range unless TESTBED_TEST_PORT_BASE already starts in it. A slot is this process's once it
    holds the slot's lock file, and only while all its ports are free is it taken: so parallel
    workers (pytest -n) never share one. Until it holds its share of the range
    (_slots_per_process) a process takes a new slot; then one of its own whose stack is gone
    (every port free again, the one taken longest ago first); then a new one after all (its
    stacks all still run); if none is free, it waits for one (TESTBED_TEST_SLOT_WAIT seconds,
    default 300: a stack just stopped may hold its ports a few seconds)."""
    start = int(os.environ.get("TESTBED_TEST_PORT_BASE", "20000"))
    low = _ephemeral_low()
    end = low if start + SLOT <= low else 65536
    bases = range(start, end - SLOT + 1, SLOT)
    share = _slots_per_process(len(bases))
    deadline = time.monotonic() + float(os.environ.get("TESTBED_TEST_SLOT_WAIT", "300"))
    while True:
        if len(_bases_taken) < share:
            base = _new_slot(bases) or _own_slot_again()
        else:
            base = _own_slot_again() or _new_slot(bases)
        if base is not None:
            return base
        if time.monotonic() >= deadline:
            pytest.fail(f"no free {SLOT}-port slot for a test stack between {start} and {end} "
                        f"(this process holds {sorted(_bases_taken)}, other test processes the rest "
                        f"of {SLOT_LOCKS}): stop what holds them or set TESTBED_TEST_PORT_BASE")
        time.sleep(1.0)


def _new_slot(bases) -> int | None:
    """A slot no process of the machine holds, every port of it free now; taken (locked)."""
    from testbed.stacks import ports as portplan
    for base in bases:
        if base in _bases_taken:
            continue
        lock = _lock_slot(base)
        if lock is None:
            continue
        if all(procs.port_free(p) for p in portplan.stack_ports(base)):
            _bases_taken[base] = lock
            return base
        lock.close()
    return None


def _own_slot_again() -> int | None:
    """One of this process's own slots whose stack is gone (every port free again), the one
    taken longest ago first; it becomes the most recently taken."""
    from testbed.stacks import ports as portplan
    for base in list(_bases_taken):
        if all(procs.port_free(p) for p in portplan.stack_ports(base)):
            _bases_taken[base] = _bases_taken.pop(base)
            return base
    return None


def make_stack_config(name: str, knobs: dict[str, str] | None = None):
    """A private stack: free entry ports, its own state dir, and a replica port range of its
    own (replica_port_base) so stacks never collide with each other or with a user's stack."""
    from testbed.stacks import ports as portplan
    from testbed.config import StackConfig, knobs as env_knobs
    base = replica_port_base()
    merged = {**env_knobs(), **TEST_KNOBS, **(knobs or {})}
    return portplan.with_free_entry_ports(StackConfig(bind="127.0.0.1"), base, RUN_DIR / name, merged)
