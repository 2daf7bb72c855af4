"""The three client lifecycles, observed from outside: how often the WSDL is loaded, and
whether concurrent calls are serialized (singleton) or not (pool) — told by the order in which
the calls reached the service (a relay in front of it, tests/relay.py) and by the clone's own
client_time counters, not by wall time."""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from clones.clonetools import POOL_SIZE, start_relayed, stop_relayed
from polling import until

WAIT_US = 300_000      # the service's wait per work call: 0.3 s
CONCURRENT = 4


def concurrent_work(clone, backend: str, calls: int, wait_us: int = WAIT_US) -> tuple[float, list]:
    """Wall time of `calls` simultaneous work calls, and their (status, body)."""
    start = threading.Barrier(calls)

    def one(_):
        start.wait(timeout=30)
        return clone.invoke(backend=backend, op="work", waitMicros=wait_us, timeout=60)

    t0 = time.monotonic()
    with ThreadPoolExecutor(calls) as ex:
        results = list(ex.map(one, range(calls)))
    return time.monotonic() - t0, results


@pytest.fixture(scope="module")
def relayed_singleton(services):
    clone, relays = start_relayed("clone-singleton-relayed", services, CLIENT_MODE="singleton")
    yield clone, relays
    stop_relayed(clone, relays)


@pytest.fixture(scope="module")
def relayed_pool(services):
    clone, relays = start_relayed("clone-pool-relayed", services, CLIENT_MODE="pool", CLIENT_POOL_SIZE=str(POOL_SIZE))
    yield clone, relays
    stop_relayed(clone, relays)


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_singleton_loads_each_wsdl_once(clone_singleton, backend):
    for op in ("ping", "sendInts", "echoInts", "ping"):
        assert clone_singleton.invoke(backend=backend, op=op, n=10)[0] == 200
    s = clone_singleton.status()
    assert s["mode"] == "singleton"
    assert s["backends"][backend]["wsdl_loads"] == 1
    assert s["backends"][backend]["client_built"] is True
    assert s["backends"][backend]["clients_open"] == 1


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_request_mode_loads_the_wsdl_for_every_call_and_keeps_nothing(clone_request, backend):
    assert clone_request.invoke(backend=backend)[0] == 200
    before = clone_request.status()
    for _ in range(5):
        assert clone_request.invoke(backend=backend, op="sendInts", n=10)[0] == 200
    after = clone_request.status()
    assert after["backends"][backend]["wsdl_loads"] == before["backends"][backend]["wsdl_loads"] + 5
    assert after["wsdl_loads"] == before["wsdl_loads"] + 5
    # every client was closed: no client, connection or Axis2 service description left
    assert after["backends"][backend]["clients_open"] == 0
    assert after["axis2_services"] == before["axis2_services"] == 0


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_pool_mode_builds_pool_size_clients_and_no_more(clone_pool, backend):
    # built before the tier answered /health
    assert clone_pool.status()["backends"][backend]["wsdl_loads"] == POOL_SIZE, clone_pool.status()
    elapsed, results = concurrent_work(clone_pool, backend, 2 * POOL_SIZE, wait_us=50_000)
    assert all(code == 200 for code, _ in results), results
    s = clone_pool.status()
    assert s["pool_size"] == POOL_SIZE
    assert s["backends"][backend]["wsdl_loads"] == POOL_SIZE
    assert s["backends"][backend]["pool_clients"] == POOL_SIZE


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_singleton_serializes_concurrent_calls(clone_singleton, backend):
    assert clone_singleton.invoke(backend=backend, op="work")[0] == 200   # client built, connection open
    elapsed, results = concurrent_work(clone_singleton, backend, CONCURRENT)
    assert all(code == 200 for code, _ in results), results
    # 4 × 0.3 s one after the other: at least 1.0 s (1.2 s when perfectly serialized)
    assert elapsed >= 1.0, f"{CONCURRENT} calls of {WAIT_US / 1e6} s overlapped: {elapsed:.2f} s"


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_pool_calls_run_side_by_side(relayed_pool, backend):
    clone, relays = relayed_pool
    relay = relays[backend]
    assert clone.status()["backends"][backend]["pool_clients"] == POOL_SIZE
    first = len(relay.calls)
    # the service's side holds each call until CONCURRENT of them are there together: calls made
    # side by side all get there (each on its own client); calls made one at a time never would
    relay.close(at_once=CONCURRENT)
    try:
        _, results = concurrent_work(clone, backend, CONCURRENT)
    finally:
        relay.open()
    assert all(code == 200 for code, _ in results), results
    calls = relay.calls[first:]
    assert len(calls) == CONCURRENT
    assert min(c.forwarded for c in calls) >= max(c.arrived for c in calls), "a call went on before the others came"
    assert relay.most_at_once == CONCURRENT

