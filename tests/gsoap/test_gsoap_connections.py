"""Connections: many calls over parallel kept-alive connections succeed in every server
model; one connection carries many requests (keep-alive), also when they are pipelined;
an idle kept-alive connection does not stop the pool model from serving others."""
from __future__ import annotations

import socket

import pytest

from gsoap.gsoap_http import PING, Reader, call, envelope, post_bytes, read_response
from testbed import contract


def keep_alive_post(body: bytes) -> bytes:
    return post_bytes(body).replace(b"Connection: close\r\n", b"")


@pytest.mark.parametrize("op,n", [("ping", 0), ("sendInts", 1000), ("echoInts", 100)])
def test_200_calls_over_8_connections_all_succeed(gsoap_server, op, n):
    r = call(gsoap_server.endpoint, op, n, 5, "--calls", "200", "--connections", "8")
    assert r["exit"] == 0, r
    assert (r["ok"], r["errors"], r["connections"]) == (200, 0, 8)
    assert r["request_bytes"] > 0 and r["response_bytes"] > 0


def test_one_connection_carries_many_requests(gsoap_server):
    with socket.create_connection(("127.0.0.1", gsoap_server.port), timeout=30) as s:
        reader = Reader(s)
        for _ in range(20):
            s.sendall(keep_alive_post(PING))
            r = reader.response()
            assert r.status == 200 and r.headers.get("connection", "").lower() == "keep-alive"


def test_pipelined_requests_are_all_answered_in_order(gsoap_server):
    bodies = [envelope(f"<tb:sendBytes><tb:items>{i}</tb:items></tb:sendBytes>") for i in range(3)]
    with socket.create_connection(("127.0.0.1", gsoap_server.port), timeout=30) as s:
        s.sendall(b"".join(keep_alive_post(b) for b in bodies))
        reader = Reader(s)
        for i in range(3):
            r = reader.response()
            assert r.status == 200
            assert f"<tb:checksum>{contract.checksum('byte', [i])}<".encode() in r.body


def test_an_idle_kept_alive_connection_does_not_block_the_pool(gsoap_pool_server):
    with socket.create_connection(("127.0.0.1", gsoap_pool_server.port), timeout=30) as idle:
        idle.sendall(keep_alive_post(PING))
        assert read_response(idle).status == 200
        # the idle connection stays open; more calls than workers still go through
        r = call(gsoap_pool_server.endpoint, "ping", 0, 1, "--calls", "100", "--connections", "20")
        assert (r["exit"], r["ok"]) == (0, 100), r


@pytest.fixture(scope="module")
def one_worker_pool():
    """A pool of one worker that would wait a minute on an idle connection; 3 requests per
    kept-alive connection."""
    from stacks import start_tier
    from testbed import procs
    server = start_tier("gsoap", "gsoap-one-worker", "/gsoap", {
        "GSOAP_SERVER_MODEL": "pool", "GSOAP_POOL_SIZE": "1", "GSOAP_RECV_TIMEOUT_S": "60",
        "GSOAP_KEEPALIVE_MAX": "3"})
    yield server
    procs.stop(server.proc)


def test_a_worker_is_not_held_by_a_connection_after_its_request(one_worker_pool):
    # gSOAP clients end the body with a CRLF after </Envelope>, inside the Content-Length
    body = PING + b"\r\n"
    with socket.create_connection(("127.0.0.1", one_worker_pool.port), timeout=10) as a, \
         socket.create_connection(("127.0.0.1", one_worker_pool.port), timeout=10) as b:
        a.sendall(keep_alive_post(body))
        assert Reader(a).response().status == 200
        # `a` stays open and idle; the only worker must be free for `b` at once
        b.sendall(keep_alive_post(body))
        assert Reader(b).response().status == 200
        a.sendall(keep_alive_post(body))
        assert Reader(a).response().status == 200


def test_the_keepalive_max_th_response_closes_the_connection(one_worker_pool):
    with socket.create_connection(("127.0.0.1", one_worker_pool.port), timeout=10) as s:
        reader = Reader(s)
        said = []
        for _ in range(3):
            s.sendall(keep_alive_post(PING))
            said.append(reader.response().headers.get("connection"))
        assert said == ["keep-alive", "keep-alive", "close"]
        assert s.recv(1) == b""   # closed by the service
