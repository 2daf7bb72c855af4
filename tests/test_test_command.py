"""`./testbed test`: its own options, and the pytest arguments it makes (parallel workers,
--quick's markers) without running anything."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from testbed import ROOT, cli, testcmd


def _args(words):
    own, rest = testcmd.split_options(words)
    args = cli.build_parser().parse_args(["test", *own])
    args.pytest_args = rest
    return args


def test_the_suite_runs_in_parallel_groups_handed_out_in_the_order_conftest_gives():
    argv = testcmd.pytest_argv(_args(["-k", "interop", "-x"]))
    assert argv[:5] == ["-n", str(_args([]).workers), "--dist", "loadgroup", "--no-loadscope-reorder"]
    assert argv[5:] == ["-k", "interop", "-x"]


def test_a_users_own_worker_count_or_workers_zero_runs_pytest_as_asked():
    assert testcmd.pytest_argv(_args(["-n", "0", "--pdb"])) == ["-n", "0", "--pdb"]
    assert testcmd.pytest_argv(_args(["-p", "no:xdist"])) == ["-p", "no:xdist"]
    assert testcmd.pytest_argv(_args(["--workers", "0", "tests/clones"])) == ["tests/clones"]
    assert testcmd.pytest_argv(_args(["--workers=2"]))[:2] == ["-n", "2"]


def test_quick_leaves_out_slow_and_own_stack_tests_and_keeps_a_users_marker():
    argv = testcmd.pytest_argv(_args(["--quick", "--workers", "0"]))
    assert argv == ["-m", testcmd.QUICK_MARKERS] and "not slow" in testcmd.QUICK_MARKERS and "not own_stack" in testcmd.QUICK_MARKERS
    argv = testcmd.pytest_argv(_args(["--quick", "--workers", "0", "-m", "stack", "-x"]))
    assert argv == ["-m", f"(stack) and {testcmd.QUICK_MARKERS}", "-x"]


def test_options_after_the_first_pytest_argument_go_to_pytest():
    own, rest = testcmd.split_options(["-k", "x", "--quick"])
    assert own == [] and rest == ["-k", "x", "--quick"]


def test_a_slot_another_process_holds_is_not_taken(tmp_path, monkeypatch):
    """Parallel workers (and other checkouts' suites) never share a stack's port slot."""
    monkeypatch.setenv("TESTBED_TEST_SLOT_LOCKS", str(tmp_path))
    holder = subprocess.Popen(
        [sys.executable, "-c", "import stacks, sys; print(stacks.replica_port_base(), flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": "tests:cli:."}, cwd=ROOT)
    try:
        held = int(holder.stdout.readline())
        import stacks      # tests/stacks.py, as the fixtures use it
        monkeypatch.setattr(stacks, "SLOT_LOCKS", tmp_path)
        monkeypatch.setattr(stacks, "_bases_taken", {})
        mine = stacks.replica_port_base()
        assert mine != held and (tmp_path / f"{held}.lock").exists()
        stacks._bases_taken.pop(mine).close()
    finally:
        holder.stdin.close()
        holder.wait(10)


def test_when_every_slot_was_taken_a_slot_of_this_process_whose_stack_is_gone_is_taken_again(tmp_path, monkeypatch):
    """Four workers make more private stacks than the twelve slots below 32768: a worker takes
    one of its own slots again once every port of it is free, the one taken longest ago first."""
    import socket
    import stacks
    from testbed.stacks import ports as portplan
    monkeypatch.setattr(stacks, "SLOT_LOCKS", tmp_path)
    monkeypatch.setattr(stacks, "_bases_taken", {})
    monkeypatch.setenv("TESTBED_TEST_PORT_BASE", "62000")   # above the ephemeral range
    monkeypatch.setattr(stacks, "_ephemeral_low", lambda: 64000)      # two slots: 62000, 63000,
    # where no other worker's stack listens
    try:
        first, second = stacks.replica_port_base(), stacks.replica_port_base()
        assert {first, second} == {62000, 63000}
        with socket.socket() as busy:          # the first slot's stack still listens
            busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            busy.bind(("127.0.0.1", min(portplan.stack_ports(first))))
            busy.listen()
            assert stacks.replica_port_base() == second
        assert stacks.replica_port_base() == first        # free again, and taken longest ago
        assert list(stacks._bases_taken) == [second, first]
    finally:
        for lock in stacks._bases_taken.values():
            lock.close()


def test_a_process_with_its_share_of_slots_takes_its_own_again_before_a_new_one(tmp_path, monkeypatch):
    """Workers keep their slots' locks while they run: a worker that took more than its share
    of the range left another none at all (CI, 2026-11-28: 'no free 1000-port slot'). Past its
    share a process uses one of its own slots again, a new one only while all of its own still
    listen, and fails naming what it holds once none is free within TESTBED_TEST_SLOT_WAIT."""
    import socket
    from contextlib import ExitStack
    import stacks
    from testbed.stacks import ports as portplan
    monkeypatch.setattr(stacks, "SLOT_LOCKS", tmp_path)
    monkeypatch.setattr(stacks, "_bases_taken", {})
    monkeypatch.setenv("TESTBED_TEST_PORT_BASE", "62000")
    monkeypatch.setattr(stacks, "_ephemeral_low", lambda: 65000)      # three slots: 62000, 63000, 64000
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")              # a share of two (at least two)
    monkeypatch.setenv("TESTBED_TEST_SLOT_WAIT", "0")

    def listen_on(stack, base):
        s = stack.enter_context(socket.socket())
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", min(portplan.stack_ports(base))))
        s.listen()

    try:
        first, second = stacks.replica_port_base(), stacks.replica_port_base()
        assert (first, second) == (62000, 63000)
        assert stacks.replica_port_base() == first           # its own again, not 64000
        with ExitStack() as running:
            listen_on(running, first)
            listen_on(running, second)
            assert stacks.replica_port_base() == 64000       # its own both listen: a new one
            listen_on(running, 64000)
            with pytest.raises(pytest.fail.Exception, match=r"this process holds \[62000, 63000, 64000\]"):
                stacks.replica_port_base()
    finally:
        for lock in stacks._bases_taken.values():
            lock.close()


def test_the_help_lists_every_verb_once_under_the_group_of_what_it_does():
    text = cli.build_parser().format_help()
    grouped = [v for _, verbs in cli.VERB_GROUPS for v in verbs]
    assert sorted(grouped) == sorted(set(grouped))                 # no verb in two groups
    for title, verbs in cli.VERB_GROUPS:
        block = text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]
        assert [line.split()[0] for line in block.splitlines() if line.startswith("  ") and
                not line.startswith("   ")] == list(verbs), title
    assert "\nother:\n" not in text                              # every verb has a group
    assert "other:\n  extra" in cli.verbs_by_group({"up": "start", "extra": "a new verb"})
