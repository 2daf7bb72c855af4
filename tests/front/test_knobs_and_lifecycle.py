"""The front's knobs (docs/tiers.md): demand points, the bean pool's bound, the start-up
line, a refused configuration and a graceful SIGTERM. Behaviour checks, not performance
assertions: a demand is told by a lower bound (a wait no busy host shortens) and by the
difference from a path without it, timed beside it; the order of events by a fake client tier
that keeps a request until the test lets it go."""
from __future__ import annotations

import os
import re
import subprocess
import threading
import time

import pytest

from frontcheck import FRONT, Front, field, get
from polling import until
from testbed import tiers

pytestmark = [pytest.mark.timeout(180), pytest.mark.own_stack]   # fronts of its own


def timed_get(url: str) -> tuple[int, float]:
    t0 = time.monotonic()
    status, _, _ = get(url)
    return status, time.monotonic() - t0


def fastest(base: str, paths: tuple[str, ...], rounds: int = 5) -> dict[str, float]:
    """Each path's fastest answer over `rounds` rounds, the paths taken in turn (so a busy
    moment of the host slows both); every answer must be a 200."""
    best = {p: float("inf") for p in paths}
    for _ in range(rounds):
        for p in paths:
            status, took = timed_get(base + p)
            assert status == 200, (p, status)
            best[p] = min(best[p], took)
    return best


def test_seg2_demand_slows_the_jsp_but_not_the_static_page(slow_front):
    get(f"{slow_front.base}/seg/1")               # first request: connection set-up, caches
    best = fastest(slow_front.base, ("/seg/2", "/seg/1"))
    assert best["/seg/2"] >= 0.2, f"/seg/2 took {best['/seg/2']:.3f}s with DEMAND_SEG2_WAIT_US=200000"
    # the static page does not take the JSP's 0.2 s: faster than the JSP by more than half of it
    # (had it the demand too, the two would differ by the JSP's own few milliseconds)
    assert best["/seg/1"] < best["/seg/2"] - 0.1, best


def test_seg1_demand_is_taken_by_every_path_and_nothing_else():
    # DEMAND_SEG1_*: segment ① begins every /seg/k path (the classic-system profile emulates
    # its cost there); /health is not a path of the experiment
    f = Front("front-unit-seg1", {"CLONES_URL": "http://127.0.0.1:9", "DEMAND_SEG1_WAIT_US": "250000"})
    try:
        get(f"{f.base}/health")
        best = fastest(f.base, ("/seg/1", "/seg/3", "/health"))
        assert best["/seg/1"] >= 0.25 and best["/seg/3"] >= 0.25, best
        # /health does not take it: faster than the paths by more than half of it
        assert best["/health"] < min(best["/seg/1"], best["/seg/3"]) - 0.125, best
        assert "DEMAND_SEG1_WAIT_US=250000" in f.log_text()
    finally:
        f.stop()


@pytest.fixture
def one_bean_front(reset_fake):
    """A front with one bean instance, 300 ms to wait for it, and the fake client tier behind it."""
    f = Front("front-unit-pool", {"CLONES_URL": reset_fake.url, "BEAN_POOL_SIZE": "1",
                                  "BEAN_POOL_TIMEOUT_MS": "300"})
    yield f
    reset_fake.release()
    f.stop()


def test_a_call_waiting_longer_than_the_pool_timeout_is_a_503(one_bean_front, reset_fake):
    # the first /seg/5 holds the only bean instance while the (fake) client tier keeps its call;
    # a second one then waits for the instance and gives up after BEAN_POOL_TIMEOUT_MS=300
    reset_fake.mode, reset_fake.delay = "slow", 60.0
    results: dict[str, tuple[int, str]] = {}

    def first():
        status, _, page = get(f"{one_bean_front.base}/seg/5", timeout=90)
        results["first"] = (status, page)

    holder = threading.Thread(target=first)
    holder.start()
    try:
        until("the first call at the client tier, holding the bean", lambda: reset_fake.slow_now == 1)
        status, _, page = get(f"{one_bean_front.base}/seg/5", timeout=30)
        kept_then = reset_fake.slow_now
    finally:
        reset_fake.release()
        holder.join(60)
    assert results["first"][0] == 200, results["first"][1]
    assert status == 503, page
    assert kept_then == 1 and len(reset_fake.queries) == 1, "the second call reached the client tier"
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
    """A front that served one /seg/4, then got SIGTERM: its log."""
    f = Front("front-unit-sigterm", {"CLONES_URL": fake_clones.url})
    assert get(f"{f.base}/seg/4")[0] == 200
    assert f.stop()
    assert not f.proc.alive()
    return f.log_text()


def test_sigterm_stops_the_front_by_its_own_shutdown(stopped_front):
    # the shutdown ran to its end (procs.stop's SIGKILL, 10 s after the SIGTERM, would cut it short)
    assert "front stopped" in stopped_front, stopped_front[-2000:]


def test_sigterm_logs_the_stop_and_the_bean_calls(stopped_front):
    log = stopped_front
    assert "front stopping" in log
    assert re.search(r"SegmentService\.visit: calls=1 failures=0", log), log[-2000:]
