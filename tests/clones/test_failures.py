"""The client tier under failure: a service that is down, a service that is too slow, a
singleton queue longer than the timeout, a bad CLIENT_MODE, SIGTERM. Never a hang, never
a crash; every error names the tier it comes from."""
from __future__ import annotations

import os
import subprocess
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from clones.clonetools import dead_endpoint, start_clone
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
        t0 = time.monotonic()
        assert procs.stop(clone.proc, timeout=10)
    assert time.monotonic() - t0 < 10, "SIGTERM did not stop the tier within 10 s"
    assert "clone stopped" in clone.log_text()


@pytest.fixture(scope="module")
def impatient_clone(services):
    """A singleton clone whose SOAP_TIMEOUT_MS is 2 s."""
    clone = start_clone("clone-timeout", services["axis"], services["gsoap"],
                        CLIENT_MODE="singleton", SOAP_TIMEOUT_MS="2000")
    yield clone
    procs.stop(clone.proc)


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_a_service_slower_than_the_timeout_gives_504(impatient_clone, backend):
    t0 = time.monotonic()
    code, r = impatient_clone.invoke(backend=backend, op="work", waitMicros=4_000_000, timeout=30)
    elapsed = time.monotonic() - t0
    assert code == 504, r
    assert r["tier"] == "soap-service" and "SOAP_TIMEOUT_MS=2000" in r["error"]
    assert elapsed < 3.5, f"the timeout of 2 s took {elapsed:.1f} s"
    assert impatient_clone.invoke(backend=backend, op="ping")[0] == 200   # the client still works


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
