"""Hostile SOAP input (docs/hostile-input.md) to both services, directly and through HAProxy's
soap entry: every input of tests/hostile/inputs.py -- attribute flood, billion laughs,
external entities by file and by URL, 100 000-deep nesting, 100 MB bodies, an array over
MAX_XML_OCCURS, truncated, wrong namespace, invalid UTF-8, SOAPAction mismatch, oversized
headers, ... -- gets a 4xx or a SOAP Client fault (never a 200, a hang, a reset or a
crash); nothing connects to the external entity's URL; the service's peak RSS during the
input stays under a generous bound; and the service answers a ping right after.

Time and memory per input are measured, not asserted: tests/hostile/hostile_bench.py."""
from __future__ import annotations

import pytest

from hostile import inputs
from soapwire import Reply, stream_exchange
from testbed import contract, procs

pytestmark = [pytest.mark.stack, pytest.mark.own_stack]    # services and a stack with small limits

OCCURS, LIMITS = inputs.OCCURS, inputs.SERVICE_LIMITS
# Growth of the service's RSS during one input (peak minus before). Generous: the benchmark
# measured at most ~100 MiB for gSOAP (decoding a 64 MiB chunked body) and ~120 MiB for
# Axis2 (its heap, capped by -Xmx512m); unbounded buffering of 100 MB would cross these.
RSS_GROWTH_BOUND_MIB = {"gsoap": 512, "gsoap-generated": 512, "axis": 1024}
# where each input goes: both services directly and through HAProxy, and directly to a second
# gSOAP service with the generated serializers of the arrays (the stack's has the tuned ones)
TARGETS = [("direct", "axis"), ("direct", "gsoap"), ("direct", "gsoap-generated"),
           ("haproxy", "axis"), ("haproxy", "gsoap")]


@pytest.fixture(scope="module")
def fetch_listener():
    listener = inputs.NoFetchListener()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def direct_services():
    """A gSOAP pool service (tuned serializers), another with the generated ones, and an
    Axis2 service on free loopback ports."""
    from stacks import start_tier
    started = {}
    try:
        started["gsoap"] = start_tier("gsoap", "hostile-gsoap", "/gsoap", {"GSOAP_SERVER_MODEL": "pool",
                                                                           "GSOAP_SERIALIZERS": "tuned", **LIMITS})
        started["gsoap-generated"] = start_tier("gsoap", "hostile-gsoap-generated", "/gsoap", {
            "GSOAP_SERVER_MODEL": "pool", "GSOAP_SERIALIZERS": "generated", **LIMITS})
        started["axis"] = start_tier("axis", "hostile-axis", "/axis", LIMITS)
        yield started
    finally:
        for server in started.values():
            procs.stop(server.proc)


@pytest.fixture(scope="module")
def hostile_stack():
    """HAProxy with one axis and one gsoap replica, the same limits, private ports."""
    from stacks import make_stack_config
    from testbed.stacks.local import LocalStack
    knobs = {f"{s}_{k}": v for s in ("AXIS", "GSOAP") for k, v in LIMITS.items()}
    st = LocalStack(make_stack_config("hostile", knobs), log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"axis": 1, "gsoap": 1})
    except Exception as e:
        st.down()
        pytest.fail(f"stack did not start: {e}")
    yield st
    st.down()


def target_of(request, route: str, service: str, fetch_url: str) -> tuple[inputs.Target, procs.Proc]:
    """Where to send, and the service process that will parse it."""
    if route == "direct":
        server = request.getfixturevalue("direct_services")[service]
        return inputs.Target("127.0.0.1", server.port, server.endpoint.split(str(server.port), 1)[1], OCCURS,
                             fetch_url), server.proc
    st = request.getfixturevalue("hostile_stack")
    proc = st.load()["replicas"][service][0]["proc"]
    return inputs.Target("127.0.0.1", st.cfg.soap_port, f"/{service}", OCCURS, fetch_url), proc


def ping(t: inputs.Target):
    body = contract.envelope("ping")
    return stream_exchange(t.host, t.port, inputs.head(t, "ping", len(body)), [body], timeout=30)


@pytest.mark.parametrize("route,service", TARGETS, ids=[f"{s}-{r}" for r, s in TARGETS])
@pytest.mark.parametrize("case", list(inputs.CASES))
def test_hostile_input_is_refused_and_the_service_survives(request, fetch_listener, case, service, route):
    target, proc = target_of(request, route, service, fetch_listener.url)
    pid = proc.pid
    before = inputs.rss_mib(pid)
    peak_known = inputs.reset_peak(pid)
    req = inputs.CASES[case].build(target)
    try:
        r = stream_exchange(target.host, target.port, req.head, req.body, timeout=120)
    except (OSError, ConnectionError) as e:
        pytest.fail(f"no answer to {case}: {e!r}")
    assert inputs.verdict(r) is None, inputs.verdict(r)
    assert inputs.leaked(r) is None, inputs.leaked(r)
    assert fetch_listener.connections() == 0, "the service connected to the external entity's URL"
    assert proc.alive(), f"the {service} process {pid} is gone"
    growth = (inputs.peak_mib(pid) if peak_known else inputs.rss_mib(pid)) - before
    assert growth < RSS_GROWTH_BOUND_MIB[service], f"RSS grew by {growth:.0f} MiB during {case}"
    after = ping(target)
    assert after.status == 200 and b"pingResponse" in after.body, (after.status, after.text[:300])


