"""/invoke of the real clone.jar against the real services: every operation of both
backends answers ok with the contract's count and checksum; bad parameters get 400."""
from __future__ import annotations

import pytest

from clients import expected
from testbed import contract

CASES = [(op, n) for op in contract.OPERATIONS for n in (0, 1000)]


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
@pytest.mark.parametrize("op,n", CASES, ids=[f"{op}-{n}" for op, n in CASES])
def test_every_operation_answers_ok_with_the_contract_values(clone_singleton, backend, op, n):
    code, r = clone_singleton.invoke(backend=backend, op=op, n=n, seed=7)
    assert code == 200, r
    assert r["ok"] is True and r["backend"] == backend and r["op"] == op and r["n"] == n
    assert r["clone"]["mode"] == "singleton" and r["clone"]["pid"] == clone_singleton.proc.pid
    assert r["millis"] > 0
    if op in contract.SEND_OPERATIONS:
        assert (r["count"], r["checksum"]) == expected(op, n, seed=7)
        assert r["echo_equal"] is None and r["work"] is None
    elif op == "echoInts":
        assert r["count"] == n and r["echo_equal"] is True
        assert r["checksum"] == expected("sendInts", n, seed=7)[1]
    elif op == "work":
        assert r["work"]["implementation"] == backend and r["work"]["pid"] > 0
    else:
        assert r["count"] is None and r["checksum"] is None and r["work"] is None


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_every_mode_answers_with_the_contract_checksum(any_clone, backend):
    code, r = any_clone.invoke(backend=backend, op="sendDoubles", n=1000)
    assert code == 200, r
    assert (r["count"], r["checksum"]) == expected("sendDoubles", 1000, seed=1)


def test_defaults_are_a_ping_of_axis(clone_singleton):
    code, r = clone_singleton.get("/invoke")
    assert code == 200, r
    assert (r["backend"], r["op"], r["n"], r["seed"]) == ("axis", "ping", 0, "1")


def test_post_with_a_form_body_works_like_get(clone_singleton):
    import json
    import urllib.request
    req = urllib.request.Request(clone_singleton.base + "/invoke", data=b"backend=gsoap&op=sendInts&n=5",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        r = json.loads(resp.read())
    assert (r["count"], r["checksum"]) == expected("sendInts", 5, seed=1)


@pytest.mark.parametrize("query,reason", [
    ("backend=cxf", "axis, gsoap or own"),
    ("op=sendStrings", "expected one of ping"),
    ("op=sendInts&n=-1", "n='-1'"),
    ("op=sendInts&n=lots", "n='lots'"),
    ("op=sendInts&n=100000000", "n='100000000'"),
    ("seed=-3", "seed='-3'"),
    ("op=work&waitMicros=60000001", "waitMicros="),
    ("op=ping&cpuMicros=10", "op=work only"),
    ("op=work&wait=10", "unknown parameter 'wait'"),
])
def test_bad_parameters_get_400_with_the_reason(clone_singleton, query, reason):
    before = clone_singleton.status()["calls"]
    code, r = clone_singleton.get("/invoke?" + query)
    assert code == 400, r
    assert r["ok"] is False and reason in r["error"]
    assert clone_singleton.status()["calls"] == before, "a refused request calls no service"


def test_health_and_status_answer_without_a_call(clone_singleton):
    import urllib.request
    with urllib.request.urlopen(clone_singleton.base + "/health", timeout=10) as r:
        assert r.status == 200 and r.read().strip() == b"ok"
    s = clone_singleton.status()
    for key in ("mode", "pool_size", "wsdl_loads", "calls", "errors", "in_flight", "host", "pid", "backends"):
        assert key in s, key
    assert set(s["backends"]) == {"axis", "gsoap"}
