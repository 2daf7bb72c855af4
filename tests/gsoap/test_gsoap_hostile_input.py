"""Hostile input gets a SOAP 1.1 Client fault with HTTP 500 -- or HTTP 413 for a body over
MAX_MESSAGE_BYTES -- and the service keeps serving: after each case a ping is answered, in
every server model."""
from __future__ import annotations

import socket

import pytest

from gsoap.gsoap_http import PING, chunked_post, envelope, exchange, ping_works, post_bytes, read_response
from testbed import procs

BILLION_LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                             for i in range(1, 10))
                  + b"]>" + envelope("<tb:echoInts><tb:items>&lol9;</tb:items></tb:echoInts>", prolog=""))
DEEP = envelope("<tb:ping>" + "<a>" * 5000 + "</a>" * 5000 + "</tb:ping>")

CLIENT_FAULT_CASES = {
    "truncated-xml": post_bytes(PING[: len(PING) // 2]),
    "wrong-namespace": post_bytes(envelope('<x:ping xmlns:x="urn:not-the-contract"/>')),
    "unknown-operation": post_bytes(envelope("<tb:noSuchOperation/>")),
    "doctype-with-entities": post_bytes(BILLION_LAUGHS),
    "doctype-split-across-chunks": chunked_post(BILLION_LAUGHS, chunk=25),
    "nesting-deeper-than-max-xml-depth": post_bytes(DEEP),
    "garbage-bytes": post_bytes(bytes(range(256)) * 4),
    "empty-post": post_bytes(b""),
    "not-soap-xml": post_bytes(b"<?xml version='1.0'?><html><body>hello</body></html>"),
}


@pytest.mark.parametrize("case", list(CLIENT_FAULT_CASES))
def test_hostile_input_is_a_client_fault_and_ping_still_works(gsoap_server, case):
    r = exchange(gsoap_server.port, CLIENT_FAULT_CASES[case])
    assert r.status == 500, r.text
    assert r.faultcode() == "SOAP-ENV:Client", r.text
    assert ping_works(gsoap_server.port)


def test_body_cut_off_by_the_client_is_a_client_fault(gsoap_server):
    raw = post_bytes(PING, content_length=len(PING) + 100)[:-50]
    r = exchange(gsoap_server.port, raw, shutdown_write=True)
    assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client"
    assert ping_works(gsoap_server.port)


def test_declared_body_over_the_limit_is_413_before_it_is_read(gsoap_server):
    # 1 GB declared, a few bytes sent: the answer comes from the headers alone
    r = exchange(gsoap_server.port, post_bytes(b"<soap:Envelope", content_length=10**9))
    assert r.status == 413
    assert ping_works(gsoap_server.port)


def test_raw_garbage_instead_of_http_gets_an_answer_and_ping_still_works(gsoap_server):
    with socket.create_connection(("127.0.0.1", gsoap_server.port), timeout=30) as s:
        s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http at all\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        try:
            r = read_response(s)
            assert r.status >= 400
        except ConnectionError:
            pass  # closing without an answer is fine for bytes that are not HTTP
    assert ping_works(gsoap_server.port)


@pytest.fixture(scope="module")
def small_limit_server():
    """A pool-model service with small limits (200 kB bodies, 5000 items, depth 8) and a
    locked demand on every operation."""
    from stacks import start_tier
    server = start_tier("gsoap", "gsoap-small-limits", "/gsoap", {
        "GSOAP_SERVER_MODEL": "pool", "MAX_MESSAGE_BYTES": "200000", "MAX_XML_OCCURS": "5000",
        "MAX_XML_DEPTH": "8", "DEMAND_SERVICE_CPU_US": "200", "DEMAND_SERVICE_WAIT_US": "200",
        "DEMAND_SERVICE_LOCKED": "1"})
    yield server
    procs.stop(server.proc)


def test_chunked_body_over_the_limit_is_cut_off_with_413(small_limit_server):
    body = envelope("<tb:ping><!--" + "x" * 300000 + "--></tb:ping>")
    r = exchange(small_limit_server.port, chunked_post(body))
    assert r.status == 413 and r.faultcode() == "SOAP-ENV:Client"
    assert ping_works(small_limit_server.port)


def test_oversized_upload_sent_in_full_reads_413_not_a_reset(small_limit_server):
    import http.client
    body = envelope("<tb:ping><!--" + "x" * 5_000_000 + "--></tb:ping>")
    conn = http.client.HTTPConnection("127.0.0.1", small_limit_server.port, timeout=60)
    try:
        conn.request("POST", "/gsoap", body=body, headers={"Content-Type": "text/xml; charset=utf-8"})
        assert conn.getresponse().status == 413
    finally:
        conn.close()
    assert ping_works(small_limit_server.port)


@pytest.mark.parametrize("framing", [post_bytes, chunked_post], ids=["content-length", "chunked"])
def test_body_just_under_the_limit_is_served(small_limit_server, framing):
    body = envelope("<tb:sendBytes>" + "<tb:items>7</tb:items>" * 4000 + "</tb:sendBytes>")
    assert len(body) < 200000
    r = exchange(small_limit_server.port, framing(body))
    assert r.status == 200 and b"<tb:count>4000</tb:count>" in r.body


def test_more_items_than_max_xml_occurs_is_a_client_fault(small_limit_server):
    def send(n):
        body = envelope("<tb:sendBytes>" + "<tb:items>7</tb:items>" * n + "</tb:sendBytes>")
        return exchange(small_limit_server.port, post_bytes(body))
    assert send(5000).status == 200
    r = send(5001)
    assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client"
    assert ping_works(small_limit_server.port)


def test_nesting_over_the_configured_max_xml_depth_is_a_client_fault(small_limit_server):
    ok = envelope("<tb:ping>" + "<a>" * 5 + "</a>" * 5 + "</tb:ping>")     # depth 8
    deep = envelope("<tb:ping>" + "<a>" * 6 + "</a>" * 6 + "</tb:ping>")   # depth 9
    assert exchange(small_limit_server.port, post_bytes(ok)).status == 200
    r = exchange(small_limit_server.port, post_bytes(deep))
    assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client"


def test_calls_with_a_locked_service_demand_succeed(small_limit_server):
    from gsoap.gsoap_http import call
    r = call(small_limit_server.endpoint, "sendInts", 100, 1, "--calls", "40", "--connections", "4")
    assert (r["exit"], r["ok"], r["errors"]) == (0, 40, 0), r
