"""The client tier under failure: a service that is down, a service that is too slow, a
singleton queue longer than the timeout, a bad CLIENT_MODE, SIGTERM. Never a hang, never
a crash; every error names the tier it comes from."""
from __future__ import annotations

import os
import subprocess
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from clones.clonetools import dead_endpoint, start_clone, start_relayed, stop_relayed
from testbed import procs, tiers

pytestmark = pytest.mark.own_stack     # clones of its own, with dead or slow services


@pytest.mark.parametrize("mode", ["singleton", "request", "pool"])
def test_a_service_that_is_down_gives_502_naming_the_service_tier(mode):
    clone = start_clone(f"clone-down-{mode}", dead_endpoint("/axis"), dead_endpoint("/gsoap"),
                        CLIENT_MODE=mode, CLIENT_POOL_SIZE="2")
    try:
        for backend in ("axis", "gsoap", "axis"):   # twice: a later call retries the build
            code, r = clone.invoke(backend=backend, op="sendInts", n=10, timeout=30)
            assert code == 502, r
            assert r["ok"] is False and r["tier"] == "soap-service"
            assert "connection refused" in r["error"], r
        s = clone.status()
        assert s["errors"] == 3 and s["in_flight"] == 0 and s["wsdl_loads"] == 0
        with urllib.request.urlopen(clone.base + "/health", timeout=10) as h:
            assert h.status == 200
    finally:
        assert procs.stop(clone.proc, timeout=10)
    # SIGTERM ran the shutdown to its end (procs.stop's SIGKILL after 10 s would have cut it short)
    assert "clone stopped" in clone.log_text()


@pytest.fixture(scope="module")
def impatient(services):
    """A singleton clone whose SOAP_TIMEOUT_MS is 2 s, calling the services through relays
    (tests/relay.py) that can hold a call past it."""
    clone, relays = start_relayed("clone-timeout", services, at_most_s=60, CLIENT_MODE="singleton",
                                  SOAP_TIMEOUT_MS="2000")
    yield clone, relays
    stop_relayed(clone, relays)


@pytest.fixture
def impatient_clone(impatient):
    return impatient[0]


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_a_service_slower_than_the_timeout_gives_504(impatient, backend):
    clone, relays = impatient
    relay = relays[backend]
    assert clone.invoke(backend=backend, op="ping")[0] == 200          # the client built
    first = len(relay.calls)
    relay.close()                 # the service's side keeps the call until the test lets it go
    try:
        code, r = clone.invoke(backend=backend, op="ping", timeout=30)
        # the 504 came back while the call was still held at the service's side, unanswered:
        # the timeout fired, the clone did not wait for the answer
        held_then = relay.held()
    finally:
        relay.open()
    assert code == 504, r
    assert r["tier"] == "soap-service" and "SOAP_TIMEOUT_MS=2000" in r["error"]
    assert len(relay.calls) == first + 1 and held_then == 1, "the call did not wait at the service's side"
    assert clone.invoke(backend=backend, op="ping")[0] == 200         # the client still works


def test_callers_queued_past_the_timeout_on_the_singleton_get_504_from_the_clone(impatient_clone):
    assert impatient_clone.invoke(backend="gsoap", op="ping")[0] == 200
    start = threading.Barrier(4)

    def one(_):
        start.wait(timeout=30)
        return impatient_clone.invoke(backend="gsoap", op="work", waitMicros=1_000_000, timeout=30)

    # one call at a time, 1 s each, 2 s of patience: the first two are served, the last is not
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(one, range(4)))
    ok = [r for code, r in results if code == 200]
    dropped = [r for code, r in results if code == 504 and r["tier"] == "clone"]
    assert len(ok) >= 2 and len(dropped) >= 1 and len(ok) + len(dropped) == 4, results
    assert "singleton" in dropped[0]["error"]


def test_a_bad_client_mode_stops_the_tier_with_a_clear_error():
    tier = tiers.TIERS["clone"]
    if not tier.built():
        pytest.fail("client-clones/target/clone.jar is not built")
    env = tiers.process_env(tier, procs.free_port(), extra={"CLIENT_MODE": "threadlocal"})
    r = subprocess.run(tier.argv(), env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r
    assert "CLIENT_MODE='threadlocal' is not valid: expected one of singleton, request, pool" in r.stderr
