"""The shared-memory transport under gSOAP survives clients that die: one exits in the
middle of sending a request, another is killed (SIGKILL) while it is making calls. Each
time the server notices, fails that request, closes and unmaps the session, and serves the
next client; nothing stays mapped or open. Both wait modes."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from rpcprograms import open_fds, program, run, shm_mappings, sockdir

# one worker for the RPC programs' tests (pytest -n): the Ctrl-C test checks that no /tmp/tb-rpc-*
# socket folder is left, which another test's running programs would hold
pytestmark = pytest.mark.xdist_group("rpc-programs")


def _client(transport: str, address: str, folder: Path, calls: int, extra=()) -> list[str]:
    return [str(program("rpc-gsoap-client")), "--transport", transport, "--size", "64", "--calls", str(calls),
            "--warmup", "2", "--idle-ms", "0", "--connect", address, "--dir", str(folder),
            "--timeout-s", "60", *extra]


def _wait_for(cond, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


@pytest.mark.parametrize("transport", ["shm-spin", "shm-futex"])
def test_server_notices_a_client_that_dies_mid_call_cleans_up_and_serves_the_next(transport):
    folder = Path(sockdir())
    server = subprocess.Popen([str(program("rpc-gsoap-server")), "--transport", transport, "--dir", str(folder),
                               "--deadline-s", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = server.stdout.readline().split()
        assert ready[0] == "ready" and ready[1].startswith("shm:")
        address = ready[1]
        fds_before = open_fds(server.pid)

        # 1. dies after 300 bytes of its first timed request: headers out, the body cut off
        code, _, _ = run(_client(transport, address, folder, 10, ["--abort-after", "300"]))
        assert code == 9
        assert _wait_for(lambda: shm_mappings(server.pid) == 0 and open_fds(server.pid) == fds_before)

        # 2. the next client is served in full
        code, out, err = run(_client(transport, address, folder, 200))
        assert code == 0 and out["ok"] == 202, err
        assert _wait_for(lambda: shm_mappings(server.pid) == 0)      # its goodbye was heard

        # 3. killed while it makes calls (wherever it is: mid-request, mid-reply, between calls)
        victim = subprocess.Popen(_client(transport, address, folder, 10_000_000), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        assert _wait_for(lambda: shm_mappings(server.pid) == 1)      # its session is up
        calls = psutil.Process(victim.pid)
        assert _wait_for(lambda: sum(calls.cpu_times()[:2]) >= 0.05)   # calls under way: its CPU counts
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        assert _wait_for(lambda: shm_mappings(server.pid) == 0 and open_fds(server.pid) == fds_before)

        # 4. and the next one again
        code, out, err = run(_client(transport, address, folder, 200))
        assert code == 0 and out["ok"] == 202, err

        server.send_signal(signal.SIGTERM)
        out_text, err_text = server.communicate(timeout=20)
        summary = json.loads([x for x in out_text.splitlines() if x.startswith("{")][-1])
        assert server.returncode == 0
        assert summary["sessions"] == 4
        assert summary["sessions_closed_in_order"] == 2          # the two healthy clients said goodbye
        assert summary["sessions_peer_died"] == 2
        assert summary["sessions_peer_died_mid_request"] >= 1    # the cut-off request at least
        assert summary["failed_requests"] >= 1
        assert "the client vanished in the middle of a request" in err_text
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        shutil.rmtree(folder, ignore_errors=True)
