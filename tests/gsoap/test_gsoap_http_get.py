"""HTTP GET on the gSOAP service: /health for probes, <endpoint>?wsdl for clients -- with
the address it was fetched from, so through a proxy it names the proxy -- and a 404 with a
reason for anything else. zeep can load the served WSDL and call the service with it."""
from __future__ import annotations

import re

import pytest

from gsoap.gsoap_http import get
from testbed import contract


def address(wsdl: str) -> str:
    m = re.search(r'<soap:address location="([^"]*)"', wsdl)
    assert m, "no soap:address in the served WSDL"
    return m.group(1)


@pytest.mark.parametrize("path", ["/health", "/gsoap/health"])
def test_health_answers_200_ok_text(gsoap_server, path):
    r = get(gsoap_server.port, path)
    assert (r.status, r.body) == (200, b"ok")
    assert r.headers["content-type"].startswith("text/plain")


def test_wsdl_names_the_endpoint_it_was_fetched_from(gsoap_server):
    r = get(gsoap_server.port, "/gsoap?wsdl")
    assert r.status == 200 and r.headers["content-type"].startswith("text/xml")
    assert address(r.text) == f"http://127.0.0.1:{gsoap_server.port}/gsoap"
    assert contract.NAMESPACE in r.text and "<wsdl:definitions" in r.text


def test_wsdl_through_a_proxy_names_the_proxy(gsoap_server):
    r = get(gsoap_server.port, "/gsoap?wsdl", host="127.0.0.1:8082")
    assert address(r.text) == "http://127.0.0.1:8082/gsoap"


def test_wsdl_is_the_contract_apart_from_the_address(gsoap_server):
    served = get(gsoap_server.port, "/any/path?wsdl").text
    original = contract.WSDL.read_text()
    assert address(served) == f"http://127.0.0.1:{gsoap_server.port}/any/path"
    assert served.replace(address(served), "X") == original.replace(address(original), "X")


def test_other_get_is_404_with_a_reason(gsoap_server):
    r = get(gsoap_server.port, "/gsoap")
    assert r.status == 404 and "wsdl" in r.text


def test_zeep_loads_the_served_wsdl_and_calls_the_service(gsoap_server):
    import zeep
    from zeep.transports import Transport
    transport = Transport(timeout=30, operation_timeout=60)
    try:
        svc = zeep.Client(gsoap_server.endpoint + "?wsdl", transport=transport).service
        svc.ping()
        items = contract.items("int", 5, 1)
        r = svc.sendInts(items=items)
        assert (r.count, r.checksum) == (5, contract.checksum("int", items))
        assert list(svc.echoInts(items=items)) == items
    finally:
        transport.session.close()  # the iterative model serves one connection at a time
