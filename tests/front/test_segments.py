"""Each /seg/k of the front answers 200 with the markers of exactly the segments that ran."""
from __future__ import annotations

import re

import pytest

from frontcheck import field, get

pytestmark = pytest.mark.timeout(180)

MARKERS = {            # marker line -> first segment that prints it
    "static": 1,
    "jsp": 2,
    "access-bean": 3,
    "bean-ref": 3,
    "bean-instance": 4,
    "clone": 5,
    "soap-result": 5,
}


def segments(page: str) -> list[int]:
    value = field(page, "segments")
    assert value is not None, f"no 'segments:' line in\n{page}"
    return [int(s) for s in value.split(",")]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_each_segment_page_shows_exactly_the_segments_that_ran(front, reset_fake, k):
    status, _, page = get(f"{front.base}/seg/{k}")
    assert status == 200, page
    assert segments(page) == list(range(1, k + 1))
    for marker, first in MARKERS.items():
        present = field(page, marker) is not None
        if marker == "static":
            assert present == (k == 1), (marker, page)
        else:
            assert present == (k >= first), (marker, page)
    assert len(page) < 600, "segment pages are the measured workload: keep them small"


def test_seg1_is_a_static_file_served_at_exactly_its_path(front):
    status, headers, page = get(f"{front.base}/seg/1")
    assert status == 200
    assert "ETag" in headers and "Last-Modified" in headers     # DefaultServlet's, not a JSP's
    assert field(page, "static") == "seg/1"


def test_the_access_bean_acquires_the_session_bean_on_seg3_without_calling_it(front):
    _, _, page = get(f"{front.base}/seg/3")
    assert field(page, "bean-ref") == "proxy of bean SegmentService"     # looked up in JNDI
    assert field(page, "bean-instance") is None                         # and not called


def test_the_access_bean_and_a_pooled_bean_instance_serve_seg4(front):
    _, _, page = get(f"{front.base}/seg/4")
    assert field(page, "access-bean") == "AccessBean"
    assert field(page, "bean") == "SegmentService"
    assert 1 <= int(field(page, "bean-instance")) <= 100     # BEAN_POOL_SIZE default


def test_seg5_shows_the_serving_clone_and_the_soap_result(front, reset_fake):
    status, _, page = get(f"{front.base}/seg/5?backend=gsoap&op=sendInts&n=7")
    assert status == 200, page
    assert reset_fake.queries[-1] == {"backend": "gsoap", "op": "sendInts", "n": "7"}
    clone = field(page, "clone")
    assert clone.startswith(f"host={reset_fake.HOST} pid="), clone
    assert re.search(r"pid=\d+", clone)
    result = field(page, "soap-result")
    assert "7" in result and "2166136261" in result, result
    assert field(page, "call") == "backend=gsoap op=sendInts n=7"


def test_seg5_defaults_to_a_ping_on_axis(front, reset_fake):
    status, _, page = get(f"{front.base}/seg/5")
    assert status == 200, page
    assert reset_fake.queries[-1] == {"backend": "axis", "op": "ping", "n": "0"}


def test_jsp_sources_and_the_error_page_are_not_reachable(front):
    for path in ("/seg2.jsp", "/WEB-INF/error.jsp", "/seg/6"):
        status, _, _ = get(front.base + path)
        assert status == 404, path


def test_health_answers_ok_without_calling_the_client_tier(front, reset_fake):
    status, _, body = get(f"{front.base}/health")
    assert (status, body.strip()) == (200, "ok")
    assert reset_fake.queries == []
