"""Every contract operation through the gSOAP client against the gSOAP service in each
server model (iterative, thread, pool; and pool with the generated serializers, client and
service): counts and checksums agree with the contract's reference, echoInts returns exactly
its input, work says who served it, and input the contract forbids is a Client fault."""
from __future__ import annotations

import socket

import pytest

from gsoap.gsoap_http import call, envelope, exchange, post_bytes
from testbed import contract

SIZES = (0, 1, 1000, 100000)
ARRAY_OPS = ("sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer", "echoInts")


def expected(op: str, n: int, seed: int) -> int:
    kind = contract.KIND_OF[op]
    return contract.checksum(kind, contract.items(kind, n, seed))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", ARRAY_OPS)
def test_operation_answers_the_contract_count_and_checksum(gsoap_server, op, n):
    r = call(gsoap_server.endpoint, op, n, 7, *gsoap_server.client_args)
    assert r["exit"] == 0 and r["ok"] == 1 and r["errors"] == 0, r
    assert r["count"] == n
    if op == "echoInts":
        assert r["echo_equal"] is True
    else:
        assert r["checksum"] == r["expected_checksum"] == expected(op, n, 7)


def test_ping_answers(gsoap_server):
    r = call(gsoap_server.endpoint, "ping")
    assert r["exit"] == 0 and r["ok"] == 1 and r["fault"] is None


def test_work_says_gsoap_and_the_serving_host_and_pid(gsoap_server):
    r = call(gsoap_server.endpoint, "work", 0, 1, "--cpu-us", "2000", "--wait-us", "2000")
    assert r["exit"] == 0, r
    assert r["work"] == {"implementation": "gsoap", "host": socket.gethostname(),
                         "pid": gsoap_server.proc.pid}


def test_int_buffer_and_int_array_of_the_same_ints_have_the_same_digest(gsoap_server):
    a = call(gsoap_server.endpoint, "sendInts", 1000, 3, *gsoap_server.client_args)
    b = call(gsoap_server.endpoint, "sendIntBuffer", 1000, 3, *gsoap_server.client_args)
    assert (a["count"], a["checksum"]) == (b["count"], b["checksum"]) == (1000, expected("sendInts", 1000, 3))


@pytest.mark.parametrize("body,reason", [
    ("<tb:sendIntBuffer><tb:data>AAAAAAA=</tb:data></tb:sendIntBuffer>", "multiple of 4"),
    ("<tb:work><tb:cpuMicros>-1</tb:cpuMicros><tb:waitMicros>0</tb:waitMicros></tb:work>", "60000000"),
    ("<tb:work><tb:cpuMicros>0</tb:cpuMicros><tb:waitMicros>60000001</tb:waitMicros></tb:work>", "60000000"),
], ids=["int-buffer-of-5-bytes", "negative-cpu", "wait-over-60s"])
def test_input_the_contract_forbids_is_a_client_fault(gsoap_server, body, reason):
    r = exchange(gsoap_server.port, post_bytes(envelope(body)))
    assert r.status == 500
    assert r.faultcode() == "SOAP-ENV:Client"
    assert reason in r.faultstring()
