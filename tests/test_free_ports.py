"""procs.free_port: the ports tests and ad-hoc servers take before they bind them."""
from __future__ import annotations

import os

from testbed import procs


def test_a_process_never_gets_the_same_port_twice_and_stays_in_its_slice(monkeypatch):
    monkeypatch.setenv("TESTBED_FREE_PORTS", "15000-15039")
    monkeypatch.setattr(procs, "_handed_out", set())
    got = [procs.free_port() for _ in range(30)]
    assert len(set(got)) == 30 and all(15000 <= p <= 15039 for p in got)


def test_a_bad_or_outside_slice_falls_back_to_the_whole_range(monkeypatch):
    for raw in ("", "abc", "15039-15000", "100-200", "12000-40000"):
        monkeypatch.setenv("TESTBED_FREE_PORTS", raw)
        assert procs.free_port_range() == procs.FREE_PORT_RANGE, raw
    monkeypatch.setenv("TESTBED_FREE_PORTS", "13000-13999")
    assert procs.free_port_range() == (13000, 13999)


def test_each_worker_of_a_parallel_run_gets_a_slice_of_its_own():
    slices = [procs.worker_port_slice(f"gw{i}", "4") for i in range(4)]
    assert slices[0][0] == procs.FREE_PORT_RANGE[0] and all(hi <= procs.FREE_PORT_RANGE[1] for _, hi in slices)
    assert all(a[1] < b[0] for a, b in zip(slices, slices[1:]))          # disjoint, in order
    assert all(hi - lo + 1 == 1750 for lo, hi in slices)
    for worker, count in (("", ""), ("gw0", "1"), ("master", "4"), ("gw4", "4"), ("gwx", "4")):
        assert procs.worker_port_slice(worker, count) is None, (worker, count)


def test_this_worker_picks_in_its_slice():
    """Under `./testbed test` (pytest -n 4) tests/conftest.py set this worker's slice."""
    got = procs.worker_port_slice(os.environ.get("PYTEST_XDIST_WORKER", ""),
                                  os.environ.get("PYTEST_XDIST_WORKER_COUNT", ""))
    want = got or procs.FREE_PORT_RANGE
    assert procs.free_port_range() == want and want[0] <= procs.free_port() <= want[1]
