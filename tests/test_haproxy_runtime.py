"""HAProxy's runtime API client (cli/testbed/haproxy/config.py Runtime) against a fake stats socket:
right after a reload the old worker, soft-stopping, may still answer a command."""
from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from testbed.haproxy.config import HaproxyError
from testbed.haproxy.runtime import Runtime


class FakeSocket:
    """A unix socket that answers each connection with the next of `answers` (the last repeats)."""

    def __init__(self, path: Path, answers: list[str]):
        self.answers, self.commands = answers, []
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(str(path))
        self.srv.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.srv.accept()
            except OSError:
                return
            with conn:
                self.commands.append(conn.recv(4096).decode().strip())
                conn.sendall(self.answers[min(len(self.commands), len(self.answers)) - 1].encode())


@pytest.fixture
def sock_path(tmp_path):
    path = Path("/tmp") / f"tb-rt-{tmp_path.name[-20:]}.sock"     # unix socket paths are short
    yield path
    path.unlink(missing_ok=True)


def test_a_drain_answered_by_the_old_worker_is_asked_again_until_the_new_one_takes_it(sock_path):
    fake = FakeSocket(sock_path, ["Proxy is disabled.\n", "Proxy is disabled.\n", "\n"])
    Runtime(sock_path).set_state("gsoap", "gsoap2", "drain")
    assert fake.commands == ["set server gsoap/gsoap2 state drain"] * 3


def test_a_proxy_that_stays_disabled_is_an_error_after_the_settle_time(sock_path):
    FakeSocket(sock_path, ["Proxy is disabled.\n"])
    with pytest.raises(HaproxyError, match="Proxy is disabled"):
        Runtime(sock_path).set_state("gsoap", "gsoap2", "drain", settle=0.5)


def test_any_other_answer_is_an_error_at_once(sock_path):
    fake = FakeSocket(sock_path, ["No such server.\n"])
    with pytest.raises(HaproxyError, match="No such server"):
        Runtime(sock_path).set_state("gsoap", "gsoap9", "drain")
    assert len(fake.commands) == 1
