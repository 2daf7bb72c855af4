"""The front's knobs (docs/tiers.md): demand points, the bean pool's bound, the start-up
line, a refused configuration and a graceful SIGTERM. Behaviour checks with generous
margins, not performance assertions."""
from __future__ import annotations

import os
import re
import subprocess
import threading
import time

import pytest

from frontcheck import FRONT, Front, field, get
from testbed import tiers

pytestmark = [pytest.mark.timeout(180), pytest.mark.own_stack]   # fronts of its own


def timed_get(url: str) -> tuple[int, float]:
    t0 = time.monotonic()
    status, _, _ = get(url)
    return status, time.monotonic() - t0


def test_seg2_demand_slows_the_jsp_but_not_the_static_page(slow_front):
    get(f"{slow_front.base}/seg/1")               # first request: connection set-up, caches
    status2, took2 = timed_get(f"{slow_front.base}/seg/2")
    status1, took1 = timed_get(f"{slow_front.base}/seg/1")
    assert (status1, status2) == (200, 200)
    assert took2 >= 0.2, f"/seg/2 took {took2:.3f}s with DEMAND_SEG2_WAIT_US=200000"
    assert took1 < 0.2, f"/seg/1 took {took1:.3f}s; the static page has no demand"


def test_seg1_demand_is_taken_by_every_path_and_nothing_else():
    # DEMAND_SEG1_*: segment ① begins every /seg/k path (the classic-system profile emulates
    # its cost there); /health is not a path of the experiment
    f = Front("front-unit-seg1", {"CLONES_URL": "http://127.0.0.1:9", "DEMAND_SEG1_WAIT_US": "250000"})
    try:
        get(f"{f.base}/health")
        timed = {p: timed_get(f"{f.base}{p}") for p in ("/seg/1", "/seg/3", "/health")}
        assert [timed[p][0] for p in timed] == [200, 200, 200], timed
        assert timed["/seg/1"][1] >= 0.25 and timed["/seg/3"][1] >= 0.25, timed
        assert timed["/health"][1] < 0.25, timed
        assert "DEMAND_SEG1_WAIT_US=250000" in f.log_text()
    finally:
        f.stop()


def test_a_call_waiting_longer_than_the_pool_timeout_is_a_503(slow_front):
    # BEAN_POOL_SIZE=1 and DEMAND_SEG4_WAIT_US=1000000: the first call holds the only
    # instance from 0.2 s (after its JSP demand) to 1.2 s; the second reaches the pool at
    # about 0.55 s and gives up after BEAN_POOL_TIMEOUT_MS=300.
    results: dict[str, tuple[int, str]] = {}

    def first():
        status, _, page = get(f"{slow_front.base}/seg/4")
        results["first"] = (status, page)

    holder = threading.Thread(target=first)
    holder.start()
    time.sleep(0.35)                             # the first holds the instance by now
    status, _, page = get(f"{slow_front.base}/seg/4")
    holder.join(15)
    assert results["first"][0] == 200, results["first"][1]
    assert status == 503, page
    assert field(page, "failing-tier") == "front"
    assert "BEAN_POOL_TIMEOUT_MS=300" in field(page, "reason")


def test_the_start_up_line_prints_the_effective_configuration(slow_front):
    lines = [l for l in slow_front.log_text().splitlines() if "front listening on" in l]
    assert len(lines) == 1
    line = lines[0]
    for knob in ("CLONES_URL=http://127.0.0.1:", "BEAN_POOL_SIZE=1", "BEAN_POOL_TIMEOUT_MS=300",
                 "INVOKER_TIMEOUT_MS=30000", "DEMAND_SEG2_WAIT_US=200000", "DEMAND_SEG4_WAIT_US=1000000",
                 "DEMAND_INVOKER_CPU_US=0", "TOMCAT_MAX_THREADS=200"):
        assert knob in line, (knob, line)


def test_a_bad_knob_stops_the_front_with_a_message_naming_it():
    env = tiers.process_env(FRONT, 1, extra={"CLONES_URL": "ftp://nowhere"})
    p = subprocess.run(FRONT.argv(), env={**os.environ, **env}, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert "CLONES_URL='ftp://nowhere'" in p.stderr, p.stderr


@pytest.fixture
def stopped_front(fake_clones):
    """A front that served one /seg/4, then got SIGTERM; (seconds the stop took, its log)."""
    f = Front("front-unit-sigterm", {"CLONES_URL": fake_clones.url})
    assert get(f"{f.base}/seg/4")[0] == 200
    t0 = time.monotonic()
    assert f.stop()
    took = time.monotonic() - t0
    assert not f.proc.alive()
    return took, f.log_text()


def test_sigterm_stops_the_front_within_ten_seconds(stopped_front):
    took, _ = stopped_front
    assert took < 10


def test_sigterm_logs_the_stop_and_the_bean_calls(stopped_front):
    _, log = stopped_front
    assert "front stopping" in log
    assert re.search(r"SegmentService\.visit: calls=1 failures=0", log), log[-2000:]
