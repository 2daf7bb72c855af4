"""The anatomy of a step's requests from its traces (analysis/measure/traces.py): the parts of one
request add up to Locust's span exactly, the clone's own time splits into its wait for a client and
its work, the client's measured latency less the parts is reported as the remainder, and of a step
the slow requests' time is laid out beside the median ones' — on traces recorded from the stack
(tests/tracing/data) with the two tags the tiers now add."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from analysis.measure import traces

DATA = Path(__file__).parent / "data"


def _trace(backend: str = "axis", wait_us: int | None = 50, client_extra_ms: float = -0.02,
           stretch_ms: float = 0.0) -> list[dict]:
    """A recorded /seg/5 trace; the clone's wait tagged (and, with stretch_ms, lengthened by that much on
    every span that holds it: the clone's server span and those above it), Locust's response time
    tagged as its span's duration plus client_extra_ms."""
    spans = copy.deepcopy(json.loads((DATA / f"seg5-{backend}.json").read_text()))
    by_id = {s["id"]: s for s in spans}
    clone = next(s for s in spans if s["localEndpoint"]["serviceName"] == "clone" and s.get("kind") == "SERVER")
    s = clone
    while s is not None:                       # the clone's server span and every span above it
        s["duration"] += int(stretch_ms * 1000)
        s = by_id.get(s.get("parentId"))
    if wait_us is not None:
        clone.setdefault("tags", {})[traces.WAIT_TAG] = str(wait_us + int(stretch_ms * 1000))
    root = next(s for s in spans if s["localEndpoint"]["serviceName"] == "locust")
    root.setdefault("tags", {})[traces.RESPONSE_TAG] = f"{root['duration'] / 1000 + client_extra_ms:.3f}"
    return spans


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_the_parts_add_up_to_locusts_span_and_the_remainder_to_the_clients_latency(backend):
    d = traces.decompose(_trace(backend))
    p = traces.parts(d)
    assert list(p) == ["hop locust→front", "front", "hop front→clone", "clone: waiting for a client", "clone: working",
                       "hop clone→service", backend]
    assert p["clone: waiting for a client"] == pytest.approx(0.050)
    assert p["clone: waiting for a client"] + p["clone: working"] == pytest.approx(d["tiers"]["clone"])
    assert sum(p.values()) == pytest.approx(d["total"], abs=1e-9)
    assert traces.remainder(d) == pytest.approx(-0.02, abs=1e-3)
    assert sum(p.values()) + traces.remainder(d) == pytest.approx(d["client"], abs=1e-9)


def test_a_trace_without_the_tags_keeps_the_clone_whole_and_has_no_remainder():
    spans = json.loads((DATA / "seg5-axis.json").read_text())
    d = traces.decompose(spans)
    assert "clone" in traces.parts(d) and traces.remainder(d) is None


def test_the_slow_requests_show_the_lock_wait_as_their_largest_part():
    """99 requests whose clone waited 0.05 ms, one whose clone waited 50 ms more: above the step's p99
    that one, its largest part the wait; around the median the ordinary requests."""
    ds = [traces.decompose(_trace()) for _ in range(99)] + [traces.decompose(_trace(stretch_ms=50.0))]
    slow_ms = ds[-1]["client"]
    a = traces.anatomy(ds, slow_ms - 1.0, "the step's p99")
    assert a["slow"]["traces"] == 1 and a["slow"]["largest"] == "clone: waiting for a client"
    assert a["slow"]["shares"]["clone: waiting for a client"] > 0.5
    assert a["median"]["traces"] >= 1 and a["median"]["largest"] != "clone: waiting for a client"
    assert a["median"]["remainder_ms"] == pytest.approx(-0.02, abs=1e-3)
    dist = traces.distribution(ds)
    assert dist["clone: waiting for a client"]["max"] == pytest.approx(50.05, abs=1e-3)
    assert dist["clone: waiting for a client"]["p50"] == pytest.approx(0.05, abs=1e-3)
    text = "\n".join(traces.anatomy_lines(a))
    assert "slow (≥" in text and "clone: waiting for a client" in text and "unaccounted" in text


def test_without_the_steps_p99_the_traced_ones_set_the_threshold():
    ds = [traces.decompose(_trace()) for _ in range(20)] + [traces.decompose(_trace(stretch_ms=20.0))]
    a = traces.anatomy(ds, None, "unused")
    assert a["threshold"] == "the traced requests' p99" and a["slow"]["traces"] == 1
