"""/seg/5 validates its parameters and turns downstream failures into clear 502/504 pages
naming the failing tier, never a hang."""
from __future__ import annotations

import pytest

from frontcheck import field, get

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("query, names", [
    ("backend=corba", "backend"),
    ("op=sendStrings", "op"),
    ("n=-1", "n"),
    ("n=lots", "n"),
    ("n=99999999999", "n"),
])
def test_bad_parameters_are_a_400_naming_the_parameter(front, reset_fake, query, names):
    status, _, page = get(f"{front.base}/seg/5?{query}")
    assert status == 400, page
    assert field(page, "failing-tier") == "front"
    assert field(page, "reason").startswith(names + "="), page
    assert reset_fake.queries == [], "a bad request must not reach the client tier"


def test_a_client_tier_error_is_a_502_naming_the_client_tier_and_its_reason(front, reset_fake):
    reset_fake.mode = "error"
    status, _, page = get(f"{front.base}/seg/5")
    assert status == 502, page
    assert field(page, "failing-tier") == "client tier"
    reason = field(page, "reason")
    assert "HTTP 500" in reason and "fake clone: internal error" in reason, reason


def test_a_service_failure_reported_by_the_client_tier_is_a_502_naming_the_service(front, reset_fake):
    reset_fake.mode = "service-down"
    status, _, page = get(f"{front.base}/seg/5?backend=gsoap")
    assert status == 502, page
    assert field(page, "failing-tier") == "soap-service"
    assert "connection refused: fake service" in field(page, "reason")


def test_a_client_tier_slower_than_the_invoker_timeout_is_a_504(front, reset_fake):
    reset_fake.mode = "slow"
    reset_fake.delay = 60.0                      # kept until released: far past the 1 s timeout
    status, _, page = get(f"{front.base}/seg/5", timeout=30)
    # the 504 came back while the client tier was still keeping the request, unanswered: the
    # timeout fired, the front did not wait for the answer
    kept_then = reset_fake.slow_now
    reset_fake.release()
    assert status == 504, page
    assert field(page, "failing-tier") == "client tier"
    assert "INVOKER_TIMEOUT_MS=1000" in field(page, "reason")
    assert len(reset_fake.queries) == 1 and kept_then == 1, "the request did not wait at the client tier"


def test_an_unreachable_client_tier_is_a_502(slow_front):
    status, _, page = get(f"{slow_front.base}/seg/5", timeout=15)
    assert status == 502, page
    assert field(page, "failing-tier") == "client tier"
    assert field(page, "reason").startswith("unreachable"), page


def test_the_front_keeps_serving_after_downstream_failures(front, reset_fake):
    reset_fake.mode = "error"
    get(f"{front.base}/seg/5")
    reset_fake.mode = "ok"
    status, _, _ = get(f"{front.base}/seg/5")
    assert status == 200
