"""Scaling a containerized tier down (cli/testbed/stacks/compose.py cmd_scale): the replicas compose
will remove are found and their HAProxy slots drained first. The pure parts, checked
here; the whole of it on a real engine in tests/docker/check_stack.py (CI)."""
from __future__ import annotations

from testbed.stacks import compose as docker


def _row(backend: str, slot: str, addr: str, status: str = "UP") -> dict[str, str]:
    return {"pxname": backend, "svname": slot, "addr": addr, "status": status}


def test_compose_removes_the_highest_container_numbers():
    assert docker.to_remove([2, 1, 3], 1) == [2, 3]
    assert docker.to_remove([4, 1, 7], 2) == [7]
    assert docker.to_remove([1, 2], 2) == []
    assert docker.to_remove([3, 1], 0) == [1, 3]


def test_slots_are_matched_by_exact_address_in_their_backend_only():
    servers = [_row("clone", "clone1", "172.18.0.5:8080"),
               _row("clone", "clone2", "172.18.0.15:8080"),
               _row("clone", "clone3", "172.18.0.7:8080"),
               _row("clone", "clone4", "", "MAINT (resolution)"),
               _row("front", "front1", "172.18.0.7:8080")]
    assert docker.slots_of(servers, "clone", {"172.18.0.7", "172.18.0.1"}) == ["clone3"]
    # 172.18.0.1 must not match 172.18.0.15 (a prefix), nor an empty slot
    assert docker.slots_of(servers, "clone", {"172.18.0.1", ""}) == []
    assert docker.slots_of(servers, "front", {"172.18.0.7"}) == ["front1"]
