"""The span relay killed under a real HAProxy (haproxy/keeper.py): HAProxy's master stops every
worker when one of its `program`s fails, so the relay runs under a keeper that starts it again.
Killed, the relay is back within seconds, HAProxy serves all along, and a sampled request sent
afterwards has its span in Zipkin. And the keeper alone: a failing program started again, the
master's signal passed on, and exit status 0 (the master takes anything else for a failure)."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from testbed import ROOT
from testbed.observe import tracing

from polling import until

from hostile_observability.traceparents import PARENT, TRACE
from hostile_observability.tracehaproxy import TracedHAProxy, relay_pids

needs_haproxy = pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy not installed")


@needs_haproxy
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["killed", "terminated"])
def test_a_killed_relay_is_started_again_and_haproxy_serves_all_along(tmp_path_factory, sig):
    with TracedHAProxy(tmp_path_factory.mktemp("kill")) as hp:
        (first,) = relay_pids(hp.socket)
        first_socket = tracing.relay_paths(hp.socket)[0]
        bound = first_socket.stat().st_ino
        os.kill(first, sig)
        until("the killed relay gone", lambda: first not in relay_pids(hp.socket), 30)
        status, got = hp.send("web", [f"00-{TRACE}-{PARENT}-00"])        # while no relay may run
        assert status == 200 and got["traceparent"] == [f"00-{TRACE}-{PARENT}-00"]
        assert hp.proc.poll() is None and hp.bound_ok(), "HAProxy stopped with its relay"
        (second,) = until("a relay again", lambda: [p for p in relay_pids(hp.socket) if p != first], 60)
        until("the new relay's sockets on the paths", lambda: first_socket.stat().st_ino != bound and hp.bound(), 60)
        status, got = hp.send("clones", [f"00-{TRACE}-{PARENT}-01"])
        span_id = re.fullmatch(r"00-[0-9a-f]{32}-([0-9a-f]{16})-01", got["traceparent"][0]).group(1)
        until("the span of a request after the restart", lambda: span_id in {s["id"] for s in hp.zipkin.received()}, 60)
        assert relay_pids(hp.socket) == [second] and hp.proc.poll() is None
        assert "starting it again" in hp.log_tail()


def _keeper(program: str, tmp_path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "cli"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-m", "testbed.haproxy.keeper", "--", sys.executable, "-c", program],
                            env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)


def test_the_keeper_starts_a_failing_program_again_and_leaves_with_0_on_the_masters_signal(tmp_path):
    keeper = _keeper("open('starts', 'a').write('x'); raise SystemExit(3)", tmp_path)
    try:
        until("the failed program started again", lambda: len((tmp_path / "starts").read_text()
                                                            if (tmp_path / "starts").exists() else "") >= 2, 60)
    finally:
        keeper.send_signal(signal.SIGUSR1)
        keeper.wait(60)
    assert keeper.returncode == 0, "HAProxy's master would take a failure for its own"
    assert "starting it again" in keeper.stderr.read()


def test_the_keeper_passes_the_masters_signal_on_and_does_not_start_the_program_again(tmp_path):
    program = ("import signal, sys, time; open('starts', 'a').write('x');"
               "signal.signal(signal.SIGUSR1, lambda *a: sys.exit(0)); time.sleep(120)")
    keeper = _keeper(program, tmp_path)
    until("the program running", lambda: (tmp_path / "starts").exists(), 60)
    keeper.send_signal(signal.SIGUSR1)
    keeper.wait(60)
    assert keeper.returncode == 0 and (tmp_path / "starts").read_text() == "x"
