"""The whole request path ①–⑤ through HAProxy, on the real tiers: what each segment path
shows, /seg/5 for every backend and operation, and the client tier's lifecycles."""
from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from clients import expected
from polling import until
from testbed import contract

pytestmark = pytest.mark.stack

MARKERS = {
    2: r"jsp: seg\d\.jsp",
    3: r"access-bean: AccessBean",
    4: r"bean-instance: \d+",
    5: r"clone: host=\S+ pid=\d+",
}


def web(stack, path: str) -> requests.Response:
    return requests.get(f"http://127.0.0.1:{stack.cfg.web_port}{path}", timeout=60)


def clones(stack, path: str) -> requests.Response:
    return requests.get(f"http://127.0.0.1:{stack.cfg.clones_port}{path}", timeout=60)


def test_the_clones_build_probe_and_lifecycle_switch_are_refused_through_haproxy(stack):
    # the runner asks one replica directly; through the load's entry it would be anyone's
    r = requests.post(f"http://127.0.0.1:{stack.cfg.clones_port}/probe/build?n=1", timeout=60)
    assert r.status_code == 403 and "forbidden" in r.text.lower()
    for path in ("/lifecycle?mode=request", "//%6cifecycle?mode=pool"):     # nor the lifecycle switch
        r = requests.post(f"http://127.0.0.1:{stack.cfg.clones_port}{path}", timeout=60)
        assert r.status_code == 403, path
    assert clones(stack, "/status").status_code == 200 and _status(stack)["mode"] == "singleton"


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_each_segment_path_shows_exactly_the_segments_that_ran(stack, k):
    r = web(stack, f"/seg/{k}")
    assert r.status_code == 200, r.text
    assert f"segments: {','.join(str(i) for i in range(1, k + 1))}\n" in r.text
    for seg, marker in MARKERS.items():
        assert bool(re.search(marker, r.text)) == (seg <= k), (seg, r.text)


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
@pytest.mark.parametrize("op", contract.OPERATIONS)
def test_seg5_reaches_every_operation_of_both_backends(stack, backend, op):
    n = 1000 if op in contract.KIND_OF else 0
    r = web(stack, f"/seg/5?backend={backend}&op={op}&n={n}")
    assert r.status_code == 200, r.text
    assert "soap-result: ok=true" in r.text
    if op in contract.SEND_OPERATIONS:
        count, checksum = expected(op, n)
        assert f"count={count} checksum={checksum}" in r.text
    if op == "work":
        assert f"work.implementation={backend}" in r.text


@pytest.mark.parametrize("query", ["backend=nope", "op=launch", "n=-1", "n=abc"])
def test_seg5_bad_parameters_get_400_with_a_reason(stack, query):
    r = web(stack, f"/seg/5?{query}")
    assert r.status_code == 400
    assert "reason:" in r.text


def _status(stack) -> dict:
    r = clones(stack, "/status")
    assert r.status_code == 200
    return r.json()


def _stream(stack, seconds: float, stop, seen: list, failures: list, workers: int = 4) -> None:
    """A bounded stream of /seg/5 requests from a few threads: it ends at `seconds` or as
    soon as stop() is true; records the serving clone of every answer, and every failure."""
    deadline = time.monotonic() + seconds

    def loop():
        s = requests.Session()
        while time.monotonic() < deadline and not stop():
            try:
                r = s.get(f"http://127.0.0.1:{stack.cfg.web_port}/seg/5", timeout=30)
            except requests.RequestException as e:
                failures.append(repr(e))
                continue
            m = re.search(r"clone: host=\S+ pid=(\d+)", r.text)
            if r.status_code != 200 or not m:
                failures.append(f"{r.status_code}: {r.text[:200]}")
            else:
                seen.append((time.monotonic(), int(m.group(1))))
    with ThreadPoolExecutor(workers) as ex:
        for f in [ex.submit(loop) for _ in range(workers)]:
            f.result()


def _clone_pids(stack) -> set[int]:
    return {r["pid"] for r in stack.status()["replicas"] if r["tier"] == "clone"}


@pytest.mark.own_stack     # scales the shared stack's clone tier, then back
def test_scaling_clones_during_load_fails_no_request_and_uses_every_clone(stack):
    seen, failures, done = [], [], []
    marks = {}
    with ThreadPoolExecutor(1) as ex:
        load = ex.submit(_stream, stack, 120, lambda: bool(done), seen, failures)
        until("requests answered before the scaling", lambda: seen or failures)
        stack.scale("clone", 3)
        three = _clone_pids(stack)
        marks["three"] = time.monotonic()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and {p for t, p in seen if t > marks["three"]} != three:
            time.sleep(0.2)
        marks["reached"] = {p for t, p in seen if t > marks["three"]}
        stack.scale("clone", 1)
        marks["one"] = time.monotonic()
        until("requests answered after the scaling down", lambda: [p for t, p in seen if t > marks["one"] + 0.5]
              or failures)
        done.append(True)
        load.result()
    assert failures == []
    assert len(three) == 3 and marks["reached"] == three
    after = {p for t, p in seen if t > marks["one"] + 0.5}
    assert after and after <= _clone_pids(stack)


def _concurrent_work(stack, calls: int, wait_us: int) -> tuple[float, float]:
    """`calls` simultaneous work calls through the clones' entry: the time they took from
    outside, and the seconds the clone (its /status client_time) counted them holding a client."""
    before = _status(stack)["backends"]["axis"]["client_time"]
    t0 = time.monotonic()
    with ThreadPoolExecutor(calls) as ex:
        codes = list(ex.map(lambda _: clones(stack, f"/invoke?backend=axis&op=work&waitMicros={wait_us}").status_code,
                            range(calls)))
    span = time.monotonic() - t0
    assert codes == [200] * calls
    after = _status(stack)["backends"]["axis"]["client_time"]
    assert after["calls"] - before["calls"] == calls
    return span, (after["hold_ns"] - before["hold_ns"]) / 1e9


