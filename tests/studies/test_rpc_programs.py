"""The RPC study's programs (studies/rpc) on every transport: the server returns what was
sent, sizes exact on the wire, every call checked -- and the check catches a server that
answers wrongly. Real processes, real sockets and shared memory; no timing is asserted."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rpcprograms import client_argv, data_lines, run, sockdir

# one worker for the RPC programs' tests (pytest -n): the Ctrl-C test checks that no /tmp/tb-rpc-*
# socket folder is left, which another test's running programs would hold
pytestmark = pytest.mark.xdist_group("rpc-programs")

RPC_CONFIGS = [("onc", "tcp"), ("onc", "unix"), ("gsoap", "tcp"), ("gsoap", "unix"), ("gsoap", "shm-spin"),
               ("gsoap", "shm-futex")]
RAW_TRANSPORTS = ["tcp", "unix", "shm-spin", "shm-futex"]
# null; empty; one byte (XDR pads it to 4); 4 KiB; 8 KiB: gSOAP's request (~195 KB of XML) is
# larger than a shared-memory ring (128 KiB), so it wraps and the writer waits for room
SIZES = [None, 0, 1, 4096, 8192]
CALLS, WARMUP = 40, 5


@pytest.fixture
def folder():
    d = Path(sockdir())
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _pad4(n: int) -> int:
    return (n + 3) // 4 * 4


@pytest.mark.parametrize("system,transport", RPC_CONFIGS, ids=[f"{s}-{t}" for s, t in RPC_CONFIGS])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: "null" if s is None else f"{s}B")
def test_every_reply_is_what_was_sent_and_every_call_is_recorded(system, transport, size, folder):
    code, out, err = run(client_argv(system, transport, size, CALLS, WARMUP, folder))
    assert code == 0, err
    assert out["checked"] == CALLS + WARMUP and out["ok"] == out["checked"] and out["mismatches"] == 0
    assert out["server"]["requests"] == CALLS + WARMUP      # the server answered each call once
    client = data_lines(folder / "client.tsv")
    assert len(client) == CALLS and all(total > 0 and 0 <= part <= total for total, part in client)
    server = data_lines(folder / "server.tsv")
    assert len(server) == CALLS + WARMUP and all(0 <= part <= span for span, part in server)
    if system == "onc":        # record mark 4 + call header 40 (+ length 4 + padded bytes); reply 4 + 24 (+ ...)
        body = 0 if size is None else 4 + _pad4(size)
        assert (out["request_bytes"], out["response_bytes"]) == (44 + body, 28 + body)
    else:                      # sendBytes: one <items> element per byte; the answer is a count and a checksum
        assert out["request_bytes"] > (size or 0) * len("<tb:items>0</tb:items>")


@pytest.mark.parametrize("transport", RAW_TRANSPORTS)
@pytest.mark.parametrize("size", [1, 4, 8192, 65536], ids=lambda s: f"{s}B")
def test_raw_pingpong_echoes_exactly_on_every_transport(transport, size, folder):
    code, out, err = run(client_argv("raw", transport, size, CALLS, WARMUP, folder))
    assert code == 0, err
    assert out["ok"] == CALLS + WARMUP and out["mismatches"] == 0
    assert (out["request_bytes"], out["response_bytes"]) == (size, size)
    assert len(data_lines(folder / "client.tsv")) == CALLS


@pytest.mark.parametrize("system,transport", [("onc", "tcp"), ("onc", "unix"), ("gsoap", "tcp"),
                                              ("gsoap", "shm-futex")])
def test_a_server_that_answers_wrongly_is_caught_on_every_call(system, transport, folder):
    code, out, err = run(client_argv(system, transport, 64, CALLS, WARMUP, folder, ["--server-extra", "--corrupt"]))
    assert code == 1
    assert out["mismatches"] == CALLS + WARMUP and out["ok"] == 0


def test_bad_arguments_name_the_flag_and_what_it_accepts(folder):
    code, _, err = run(client_argv("gsoap", "carrier-pigeon", 4, 1, 0, folder))
    assert code == 2 and "--transport: 'carrier-pigeon' is not one of tcp, unix, shm-spin, shm-futex" in err
    code, _, err = run(client_argv("raw", "tcp", 0, 1, 0, folder))
    assert code == 2 and "at least 1 byte" in err
    code, _, err = run(client_argv("onc", "tcp", 70000, 1, 0, folder))
    assert code == 2 and "--size" in err and "0..65536" in err


def test_a_server_that_does_not_start_is_reported_not_waited_for(folder):
    argv = client_argv("gsoap", "tcp", None, 1, 0, folder)
    argv[argv.index("--server") + 1] = "/bin/false"
    code, _, err = run(argv, timeout=30)
    assert code == 1 and "exited (status 1) before it reported ready" in err
