"""Every catalogued traceparent (traceparents.py) straight to each tier -- front, clone, axis,
gsoap -- with tracing on towards a stand-in Zipkin: a sampled context is continued (a SERVER
span of that trace, its parent the caller's id), anything else leaves no span anywhere, and what
a tier forwards (the front's call to the clone tier, the clone's SOAP call, through taps that
record their headers) is never an invalid value as it came: a sampled request forwards the
tier's own span's context, others nothing. Each tier still serves afterwards. Also: a span of an
8 KB path is stored within the byte bound."""
from __future__ import annotations

import re

import pytest

from polling import until
from stacks import start_tier
from testbed import contract, procs

from hostile_observability.tiertrace import FakeZipkin, Tap, request
from hostile_observability.traceparents import CASES, INVALID, PARENT, SAMPLED, TRACE, UNSAMPLED

pytestmark = [pytest.mark.stack, pytest.mark.own_stack]      # four tier processes of its own

TIERS = ("front", "clone", "axis", "gsoap")
VALID = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
SPAN_MAX = 2048                                    # java-common SpanBounds.SPAN_MAX
PING = contract.envelope("ping")


@pytest.fixture(scope="module")
def chain():
    """front → tap → clone → tap → gsoap | axis, each tracing to one stand-in Zipkin."""
    zipkin, started, taps = FakeZipkin(), {}, {}
    env = {"ZIPKIN_URL": zipkin.base, "TRACING": "1"}
    try:
        started["gsoap"] = start_tier("gsoap", "trace-gsoap", "/gsoap", env)
        started["axis"] = start_tier("axis", "trace-axis", "/axis", env)
        taps["gsoap"], taps["axis"] = Tap(started["gsoap"].base), Tap(started["axis"].base)
        started["clone"] = start_tier("clone", "trace-clone", "/invoke", {
            **env, "SOAP_URL_GSOAP": taps["gsoap"].base + "/gsoap", "SOAP_URL_AXIS": taps["axis"].base + "/axis"})
        taps["clone"] = Tap(started["clone"].base)
        started["front"] = start_tier("front", "trace-front", "/seg/5", {**env, "CLONES_URL": taps["clone"].base})
        yield zipkin, started, taps
    finally:
        for server in started.values():
            procs.stop(server.proc)
        for t in [*taps.values(), zipkin]:
            t.stop()


def send(tier: str, server, traceparents: list[str], path: str | None = None):
    if tier == "front":
        return request(server.port, "GET", path or "/seg/5?backend=gsoap&op=ping&n=0", traceparents)
    if tier == "clone":
        return request(server.port, "GET", "/invoke?backend=gsoap&op=ping&n=0", traceparents)
    return request(server.port, "POST", f"/{tier}", traceparents, PING,
                   ("Content-Type: text/xml; charset=utf-8", 'SOAPAction: "urn:ping"'))


def case_trace(tier: str, i: int) -> str:
    """A trace id of this tier's case i, in place of the catalogue's: its spans are told apart."""
    return f"{TIERS.index(tier) + 1:02x}{i:04x}" + TRACE[6:]


def values_of(tier: str, i: int, headers: list[str]) -> list[str]:
    t = case_trace(tier, i)
    return [h.replace(TRACE, t).replace(TRACE.upper(), t.upper()) for h in headers]


DOWNSTREAM = {"front": "clone", "clone": "gsoap"}     # whose tap sees what the tier forwards


def test_every_catalogued_traceparent_gets_its_outcome_at_every_tier(chain):
    zipkin, started, taps = chain
    forwarded: dict[tuple[str, int], list[list[str]]] = {}
    for tier in TIERS:
        for i, (label, headers, _) in enumerate(CASES):
            tap = taps.get(DOWNSTREAM.get(tier, ""))
            before = tap.count() if tap else 0
            try:
                send(tier, started[tier], values_of(tier, i, headers))
            except (OSError, ConnectionError) as e:
                pytest.fail(f"{tier}: no answer to {label!r}: {e!r}")
            if tap:
                forwarded[tier, i] = tap.since(before)
    sampled = {(t, i) for t in TIERS for i, (_, _, exp) in enumerate(CASES) if exp == SAMPLED}
    until("every tier has exported the spans of its sampled cases",
          lambda: all(any(s.get("parentId") == PARENT for s in zipkin.of(t, case_trace(t, i))) for t, i in sampled),
          timeout=60)
    wanted = {case_trace(t, i) for t, i in sampled}
    strays = [s for s in zipkin.of() if s.get("traceId") not in wanted]
    assert not strays, f"spans of contexts that are not sampled and valid: {strays[:3]}"
    for tier in TIERS:
        for i, (label, headers, expected) in enumerate(CASES):
            trace, values = case_trace(tier, i), values_of(tier, i, headers)
            mine = [s for s in zipkin.of(tier, trace) if s.get("parentId") == PARENT]
            if expected == SAMPLED:
                assert len(mine) == 1 and mine[0].get("kind") == "SERVER", (tier, label, mine)
            else:
                assert not zipkin.of(None, trace), (tier, label, "recorded")
            for call in forwarded.get((tier, i), []):
                assert not set(call) & set(values), (tier, label, "forwarded as it came", call)
                if expected == SAMPLED:
                    assert len(call) == 1 and VALID.match(call[0]) and call[0][3:35] == trace \
                        and call[0][36:52] != PARENT, (tier, label, call)
                else:       # nothing, or a context of its own (a new trace)
                    assert expected in (INVALID, UNSAMPLED) and (not call or (
                        len(call) == 1 and VALID.match(call[0]) and call[0][3:35] != trace)), (tier, label, call)
    for tier in TIERS:        # still serving, and a plain request still untraced
        r = send(tier, started[tier], [])
        assert r.status == 200, (tier, r.status, r.text[:300])
        assert started[tier].proc.alive()


def test_a_span_of_an_8_kb_path_is_stored_within_the_byte_bound(chain):
    zipkin, started, _ = chain
    trace = "f" * 8 + TRACE[8:]
    path = "/seg/5/" + "p" * (7 * 1024) + "?backend=gsoap&op=ping&n=0"     # Tomcat's 8 KB: request line and headers
    r = send("front", started["front"], [f"00-{trace}-{PARENT}-01"], path)
    assert r.status in (200, 404), (r.status, r.text[:300])
    until("the front exported the span", lambda: zipkin.of("front", trace), timeout=60)
    (span,) = [s for s in zipkin.of("front", trace) if s.get("parentId") == PARENT]
    assert span["_bytes"] <= SPAN_MAX, span["_bytes"]
    assert len(span["name"].encode()) <= 128 and span["name"].endswith("...[truncated]")
    assert span["tags"]["http.path"].startswith("/seg/5/ppp") and len(span["tags"]["http.path"].encode()) <= 256
