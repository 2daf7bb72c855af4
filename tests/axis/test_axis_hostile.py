"""Hostile input straight to the Axis2 service (raw HTTP): every case is answered with a
SOAP 1.1 Client fault and HTTP 500 (or a 4xx), never a Server fault, a crash or a hang —
and the service still answers ping correctly afterwards."""
from __future__ import annotations

import pytest

from axis.axistools import ping, post, soap
from axis.conftest import SMALL_MAX_MESSAGE_BYTES, SMALL_MAX_XML_OCCURS
from testbed import contract

XML = {"Content-Type": "text/xml; charset=utf-8"}


def action(op: str) -> dict[str, str]:
    return contract.soap_headers(op)


LAUGHS = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
          + "]>")

# name -> (body, headers)
HOSTILE = {
    "truncated_xml": (contract.envelope("sendInts", 100)[:-120], action("sendInts")),
    "payload_in_a_wrong_namespace": (soap('<x:sendInts xmlns:x="urn:not-the-contract"><x:items>1</x:items></x:sendInts>'),
                                     action("sendInts")),
    "wrong_namespace_without_soapaction": (soap('<x:ping xmlns:x="urn:not-the-contract"/>'), XML),
    "unknown_operation": (soap("<tb:launchMissiles/>"), action("launchMissiles")),
    "unknown_element_under_a_known_soapaction": (soap("<tb:launchMissiles/>"), action("sendInts")),
    "soapaction_and_body_disagree": (contract.envelope("sendInts", 3), action("ping")),
    "doctype_with_entities": (soap("<tb:sendInts><tb:items>&lol9;</tb:items></tb:sendInts>", prolog=LAUGHS),
                              action("sendInts")),
    "nesting_deeper_than_64_in_the_header": (soap("<tb:ping/>", header="<a>" * 100 + "</a>" * 100), action("ping")),
    "nesting_deeper_than_64_in_the_body": (soap("<tb:sendInts>" + "<tb:items>" * 500 + "1" + "</tb:items>" * 500
                                                + "</tb:sendInts>"), action("sendInts")),
    "garbage": (b"\x00\xff garbage \x13\x37" * 50, action("sendInts")),
    "empty_post": (b"", action("ping")),
    "not_a_soap_envelope": (b'<?xml version="1.0"?><hello/>', action("ping")),
    "soap_1_2_envelope_as_text_xml": (b'<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body>'
                                      b'<tb:ping xmlns:tb="http://soaptestbed.org/contract/v1"/></e:Body></e:Envelope>',
                                      action("ping")),
    "int_that_does_not_parse": (soap("<tb:sendInts><tb:items>12x</tb:items></tb:sendInts>"), action("sendInts")),
    "unsigned_byte_out_of_range": (soap("<tb:sendBytes><tb:items>300</tb:items></tb:sendBytes>"), action("sendBytes")),
    "int_buffer_not_multiple_of_4": (soap("<tb:sendIntBuffer><tb:data>AQID</tb:data></tb:sendIntBuffer>"),
                                     action("sendIntBuffer")),
    "int_buffer_not_base64": (soap("<tb:sendIntBuffer><tb:data>!!!!</tb:data></tb:sendIntBuffer>"),
                              action("sendIntBuffer")),
    "work_with_negative_cpu": (contract.envelope("work", cpu_us=-1), action("work")),
    "no_content_type": (contract.envelope("ping"), {"SOAPAction": '"urn:ping"'}),
    "form_content_type": (b"a=1&b=2", {"Content-Type": "application/x-www-form-urlencoded"}),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_gets_a_client_fault_and_ping_still_works(axis_server, case):
    body, headers = HOSTILE[case]
    r = post(axis_server.port, body, headers)
    if 400 <= r.status < 500:
        assert r.fault_code in (None, "Client"), r.text
    else:
        assert r.status == 500, (r.status, r.text[:500])
        assert r.fault_code == "Client", r.text[:800]
    after = ping(axis_server.port)
    assert after.status == 200 and b"pingResponse" in after.body, after.text


def test_a_fault_reason_says_what_was_wrong_without_a_stack_trace(axis_server):
    body, headers = HOSTILE["doctype_with_entities"]
    r = post(axis_server.port, body, headers)
    assert "DOCTYPE is not allowed" in r.text
    assert "at org.apache" not in r.text and "Exception:" not in r.text


def test_entities_are_never_expanded(axis_server):
    body, headers = HOSTILE["doctype_with_entities"]
    r = post(axis_server.port, body, headers)
    assert b"lollol" not in r.body


def test_a_declared_body_over_max_message_bytes_gets_413(axis_small_limits):
    r = post(axis_small_limits.port, b"x" * (SMALL_MAX_MESSAGE_BYTES + 1), action("sendInts"))
    assert r.status == 413 and b"MAX_MESSAGE_BYTES" in r.body
    assert ping(axis_small_limits.port).status == 200


def test_a_chunked_body_over_max_message_bytes_is_cut_off_with_413(axis_small_limits):
    body = soap("<tb:sendInts><tb:items>1</tb:items>" + " " * (2 * SMALL_MAX_MESSAGE_BYTES) + "</tb:sendInts>")
    r = post(axis_small_limits.port, body, action("sendInts"), chunk=4096)
    assert r.status == 413, (r.status, r.text[:500])
    assert ping(axis_small_limits.port).status == 200


def test_an_oversized_upload_sent_in_full_reads_413_not_a_reset(axis_small_limits):
    """http.client writes the whole body before it reads: the service drops the rest of the
    refused body instead of closing on it (which would reset the connection mid-write)."""
    import http.client
    body = soap("<tb:ping><!--" + "x" * 5_000_000 + "--></tb:ping>")
    conn = http.client.HTTPConnection("127.0.0.1", axis_small_limits.port, timeout=60)
    try:
        conn.request("POST", "/axis", body=body, headers={**XML, **action("ping")})
        r = conn.getresponse()
        assert r.status == 413 and b"MAX_MESSAGE_BYTES" in r.read()
    finally:
        conn.close()
    assert ping(axis_small_limits.port).status == 200


def test_a_chunked_body_within_max_message_bytes_is_served(axis_small_limits):
    r = post(axis_small_limits.port, contract.envelope("sendInts", 100), action("sendInts"), chunk=1024)
    assert r.status == 200 and b"<ns1:count>100</ns1:count>" in r.body.replace(b"ns2", b"ns1"), r.text


def test_more_items_than_max_xml_occurs_get_a_client_fault(axis_small_limits):
    r = post(axis_small_limits.port, contract.envelope("sendInts", SMALL_MAX_XML_OCCURS + 1), action("sendInts"))
    assert (r.status, r.fault_code) == (500, "Client"), r.text[:500]
    assert "limit" in r.text


def test_exactly_max_xml_occurs_items_are_served(axis_small_limits):
    r = post(axis_small_limits.port, contract.envelope("sendInts", SMALL_MAX_XML_OCCURS), action("sendInts"))
    assert r.status == 200, r.text[:500]


def test_the_java_client_reports_an_oversized_request_as_http_413(axis_small_limits):
    from clients import call
    r = call("axis", f"http://127.0.0.1:{axis_small_limits.port}/axis", "sendInts", 10000)
    assert (r["exit"], r["ok"], r["errors"]) == (3, 0, 1), r
    assert r["fault"].startswith("HTTP 413"), r["fault"]