@pytest.mark.skipif(shutil.which("jstack") is None, reason="jstack (JDK) not on PATH")
def test_a_thread_dump_under_load_shows_callers_blocked_on_the_singleton(clone_singleton):
    assert clone_singleton.invoke(backend="gsoap", op="work")[0] == 200
    calls = 12  # 12 × 0.3 s = 3.6 s of queue for a dump to catch

    def blocked_on_singleton(dump: str) -> list[str]:
        return [block for block in dump.split("\n\n")
                if "java.lang.Thread.State: BLOCKED" in block
                and "waiting to lock" in block and "(a org.soaptestbed.clones.SingletonSoapClient)" in block]

    dumps: list[str] = []
    with ThreadPoolExecutor(1) as ex:
        load = ex.submit(concurrent_work, clone_singleton, "gsoap", calls)
        time.sleep(0.6)
        # a dump while the calls queue; on a busy host the first may come before they do (or
        # jstack's attach may take a second): a few more while the load lasts
        while not dumps or (not load.done() and len(dumps) < 6 and len(blocked_on_singleton(dumps[-1])) < 2):
            dumps.append(subprocess.run(["jstack", str(clone_singleton.proc.pid)], capture_output=True,
                                        text=True, timeout=60).stdout)
        load.result(timeout=120)
    blocked = max((blocked_on_singleton(d) for d in dumps), key=len)
    assert len(blocked) >= 2, f"{len(dumps)} dump(s), the last: " + dumps[-1][-4000:]
    assert all("at org.soaptestbed.clones.SingletonSoapClient.invoke" in b for b in blocked)


def test_client_time_shows_the_singleton_lock_held_for_the_call_and_waited_for(relayed_singleton):
    """GET /status client_time (docs/predict.md): the lock is held for the service call, and
    the callers queued behind it wait for the holds before theirs. The service's side (a relay)
    holds the first call until the clone says the others wait for the lock, so every bound below
    is a relation between the clone's counters and the times the calls reached the service."""
    clone, relays = relayed_singleton
    relay = relays["axis"]
    assert clone.invoke(backend="axis", op="ping")[0] == 200          # the client built, its connection open
    before = clone.status()["backends"]["axis"]["client_time"]
    first = len(relay.calls)
    relay.close()
    with ThreadPoolExecutor(1) as ex:
        t0 = time.monotonic()
        load = ex.submit(concurrent_work, clone, "axis", CONCURRENT)
        try:
            until(f"one call at the service and {CONCURRENT - 1} waiting for the singleton",
                  lambda: relay.held() == 1 and
                  clone.status()["backends"]["axis"]["client_time"]["waiting"] == CONCURRENT - 1)
            gate = time.monotonic()               # every other call asked for the client before this
        finally:
            relay.open()
        _, results = load.result(timeout=120)
        t1 = time.monotonic()
    assert all(status == 200 for status, _ in results)
    after = clone.status()["backends"]["axis"]["client_time"]
    calls = after["calls"] - before["calls"]
    assert calls == CONCURRENT
    served = relay.calls[first:]
    assert len(served) == CONCURRENT
    # one at a time: each call reached the service after the one before it had its answer
    assert all(a.replied <= b.arrived for a, b in zip(served, served[1:]))
    hold = (after["hold_ns"] - before["hold_ns"]) / 1e9
    wait = (after["wait_ns"] - before["wait_ns"]) / 1e9
    cpu = (after["hold_cpu_ns"] - before["hold_cpu_ns"]) / 1e9
    seen = {"hold": hold, "wait": wait, "cpu": cpu, "span": t1 - t0,
            "at service": [(c.arrived - t0, c.replied - t0) for c in served], "gate": gate - t0}
    # the lock is held across each service call (at least the service's wait), and the holds,
    # one after the other, fit in the time the calls took from outside
    assert hold >= sum(c.replied - c.arrived for c in served) and hold >= CONCURRENT * WAIT_US / 1e6, seen
    assert hold <= t1 - t0, seen
    # the k-th caller asked before the gate opened and got the lock after the (k-1)-th answer:
    # it waited at least from the gate to that answer, and at most from the start to its own call
    assert wait > sum(c.replied - gate for c in served[:-1]), seen
    assert wait < sum(c.arrived - t0 for c in served), seen
    assert 0 < cpu < hold, seen


