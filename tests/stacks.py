"""Helpers that start real tier processes (built by `./testbed build`) and private stacks on
free loopback ports. A module of its own, not conftest.py: several test folders have a
conftest.py, so `from conftest import` would be ambiguous."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from testbed import procs, tiers

RUN_DIR = Path(os.environ.get("TESTBED_TEST_RUN_DIR", tiers.ROOT / ".testbed" / "test-run"))


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


_stacks_made = []


def make_stack_config(name: str, knobs: dict[str, str] | None = None):
    """A private stack: free entry ports, its own state dir, and a replica port range of its
    own (29000, 30000, ... one per stack made in this session) so stacks never collide."""
    from testbed.config import StackConfig, knobs as env_knobs
    _stacks_made.append(name)
    base = int(os.environ.get("TESTBED_TEST_PORT_BASE", "29000")) + 1000 * (len(_stacks_made) - 1)
    merged = {**env_knobs(), **TEST_KNOBS, **(knobs or {})}
    return StackConfig(bind="127.0.0.1", web_port=procs.free_port(), clones_port=procs.free_port(),
                       soap_port=procs.free_port(), stats_port=procs.free_port(),
                       bound_port=procs.free_port(), locust_port=procs.free_port(),
                       locust_master_port=procs.free_port(), replica_port_base=base,
                       state_dir=RUN_DIR / name, knobs=merged)
