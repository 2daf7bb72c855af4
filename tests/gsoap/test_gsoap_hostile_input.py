"""Hostile input gets a SOAP 1.1 Client fault with HTTP 500 -- or HTTP 413 for a body over
MAX_MESSAGE_BYTES -- and the service keeps serving: after each case a ping is answered, in
every server model and with both serializers of the arrays (GSOAP_SERIALIZERS)."""
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
    # gSOAP reads a connection that starts with '<' as SOAP without HTTP, and one that
    # starts with "--" as MIME: neither may skip the checks that hang on the HTTP headers
    "soap-without-http": BILLION_LAUGHS,
    "mime-without-http": b"--b\r\nContent-Type: text/xml\r\n\r\n" + PING + b"\r\n--b--\r\n",
    # gSOAP ends this comment at "-- >": the DOCTYPE after it must not pass the guard
    "doctype-after-a-comment-gsoap-ends-early": post_bytes(
        b'<?xml version="1.0"?><!-- -- > <!DOCTYPE r [<!ENTITY x "y">]> <!-- -->' + envelope("<tb:ping/>", prolog="")),
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


@pytest.fixture(scope="module", params=["tuned", "generated"])
def small_limit_server(request):
    """A pool-model service with small limits (200 kB bodies, 5000 items, depth 8, 8
    attribute names, 2 KiB of header lines) and a locked demand on every operation, once
    with each serializers."""
    from stacks import start_tier
    server = start_tier("gsoap", f"gsoap-small-limits-{request.param}", "/gsoap", {
        "GSOAP_SERVER_MODEL": "pool", "GSOAP_SERIALIZERS": request.param,
        "MAX_MESSAGE_BYTES": "200000", "MAX_XML_OCCURS": "5000",
        "MAX_XML_DEPTH": "8", "MAX_XML_ATTRIBUTES": "8", "MAX_HEADER_BYTES": "2048",
        "DEMAND_SERVICE_CPU_US": "200", "DEMAND_SERVICE_WAIT_US": "200",
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


def ping_with_attributes(k: int) -> bytes:
    """A ping whose request holds k + 2 attribute names (the Envelope declares soap and tb)."""
    return envelope("<tb:ping " + " ".join(f'a{i}="1"' for i in range(k)) + "/>")


def test_attribute_names_up_to_max_xml_attributes_are_served(small_limit_server):
    r = exchange(small_limit_server.port, post_bytes(ping_with_attributes(6)))
    assert r.status == 200 and b"pingResponse" in r.body, r.text


def test_one_attribute_name_over_max_xml_attributes_is_a_client_fault(small_limit_server):
    # a body this small is parsed in one read: the check at the end of the body refuses it
    r = exchange(small_limit_server.port, post_bytes(ping_with_attributes(7)))
    assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client", r.text
    assert "MAX_XML_ATTRIBUTES" in r.faultstring()
    assert ping_works(small_limit_server.port)


def test_an_attribute_flood_is_stopped_mid_body(gsoap_server):
    # 50 000 names, 600 KB: stopped at the first read after the 65th name
    body = envelope("<tb:ping " + " ".join(f'a{i}="x"' for i in range(50_000)) + "/>")
    r = exchange(gsoap_server.port, post_bytes(body))
    assert r.status == 500 and "MAX_XML_ATTRIBUTES" in (r.faultstring() or ""), r.text
    assert ping_works(gsoap_server.port)


def test_repeated_attribute_names_count_once(small_limit_server):
    items = "".join(f'<tb:items a="1" b="2">{i % 200}</tb:items>' for i in range(300))
    r = exchange(small_limit_server.port, post_bytes(envelope(f"<tb:sendBytes>{items}</tb:sendBytes>")))
    assert r.status == 200 and b"<tb:count>300</tb:count>" in r.body, r.text


@pytest.mark.parametrize("action,body,served", [
    ('""', PING, True),                                              # empty: the body decides
    ('"urn:ping"', PING, True),
    ("urn:ping", PING, True),                                        # unquoted
    ('"urn:launchMissiles"', PING, True),                            # not the contract's: the body decides
    ('"urn:ping"', envelope("<tb:sendInts><tb:items>1</tb:items></tb:sendInts>"), False),
    ('"urn:sendInts"', PING, False),
], ids=["empty", "matching", "unquoted", "unknown", "ping-action-sendInts-body", "sendInts-action-ping-body"])
def test_a_soapaction_naming_another_operation_than_the_body_is_a_client_fault(gsoap_server, action, body, served):
    raw = post_bytes(body).replace(b'SOAPAction: ""', b"SOAPAction: " + action.encode())
    r = exchange(gsoap_server.port, raw)
    if served:
        assert r.status == 200, r.text
    else:
        assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client", r.text
        assert "SOAPAction" in r.faultstring()
        assert ping_works(gsoap_server.port)


@pytest.mark.parametrize("text", [b"caf\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82"],
                         ids=["ff", "overlong", "surrogate", "truncated"])
def test_invalid_utf8_even_where_gsoap_skips_is_a_client_fault(gsoap_server, text):
    body = envelope("<tb:ping><note>|</note></tb:ping>").replace(b"|", text)
    r = exchange(gsoap_server.port, post_bytes(body))
    assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client", r.text
    assert "UTF-8" in r.faultstring()
    assert ping_works(gsoap_server.port)


def test_a_latin1_declared_body_is_not_checked_as_utf8(gsoap_server):
    body = envelope("<tb:ping><note>caf\xe9</note></tb:ping>",
                    prolog='<?xml version="1.0" encoding="ISO-8859-1"?>').replace("é".encode(), b"\xe9")
    assert b"caf\xe9<" in body
    r = exchange(gsoap_server.port, post_bytes(body))
    assert r.status == 200 and b"pingResponse" in r.body, r.text


def test_header_lines_over_max_header_bytes_get_431(small_limit_server):
    def headers(n):
        return "".join(f"X-Pad-{i}: {'v' * 40}\r\n" for i in range(n))
    assert exchange(small_limit_server.port, post_bytes(PING, extra=headers(20))).status == 200
    r = exchange(small_limit_server.port, post_bytes(PING, extra=headers(60)))
    assert r.status == 431 and "MAX_HEADER_BYTES" in r.text, r.text
    assert ping_works(small_limit_server.port)


def test_a_malformed_percent_escape_in_content_type_is_400(gsoap_server):
    raw = post_bytes(PING).replace(b"charset=utf-8", b'charset%"utf-8"')
    r = exchange(gsoap_server.port, raw)
    assert r.status == 400, r.text
    assert ping_works(gsoap_server.port)


@pytest.mark.parametrize("content_type", ["multipart/related; boundary=b", "application/dime",
                                          "text/xml, multipart/form-data"])
def test_a_content_type_asking_for_attachments_is_415(gsoap_server, content_type):
    raw = post_bytes(PING).replace(b"text/xml; charset=utf-8", content_type.encode())
    r = exchange(gsoap_server.port, raw)
    assert r.status == 415, r.text
    assert ping_works(gsoap_server.port)


@pytest.mark.parametrize("start", [b"--b\r\nContent-Type: text/xml\r\n\r\n", b"  --b\r\n\r\n", b"x"],
                         ids=["mime", "mime-after-blanks", "text"])
def test_a_body_that_does_not_start_like_xml_is_a_client_fault(gsoap_server, start):
    r = exchange(gsoap_server.port, post_bytes(start + PING))
    assert r.status == 500 and r.faultcode() == "SOAP-ENV:Client", r.text
    assert "does not start like XML" in r.faultstring()
    assert ping_works(gsoap_server.port)


@pytest.mark.parametrize("start", [b" \r\n\t", b"\xef\xbb\xbf"], ids=["blanks", "byte-order-mark"])
def test_blanks_or_a_byte_order_mark_before_the_xml_are_served(gsoap_server, start):
    r = exchange(gsoap_server.port, post_bytes(start + PING))
    assert r.status == 200 and b"pingResponse" in r.body, r.text


@pytest.mark.parametrize("key", [b"Content-Type", b"content\xc4type", b"Content_Type"],
                         ids=["exact", "any-byte-for-the-dash", "underscore"])
def test_header_names_are_matched_as_gsoap_matches_them(gsoap_server, key):
    # gSOAP's soap_tag_cmp lets a '-' in a name match any byte: a lookalike must be checked too
    raw = post_bytes(PING).replace(b"Content-Type: text/xml; charset=utf-8", key + b': text/xml; a%"b')
    r = exchange(gsoap_server.port, raw)
    assert r.status == 400, r.text
    assert ping_works(gsoap_server.port)