def post_probe(clone, query: str) -> tuple[int, dict]:
    req = urllib.request.Request(f"{clone.base}/probe/build?{query}", data=b"", method="POST", headers=clone.admin)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_the_build_probe_builds_clients_as_a_call_per_request_does_and_keeps_none(clone_request, backend):
    before = clone_request.status()
    code, body = post_probe(clone_request, f"backend={backend}&n=6&threads=2&seconds=30")
    assert code == 200, body
    assert body["built"] == 6 and body["failed"] == 0 and body["threads"] == 2 and "error" not in body
    assert body["cpu_s"] > 0 and 0 < body["build_ms_median"] <= body["wall_s"] * 1e3
    after = clone_request.status()
    # each build fetched and parsed the WSDL, and was closed: nothing left open or registered
    assert after["backends"][backend]["wsdl_loads"] == before["backends"][backend]["wsdl_loads"] + 6
    assert after["backends"][backend]["clients_open"] == 0 and after["axis2_services"] == 0
    assert after["calls"] == before["calls"]          # no service call was made
    # the JVM's collections during the probe, within those its GET /status counted around it
    assert after["gc"]["collectors"] and 0 <= body["gc_collections"] <= after["gc"]["collections"] - before["gc"]["collections"]
    assert 0 <= body["gc_time_ns"] <= after["gc"]["time_ns"] - before["gc"]["time_ns"]


def test_the_build_probe_with_calls_times_the_first_and_the_second_call_of_each_fresh_client(clone_request):
    before = clone_request.status()
    code, body = post_probe(clone_request, "backend=axis&n=4&threads=2&seconds=30&calls=2")
    assert code == 200, body
    assert body["built"] == 4 and body["failed"] == 0 and "error" not in body
    first, second = body["call_cpu_ms_median"]
    assert first > 0 and second > 0
    after = clone_request.status()
    assert after["backends"]["axis"]["wsdl_loads"] == before["backends"]["axis"]["wsdl_loads"] + 4
    assert after["backends"]["axis"]["clients_open"] == 0 and after["axis2_services"] == 0
    code, body = post_probe(clone_request, "backend=axis&n=2&threads=1&seconds=30")
    assert code == 200 and "call_cpu_ms_median" not in body      # no calls: no call figures


@pytest.mark.parametrize("query,message", [
    ("backend=nope", "backend must be axis or gsoap"),
    ("n=0", "n must be from 1 to 5000, not 0"),
    ("threads=65", "threads must be from 1 to 64, not 65"),
    ("calls=3", "calls must be from 0 to 2, not 3"),
    ("seconds=x", "seconds must be an integer from 1 to 60"),
])
def test_the_build_probe_refuses_parameters_out_of_range_naming_it(clone_request, query, message):
    code, body = post_probe(clone_request, query)
    assert code == 400 and message in body["error"]
