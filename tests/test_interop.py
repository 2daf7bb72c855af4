"""Every client × every service × every operation × payload sizes, through HAProxy:
counts and checksums agree with the contract's reference, echoInts returns the input."""
from __future__ import annotations

import pytest

from clients import CLIENTS, call, expected
from testbed import contract

pytestmark = pytest.mark.stack
SIZES = (0, 1, 1000, 100000)
CASES = [(op, n) for op in contract.OPERATIONS for n in (SIZES if op in contract.KIND_OF else (0,))]


@pytest.mark.parametrize("service", ["axis", "gsoap"])
@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("op,n", CASES, ids=[f"{op}-{n}" for op, n in CASES])
def test_clients_agree_with_the_contract_through_haproxy(stack, client, service, op, n):
    endpoint = stack.urls()[service]
    r = call(client, endpoint, op, n, seed=7)
    assert r["exit"] == 0, r
    if op in contract.SEND_OPERATIONS:
        assert (r["count"], r["checksum"]) == expected(op, n, seed=7)
    elif op == "echoInts":
        assert r["count"] == n and r["echo_equal"] is True
    elif op == "work":
        assert r["work"]["implementation"] == service and r["work"]["pid"] > 0


@pytest.mark.parametrize("service", ["axis", "gsoap"])
def test_int_buffer_and_int_array_have_the_same_checksum(stack, service):
    endpoint = stack.urls()[service]
    a = call("gsoap", endpoint, "sendInts", 1000, seed=3)
    b = call("gsoap", endpoint, "sendIntBuffer", 1000, seed=3)
    assert (a["count"], a["checksum"]) == (b["count"], b["checksum"]) == expected("sendInts", 1000, 3)


@pytest.mark.parametrize("service", ["axis", "gsoap"])
def test_served_wsdl_names_the_endpoint_it_was_fetched_from(stack, service):
    import requests
    endpoint = stack.urls()[service]
    r = requests.get(endpoint + "?wsdl", timeout=10)
    assert r.status_code == 200
    assert f'location="{endpoint}"' in r.text
    assert "http://soaptestbed.org/contract/v1" in r.text