def test_unknown_path_under_soap_frontend_is_404_with_a_reason(hostile_stack):
    import requests
    r = requests.post(f"http://127.0.0.1:{hostile_stack.cfg.soap_port}/nope", data=b"x", timeout=10)
    assert r.status_code == 404 and "/axis, /gsoap or /own/" in r.text


def test_the_no_fetch_listener_counts_a_connection():
    """The no-fetch check can fail: a connection to its URL is counted."""
    import socket
    import time
    listener = inputs.NoFetchListener()
    try:
        port = int(listener.url.split(":")[2].split("/")[0])
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        deadline = time.monotonic() + 5
        while listener.connections() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert listener.connections() == 1
    finally:
        listener.close()


# MTOM (multipart/related with an XOP attachment): Axis2 accepts it; gSOAP refuses it with
# 415 by default (its MIME parser has undefined behaviour on hostile part headers,
# docs/fuzzing.md) and accepts it with GSOAP_ACCEPT_MTOM=1, as the serialization study's
# own services do. Where accepted, only the root part is XML: its DTDs and deep nesting are
# refused, while attachment bytes that look like markup are served.

BOUNDARY = "MIMEBoundary_testbed"
MTOM_HEADERS = {"Content-Type": f'multipart/related; type="application/xop+xml"; start="<root@testbed>"; '
                                f'start-info="text/xml"; boundary="{BOUNDARY}"',
                "SOAPAction": '"urn:sendIntBuffer"'}
ATTACHMENT = b"<a><!DOCTYPE x><b>" * 100 + b"\x00\x01\x02\x03"
XOP = ('<tb:sendIntBuffer><tb:data><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" '
       'href="cid:ints@testbed"/></tb:data></tb:sendIntBuffer>')


def mtom(root: bytes) -> bytes:
    """The root part, then a binary attachment whose bytes look like markup (a guard that
    read them as XML would refuse a good request)."""
    head = (f"--{BOUNDARY}\r\nContent-Type: application/xop+xml; charset=UTF-8; type=\"text/xml\"\r\n"
            f"Content-Transfer-Encoding: binary\r\nContent-ID: <root@testbed>\r\n\r\n").encode()
    part = (f"\r\n--{BOUNDARY}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Transfer-Encoding: binary\r\nContent-ID: <ints@testbed>\r\n\r\n").encode()
    return head + root + part + ATTACHMENT + f"\r\n--{BOUNDARY}--\r\n".encode()


MTOM_HOSTILE = {
    "mtom_doctype_in_the_root_part": mtom(inputs.envelope(XOP.replace("<tb:data>", "<tb:data>&lol9;"),
                                                          prolog=inputs.laughs())),
    "mtom_nesting_deeper_than_limit": mtom(inputs.envelope("<tb:sendIntBuffer>" + "<tb:x>" * 500
                                                           + "</tb:x>" * 500 + "</tb:sendIntBuffer>")),
}


def mtom_target(request, which: str) -> inputs.Target:
    """axis and gsoap: direct_services; gsoap-mtom: the session's gSOAP service with MTOM on."""
    if which == "gsoap-mtom":
        server, path = request.getfixturevalue("gsoap_mtom_server"), "/gsoap"
    else:
        server, path = request.getfixturevalue("direct_services")[which], f"/{which}"
    return inputs.Target("127.0.0.1", server.port, path, OCCURS)


def post_mtom(t: inputs.Target, body: bytes) -> Reply:
    import requests
    r = requests.post(f"http://{t.host}:{t.port}{t.path}", data=body, headers=MTOM_HEADERS, timeout=30)
    return Reply(r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.content)


def assert_ping_ok(t: inputs.Target) -> None:
    after = ping(t)
    assert after.status == 200 and b"pingResponse" in after.body, (after.status, after.text[:300])


@pytest.mark.parametrize("which", ["axis", "gsoap-mtom"])
@pytest.mark.parametrize("case", sorted(MTOM_HOSTILE))
def test_hostile_mtom_root_part_gets_a_client_fault_and_the_service_survives(request, which, case):
    target = mtom_target(request, which)
    r = post_mtom(target, MTOM_HOSTILE[case])
    assert inputs.verdict(r) is None, inputs.verdict(r)
    assert inputs.leaked(r) is None, inputs.leaked(r)
    assert_ping_ok(target)


@pytest.mark.parametrize("which", ["axis", "gsoap-mtom"])
def test_an_mtom_request_whose_attachment_looks_like_markup_is_served(request, which):
    r = post_mtom(mtom_target(request, which), mtom(inputs.envelope(XOP)))
    assert r.status == 200, (r.status, r.text[:500])
    assert f"checksum>{contract.fnv1a(ATTACHMENT)}<" in r.text and f"count>{len(ATTACHMENT) // 4}<" in r.text


def test_gsoap_refuses_mtom_with_415_unless_accept_mtom_is_on(request):
    target = mtom_target(request, "gsoap")
    r = post_mtom(target, mtom(inputs.envelope(XOP)))
    assert r.status == 415, (r.status, r.text[:500])
    assert_ping_ok(target)
