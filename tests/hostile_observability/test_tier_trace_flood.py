"""A short flood (flood_bench.py, bounded to a few seconds and a few hundred requests) of
sampled requests with 8 KB paths through HAProxy to a stack with tracing on: every process --
Zipkin, HAProxy's, each tier's -- is alive at the end and its peak RSS within the bound the
bench states, and the spans Zipkin stored are within the producers' byte bound. The 2-minute
figures come from running the bench itself."""
from __future__ import annotations

import pytest

from hostile_observability import flood_bench

pytestmark = [pytest.mark.stack, pytest.mark.own_stack, pytest.mark.slow]     # a stack with Zipkin


@pytest.fixture(scope="module")
def flood_stack():
    st = flood_bench.start_stack("flood-test")
    yield st
    st.down()


def test_a_short_flood_leaves_every_process_up_and_within_its_bound(flood_stack):
    figures = flood_bench.run(flood_stack, seconds=8, max_requests=400, connections=4)
    load, rows = figures["load"], figures["processes"]
    assert 0 < load["requests"] <= 400 + 4, load       # the count bound (wrk's threads may each finish one more)
    assert {"zipkin", "haproxy-master", "front-1", "clone-1", "axis-1", "gsoap-1"} <= set(rows)
    for name, row in rows.items():
        assert row["alive"], f"{name} is gone"
        assert row["within"], f"{name}: peak RSS {row['peak_rss_mib']} MiB over {row['bound_mib']}"
    assert figures["largest_span_bytes"].get("front", 0) > 0, "the front's spans reached Zipkin"
    for service, size in figures["largest_span_bytes"].items():
        if service != "haproxy":          # HAProxy's spans are the relay's (its own bound)
            assert size <= figures["span_bound_bytes"], (service, size)
