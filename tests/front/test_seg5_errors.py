"""/seg/5 validates its parameters and turns downstream failures into clear 502/504 pages
naming the failing tier, never a hang."""
from __future__ import annotations

import time

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
    reset_fake.delay = 5.0
    t0 = time.monotonic()
    status, _, page = get(f"{front.base}/seg/5", timeout=15)
    took = time.monotonic() - t0
    assert status == 504, page
    assert field(page, "failing-tier") == "client tier"
    assert "INVOKER_TIMEOUT_MS=1000" in field(page, "reason")
    assert took < 4.5, f"the front waited {took:.1f}s for a 1 s timeout (the fake answers after 5 s)"


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
