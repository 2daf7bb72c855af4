"""HAProxy's trace rule against every adversarial traceparent of the catalogue (traceparents.py),
through each entry (web, clones, soap) of a real HAProxy with the testbed's tracing config: what
the tier behind receives, and whether HAProxy logged a line that became a span. A valid sampled
context is traced (HAProxy's own span id forwarded, its span in Zipkin); a valid unsampled one
passes unchanged; anything else is removed with tracestate and replaced by a new unsampled
context, and leaves no span. Then the rate cap: over TRACE_MAX_RATE a sampled request is
forwarded with the sampled flag cleared and not logged."""
from __future__ import annotations

import re
import shutil

import pytest

from testbed.observe import tracing

from polling import until

from hostile_observability.traceparents import CASES, INVALID, PARENT, SAMPLED, TRACE, UNSAMPLED
from hostile_observability.tracehaproxy import BACKEND_OF, ENTRIES, TracedHAProxy, relay_pids

pytestmark = pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy not installed")
W3C = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")


@pytest.fixture(scope="module")
def hp(tmp_path_factory):
    with TracedHAProxy(tmp_path_factory.mktemp("hpt")) as h:
        yield h


@pytest.fixture(scope="module")
def outcomes(hp):
    """Every case through every entry, once: {(label, entry): (status, received headers)}."""
    return {(label, entry): hp.send(entry, values) for label, values, _ in CASES for entry in ENTRIES}


def _fresh(value: str, sent: list[str]) -> bool:
    """A new, valid, unsampled context that owes nothing to what was sent."""
    m = W3C.fullmatch(value)
    return bool(m) and m.group(3) == "00" and m.group(1).strip("0") and m.group(2).strip("0") \
        and not any(m.group(1) in s or m.group(2) in s for s in sent)


@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize("label,values,expected", CASES, ids=[c[0] for c in CASES])
def test_each_header_is_forwarded_only_as_the_rule_says(outcomes, entry, label, values, expected):
    status, got = outcomes[(label, entry)]
    if expected == INVALID and status == 400:
        return                    # HAProxy refused the request itself: nothing forwarded at all
    assert status == 200, f"{label} through {entry}: HTTP {status}"
    forwarded = got["traceparent"]
    if expected == SAMPLED:
        (value,) = forwarded
        m = W3C.fullmatch(value)
        assert m and m.group(1) == TRACE and m.group(3) == "01", value
        assert m.group(2) not in (PARENT, "0" * 16), "HAProxy's own span id is the parent of the tier behind"
        assert got["tracestate"] == ["vendor=kept"]
    elif expected == UNSAMPLED:
        assert forwarded == values and got["tracestate"] == ["vendor=kept"]
    elif not values:
        assert forwarded == [] and got["tracestate"] == ["vendor=kept"]    # nothing to replace
    else:
        (value,) = forwarded
        assert _fresh(value, values), f"{label}: forwarded {value!r}"
        assert got["tracestate"] == [], "tracestate goes with an invalid traceparent"


def test_only_the_validated_sampled_requests_left_a_span_each(hp, outcomes):
    """Every span in Zipkin is one of a sampled request's, with the ids HAProxy forwarded; each
    sampled request has its span; the invalid and unsampled ones none. A control request sent
    last is seen first, so nothing sent before it is still on its way."""
    status, got = hp.send("web", [f"00-{'c' * 32}-{PARENT}-01"])
    control = W3C.fullmatch(got["traceparent"][0]).group(2)
    until("the control request's span", lambda: any(s["id"] == control for s in hp.zipkin.received()), 60)
    expected = {}
    for (label, entry), (status, got) in outcomes.items():
        case = next(c for c in CASES if c[0] == label)
        if case[2] == SAMPLED:
            expected[W3C.fullmatch(got["traceparent"][0]).group(2)] = entry
    spans = [s for s in hp.zipkin.received() if s["id"] != control]
    assert sorted(s["id"] for s in spans) == sorted(expected), "a span of a request that was not a valid sampled one"
    for s in spans:
        entry = expected[s["id"]]
        assert (s["traceId"], s["parentId"]) == (TRACE, PARENT)
        assert s["name"] == f"{entry} → {BACKEND_OF[entry]}" and s["tags"]["http.path"] == ENTRIES[entry]
    assert relay_pids(hp.socket) and hp.bound_ok(), "the relay and HAProxy still serve"


def test_the_relays_socket_is_in_a_folder_only_its_user_may_enter(hp):
    folder, sockets = hp.socket.parent, tracing.relay_paths(hp.socket)
    assert len(sockets) == tracing.RELAY_SOCKETS and all(p.parent == folder and p.exists() for p in sockets)
    assert folder.stat().st_mode & 0o777 == 0o700 and folder.stat().st_uid == sockets[0].stat().st_uid


def test_over_the_rate_a_sampled_request_goes_on_unsampled_and_unlogged(tmp_path_factory):
    """TRACE_MAX_RATE=2: of 12 sampled requests sent back to back, those beyond 2 a second are
    forwarded with the caller's ids and flags 00, and only the traced ones have a span."""
    with TracedHAProxy(tmp_path_factory.mktemp("cap"), knobs={"TRACE_MAX_RATE": "2"}) as h:
        sent = [h.send("web", [f"00-{TRACE}-{PARENT}-01"])[1]["traceparent"][0] for _ in range(12)]
        traced = [v for v in sent if W3C.fullmatch(v).group(3) == "01"]
        capped = [v for v in sent if v not in traced]
        assert capped and traced, sent
        assert set(capped) == {f"00-{TRACE}-{PARENT}-00"}
        ids = {W3C.fullmatch(v).group(2) for v in traced}
        until("the traced requests' spans", lambda: ids <= {s["id"] for s in h.zipkin.received()}, 60)
        control = W3C.fullmatch(h.send("soap", [f"00-{'d' * 32}-{PARENT}-01"])[1]["traceparent"][0])
        if control.group(3) == "01":      # within the rate again: its span comes after all the others
            until("the control span", lambda: control.group(2) in {s["id"] for s in h.zipkin.received()}, 60)
        assert {s["id"] for s in h.zipkin.received()} - {control.group(2)} == ids