@pytest.mark.own_stack     # restarts the shared stack's clone in each mode
def test_client_modes_are_observable_and_only_the_singleton_serializes_calls(stack):
    try:
        # singleton: one client per backend, built once; concurrent calls wait for each other
        for _ in range(3):
            assert clones(stack, "/invoke?backend=axis&op=ping").status_code == 200
        st = _status(stack)
        assert st["mode"] == "singleton" and st["backends"]["axis"]["wsdl_loads"] == 1
        four, held = _concurrent_work(stack, 4, 300_000)
        assert four >= 3 * 0.3, f"4 concurrent 0.3 s calls took {four:.2f}s in singleton"
        # the clone held its one client for each call in turn: the holds fit in the time taken
        assert 4 * 0.3 <= held <= four, (held, four)

        # request: the WSDL is fetched and parsed for every request
        stack.restart("clone", {"CLIENT_MODE": "request"})
        before = _status(stack)["backends"]["axis"]["wsdl_loads"]
        for _ in range(3):
            assert clones(stack, "/invoke?backend=axis&op=ping").status_code == 200
        st = _status(stack)
        assert st["mode"] == "request" and st["backends"]["axis"]["wsdl_loads"] == before + 3

        # pool: pre-built clients, concurrent calls overlap
        stack.restart("clone", {"CLIENT_MODE": "pool", "CLIENT_POOL_SIZE": "4"})
        st = _status(stack)
        assert st["mode"] == "pool" and st["pool_size"] == 4 and st["backends"]["axis"]["wsdl_loads"] == 4
        four, held = _concurrent_work(stack, 4, 1_000_000)
        # the clone held four clients for 1 s each: one after the other, those holds could not
        # fit in the time the four calls took from outside, so they ran side by side
        assert held >= 4 * 1.0 and held > four, f"4 s of holds in {four:.2f} s: the calls did not overlap"

        # a live switch: the same JVM (its compiled code) with a client per request; the knob is kept
        pid = next(r["pid"] for r in stack.status()["replicas"] if r["tier"] == "clone")
        before = _status(stack)["backends"]["axis"]["wsdl_loads"]
        assert len(stack.switch_lifecycle("clone", {"CLIENT_MODE": "request"})) == 1
        answers = [clones(stack, "/invoke?backend=axis&op=ping") for _ in range(3)]
        assert [a.json()["clone"]["mode"] for a in answers] == ["request"] * 3
        st = _status(stack)
        assert (st["mode"], st["pid"], st["backends"]["axis"]["wsdl_loads"]) == ("request", pid, before + 3)
        assert stack.current()[1]["CLIENT_MODE"] == "request"
        # the switch is an admin endpoint: a bad mode names the accepted ones, no token is refused
        url = next(r["url"] for r in stack.status()["replicas"] if r["tier"] == "clone") + "/lifecycle"
        bad = requests.post(url + "?mode=lots", headers=stack.admin_headers(), timeout=30)
        assert bad.status_code == 400 and "singleton, request, pool" in bad.json()["error"]
        assert requests.post(url + "?mode=pool", timeout=30).status_code == 403
        assert _status(stack)["mode"] == "request"
    finally:
        stack.restart("clone", {"CLIENT_MODE": "singleton"})


@pytest.mark.own_stack     # kills the shared stack's clone, which comes back
def test_a_killed_clone_is_marked_down_and_seg5_keeps_answering(stack):
    import os
    import signal
    stack.scale("clone", 2)
    try:
        victim = next(r for r in stack.status()["replicas"] if r["tier"] == "clone" and r["replica"] == 2)
        seen, failures, done = [], [], []
        with ThreadPoolExecutor(1) as ex:
            load = ex.submit(_stream, stack, 60, lambda: bool(done), seen, failures)
            until("requests answered before the kill", lambda: seen or failures)
            os.kill(victim["pid"], signal.SIGKILL)
            killed = time.monotonic()
            deadline = killed + 15
            while time.monotonic() < deadline and \
                    stack.runtime.servers("clone")["clone2"]["status"] != "DOWN":
                time.sleep(0.2)
            state = stack.runtime.servers("clone")["clone2"]["status"]
            until("requests answered after the kill", lambda: [p for t, p in seen if t > killed + 0.5] or failures)
            done.append(True)
            load.result()
        assert state == "DOWN"
        assert [p for t, p in seen if t > killed + 0.5] and \
            all(p != victim["pid"] for t, p in seen if t > killed + 0.5)
        assert failures == [], failures[:3]
    finally:
        stack.scale("clone", 1)


def test_entry_points_shown_are_those_running_and_an_empty_tier_says_how_to_fill_it(stack, capsys):
    from testbed.stacks import verbs as stack_verbs
    shown = stack.entry_points()
    off = ("locust", "prometheus", "zipkin")       # the test stack runs without the Locust UI, monitoring, tracing
    assert not set(off) & set(shown)
    assert shown == {n: u for n, u in stack.urls().items() if n not in off}
    stack_verbs._print_entry_points(shown, {"front", "clone", "axis"})
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert lines["gsoap"].endswith("(no gsoap replica: ./testbed scale gsoap=1)")
    assert "no " not in lines["axis"] and "no " not in lines["web"]
