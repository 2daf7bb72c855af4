"""Overload and slow clients (docs/reliability.md), on a private local stack.

- Overload: far more clients than a small gSOAP service can serve. Every answer is a 200
  (served after queueing in HAProxy) or a 503 (its queue timeout expired): no other error,
  no crash, memory bounded; once the load stops the service answers again at once.
- Slow clients: hundreds of connections that trickle their headers or their body get 408
  and are cut by HAProxy (`timeout http-request` with `option http-buffer-request`), while
  normal requests keep being served. Their p95 beside a baseline is measured by
  tests/reliability/slow_clients_bench.py, not asserted here.
Every load is bounded in clients, requests and seconds, and aimed at 127.0.0.1 only.
"""
from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections import Counter

import pytest

from polling import until
from slowclient import slow_connection
from stacks import make_stack_config
from testbed import contract

pytestmark = [pytest.mark.stack, pytest.mark.slow, pytest.mark.own_stack]


def _post(url: str, op: str = "ping", timeout: float = 30) -> int:
    req = urllib.request.Request(url, data=contract.envelope(op, 0), headers=contract.soap_headers(op))
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError as e:
        return -1 if "timed out" in str(e) else 0


def _rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.fixture(scope="module")
def small_stack():
    from testbed.stacks.local import LocalStack
    # a gSOAP service of 2 workers, 200 ms a call: ~10 calls/s; HAProxy queues 3 s at most
    cfg = make_stack_config("overload", {"GSOAP_POOL_SIZE": "2", "DEMAND_SERVICE_WAIT_US": "200000",
                                         "HAPROXY_QUEUE_TIMEOUT_S": "3"})
    st = LocalStack(cfg, log=lambda *a: None)
    if st.running():
        st.down()
    st.up({"front": 1, "gsoap": 1})
    yield st
    st.down()


def test_overload_is_queued_or_refused_with_503_and_the_service_recovers_at_once(small_stack):
    cfg = small_stack.cfg
    url = f"http://127.0.0.1:{cfg.soap_port}/gsoap"
    gsoap = next(r for r in small_stack.status()["replicas"] if r["tier"] == "gsoap")
    rss_before = _rss_kib(gsoap["pid"])
    codes: Counter = Counter()
    lock = threading.Lock()
    stop = time.monotonic() + 12

    def client():
        for _ in range(200):                 # bounded in requests and in time
            if time.monotonic() > stop:
                return
            code = _post(url, timeout=30)
            with lock:
                codes[code] += 1

    threads = [threading.Thread(target=client) for _ in range(100)]       # ~10× the capacity
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert set(codes) <= {200, 503}, codes                 # queued and served, or refused: nothing else
    assert codes[200] > 0 and codes[503] > 0, codes
    alive = small_stack.status()["replicas"]
    assert all(r["alive"] for r in alive), alive           # no tier crashed
    assert _rss_kib(gsoap["pid"]) < max(4 * rss_before, 200_000)   # no unbounded queue in the service
    # once the load stops, a call is served again right away (well within 30 s)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _post(url, timeout=5) != 200:
        time.sleep(0.5)
    assert _post(url, timeout=5) == 200


@pytest.mark.parametrize("body", [False, True], ids=["slow-headers", "slow-bodies"])
def test_slow_clients_get_408_and_are_cut_while_normal_requests_are_served(small_stack, body):
    cfg = small_stack.cfg
    results: list = []
    opened: list = []
    threads = [threading.Thread(target=slow_connection, args=(port, body, results, 25.0, opened))
               for port in (cfg.web_port, cfg.soap_port) for _ in range(100)]
    for t in threads:
        t.start()
    until("every slow client's request begun", lambda: len(opened) + len(results) >= 200, timeout=30)
    normal = [_get(f"http://127.0.0.1:{cfg.web_port}/seg/2") for _ in range(20)]
    for t in threads:
        t.join(40)
    assert normal == [200] * 20                               # the entry points kept serving
    assert len(results) == 200
    cut = [r for r in results if r[0].startswith("HTTP/1.1 408")]
    assert len(cut) == 200, Counter(r[0] for r in results)    # every slow client got 408 ...
    assert all(closed for _, _, closed in cut), sorted(r[1] for r in cut)[-5:]   # ... and was cut, not held


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0
