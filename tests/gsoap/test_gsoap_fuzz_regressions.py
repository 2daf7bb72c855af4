"""The fuzz harness's committed regression inputs (services/gsoap/fuzz/regressions: each
one connection's bytes that once made the harness fail) replayed through the real service,
in every server model: each gets an answer or a clean close, the process stays up, and a
ping is answered right after. The fuzz build replays them through the harness too
(ctest gsoap_fuzz_regressions_replay_without_a_finding)."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest

from gsoap.gsoap_http import TIMEOUT, ping_works, read_response

REGRESSIONS = Path(__file__).resolve().parents[2] / "services" / "gsoap" / "fuzz" / "regressions"
INPUTS = sorted(p for p in REGRESSIONS.iterdir() if p.is_file() and not p.name.startswith("."))


def test_there_are_regression_inputs():
    assert INPUTS, f"no files in {REGRESSIONS}"


@pytest.mark.parametrize("path", INPUTS, ids=[p.name for p in INPUTS])
def test_fuzz_regression_input_is_answered_and_the_service_survives(gsoap_server, path):
    with socket.create_connection(("127.0.0.1", gsoap_server.port), timeout=TIMEOUT) as s:
        s.sendall(path.read_bytes())
        s.shutdown(socket.SHUT_WR)          # the harness's connection ends after its bytes
        try:
            r = read_response(s)
            assert 200 <= r.status < 600
        except ConnectionError:
            pass                            # closed without an answer: fine for non-HTTP bytes
    assert gsoap_server.proc.alive()
    assert ping_works(gsoap_server.port)
