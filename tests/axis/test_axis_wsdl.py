"""GET /axis?wsdl serves the contract file itself, with soap:address naming the endpoint the
client used: http://<Host header>/axis — so through HAProxy it names the proxy."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from axis.axistools import get
from testbed import contract

LOCATION = re.compile(rb'(<soap:address\s+location=")([^"]*)(")')


def location(body: bytes) -> str:
    root = ET.fromstring(body)
    addr = root.find(".//{http://schemas.xmlsoap.org/wsdl/soap/}address")
    return addr.get("location")


def test_wsdl_names_the_host_and_port_the_client_used(axis_server):
    r = get(axis_server.port, "/axis?wsdl")
    assert r.status == 200 and r.headers["content-type"].startswith("text/xml")
    assert location(r.body) == f"http://127.0.0.1:{axis_server.port}/axis"


@pytest.mark.parametrize("host", ["127.0.0.1:8082", "soap.example.org", "[::1]:9000"])
def test_wsdl_address_follows_a_custom_host_header(axis_server, host):
    r = get(axis_server.port, "/axis?wsdl", headers={"Host": host})
    assert r.status == 200
    assert location(r.body) == f"http://{host}/axis"


def test_wsdl_is_the_contract_file_except_for_the_address(axis_server):
    served = get(axis_server.port, "/axis?wsdl", headers={"Host": "127.0.0.1:8082"}).body
    original = contract.WSDL.read_bytes()
    assert LOCATION.sub(rb"\1X\3", served) == LOCATION.sub(rb"\1X\3", original)


def test_wsdl_query_is_case_insensitive(axis_server):
    r = get(axis_server.port, "/axis?WSDL")
    assert r.status == 200 and b"TestbedService" in r.body


def test_get_without_wsdl_is_refused_not_a_listing_page(axis_server):
    r = get(axis_server.port, "/axis")
    assert r.status == 405
    assert b"<html" not in r.body.lower()


def test_health_answers_ok(axis_server):
    r = get(axis_server.port, "/health")
    assert (r.status, r.body.strip()) == (200, b"ok")
