"""Hostile input to both services, through HAProxy: each gets a SOAP Client fault or a 4xx,
never a crash or a hang — and the service answers ping correctly afterwards."""
from __future__ import annotations

import re

import pytest
import requests

from testbed import contract

pytestmark = pytest.mark.stack

NS = contract.NAMESPACE
ENV = contract.SOAP_ENV


def soap(body: str, prolog: str = '<?xml version="1.0"?>') -> bytes:
    return (f'{prolog}<soap:Envelope xmlns:soap="{ENV}" xmlns:tb="{NS}">'
            f"<soap:Body>{body}</soap:Body></soap:Envelope>").encode()


LAUGHS = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
          + "]>")

HOSTILE = {
    "truncated_xml": contract.envelope("sendInts", 100)[:-120],
    "wrong_namespace": soap('<x:ping xmlns:x="urn:not-the-contract"/>'),
    "unknown_operation": soap("<tb:launchMissiles/>"),
    "doctype_with_entities": soap("<tb:sendInts><tb:items>&lol9;</tb:items></tb:sendInts>", prolog=LAUGHS),
    "nesting_deeper_than_limit": soap("<tb:sendInts>" + "<tb:items>" * 500 + "1" + "</tb:items>" * 500
                                      + "</tb:sendInts>"),
    "not_xml_at_all": b"\x00\xff garbage \x13\x37" * 50,
    "empty_body": b"",
    "int_buffer_not_multiple_of_4": soap("<tb:sendIntBuffer><tb:data>AQID</tb:data></tb:sendIntBuffer>"),
}


BOUNDARY = "MIMEBoundary_testbed"
MTOM_HEADERS = {"Content-Type": f'multipart/related; type="application/xop+xml"; start="<root@testbed>"; '
                                f'start-info="text/xml"; boundary="{BOUNDARY}"',
                "SOAPAction": '"urn:sendIntBuffer"'}


def mtom(root: bytes) -> bytes:
    """A multipart/related (MTOM/XOP) body: the root part, then a binary attachment whose
    bytes look like markup (a guard that read them as XML would refuse a good request)."""
    head = (f"--{BOUNDARY}\r\nContent-Type: application/xop+xml; charset=UTF-8; type=\"text/xml\"\r\n"
            f"Content-Transfer-Encoding: binary\r\nContent-ID: <root@testbed>\r\n\r\n").encode()
    part = (f"\r\n--{BOUNDARY}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Transfer-Encoding: binary\r\nContent-ID: <ints@testbed>\r\n\r\n").encode()
    return head + root + part + b"<a><!DOCTYPE x><b>" * 100 + b"\x00\x01\x02\x03" + f"\r\n--{BOUNDARY}--\r\n".encode()


XOP = ('<tb:sendIntBuffer><tb:data><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" '
       'href="cid:ints@testbed"/></tb:data></tb:sendIntBuffer>')
MTOM_HOSTILE = {
    "mtom_doctype_in_the_root_part": mtom(soap(XOP.replace("<tb:data>", "<tb:data>&lol9;"), prolog=LAUGHS)),
    "mtom_nesting_deeper_than_limit": mtom(soap("<tb:sendIntBuffer>" + "<tb:x>" * 500 + "</tb:x>" * 500
                                                + "</tb:sendIntBuffer>")),
}


def fault_code(text: str) -> str | None:
    m = re.search(r"<(?:\w+:)?faultcode[^>]*>([^<]+)<", text)
    return m.group(1).strip() if m else None


def assert_ping_ok(endpoint: str) -> None:
    r = requests.post(endpoint, data=contract.envelope("ping"), headers=contract.soap_headers("ping"), timeout=10)
    assert r.status_code == 200 and "pingResponse" in r.text, (r.status_code, r.text[:500])


@pytest.mark.parametrize("service", ["axis", "gsoap"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_gets_a_client_fault_and_the_service_survives(stack, service, case):
    endpoint = stack.urls()[service]
    op = "sendIntBuffer" if "int_buffer" in case else "sendInts"
    r = requests.post(endpoint, data=HOSTILE[case], headers=contract.soap_headers(op), timeout=30)
    if 400 <= r.status_code < 500:
        pass                                   # refused at the HTTP level: fine
    else:
        assert r.status_code == 500, (r.status_code, r.text[:500])
        code = fault_code(r.text)
        assert code is not None, f"no SOAP fault in: {r.text[:500]}"
        assert code.split(":")[-1] == "Client", f"faultcode {code} for bad input: {r.text[:500]}"
    assert "lollollol" not in r.text           # entities were never expanded
    assert_ping_ok(endpoint)


@pytest.mark.parametrize("service", ["axis", "gsoap"])
def test_body_over_the_size_limit_gets_413_and_the_service_survives(stack, service):
    endpoint = stack.urls()[service]
    limit = int(stack.cfg.knobs[f"{service.upper()}_MAX_MESSAGE_BYTES"])
    item = "<tb:items>1234567</tb:items>"
    body = soap("<tb:sendInts>" + item * (limit // len(item) + 1000) + "</tb:sendInts>")
    assert len(body) > limit
    try:
        r = requests.post(endpoint, data=body, headers=contract.soap_headers("sendInts"), timeout=60)
        assert r.status_code == 413, (r.status_code, r.text[:300])
    except requests.ConnectionError:
        pytest.fail("the connection was cut instead of answering 413")
    assert_ping_ok(endpoint)


@pytest.mark.parametrize("service", ["axis", "gsoap"])
def test_unknown_path_under_soap_frontend_is_404_with_a_reason(stack, service):
    r = requests.post(stack.urls()[service].rsplit("/", 1)[0] + "/nope", data=b"x", timeout=10)
    assert r.status_code == 404 and "/axis or /gsoap" in r.text


@pytest.mark.parametrize("service", ["axis", "gsoap"])
@pytest.mark.parametrize("case", sorted(MTOM_HOSTILE))
def test_hostile_mtom_root_part_gets_a_client_fault_and_the_service_survives(stack, service, case):
    endpoint = stack.urls()[service]
    r = requests.post(endpoint, data=MTOM_HOSTILE[case], headers=MTOM_HEADERS, timeout=30)
    if not 400 <= r.status_code < 500:
        assert r.status_code == 500 and (fault_code(r.text) or "").split(":")[-1] == "Client", \
            (r.status_code, r.text[:500])
    assert "lollollol" not in r.text
    assert_ping_ok(endpoint)


@pytest.mark.parametrize("service", ["axis", "gsoap"])
def test_an_mtom_request_whose_attachment_looks_like_markup_is_served(stack, service):
    r = requests.post(stack.urls()[service], data=mtom(soap(XOP)), headers=MTOM_HEADERS, timeout=30)
    data = b"<a><!DOCTYPE x><b>" * 100 + b"\x00\x01\x02\x03"
    assert r.status_code == 200, (r.status_code, r.text[:500])
    assert f"checksum>{contract.fnv1a(data)}<" in r.text and f"count>{len(data) // 4}<" in r.text

