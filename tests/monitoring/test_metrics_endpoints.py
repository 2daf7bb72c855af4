"""Every Prometheus endpoint the testbed owns, on the running local stack: the Java tiers' JMX
exporter agent (front, clone, axis), gSOAP's own /metrics and the CPU exporter. Each passes
`promtool check metrics` with no lint, and has the names and types docs/monitoring.md lists --
with values that moved after requests went through (HAProxy's exporter is HAProxy's: not ours)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from testbed import procs, tiers
from stacks import RUN_DIR

pytestmark = pytest.mark.stack

CALLS = 6


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain")
        return r.read().decode()


def families(text: str) -> dict[str, object]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def value(fams, name: str, **labels) -> float:
    """The sum of the samples called `name` whose labels include `labels`."""
    family = next(f for f in fams.values() if any(s.name == name for s in f.samples))
    return sum(s.value for s in family.samples if s.name == name and labels.items() <= s.labels.items())


def assert_types(fams, expected: dict[str, str]) -> None:
    got = {n: fams[n].type for n in expected if n in fams}
    assert got == expected, f"missing or mistyped: {set(expected.items()) - set(got.items())}"


def promtool_lints(text: str) -> str:
    promtool = shutil.which("promtool")
    if not promtool:
        pytest.fail("promtool not found: ./testbed setup installs Debian's prometheus package")
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    return (r.stdout + r.stderr).strip() if r.returncode else ""


@pytest.fixture(scope="module")
def loaded(stack):
    """The session stack after CALLS requests through all five segments to each backend."""
    web = stack.web_url()
    for backend in ("axis", "gsoap"):
        for _ in range(CALLS):
            with urllib.request.urlopen(f"{web}/seg/5?backend={backend}&op=sendInts&n=100", timeout=60) as r:
                assert r.status == 200
    return stack


def replica(stack, tier: str) -> dict:
    return next(r for r in stack.status()["replicas"] if r["tier"] == tier)


@pytest.mark.parametrize("tier", ["front", "clone", "axis"])
def test_java_tier_agent_serves_lint_free_tomcat_and_jvm_metrics(loaded, tier):
    port = tiers.TIERS[tier].metrics_port(replica(loaded, tier)["port"])
    text = scrape(f"http://127.0.0.1:{port}/metrics")
    assert promtool_lints(text) == ""
    fams = families(text)
    assert_types(fams, {"tomcat_threads_busy": "gauge", "tomcat_threads": "gauge", "tomcat_threads_max": "gauge",
                        "tomcat_connections": "gauge", "tomcat_executor_queued_requests": "gauge",
                        "tomcat_requests": "counter", "tomcat_request_errors": "counter",
                        "tomcat_request_processing_seconds": "counter", "tomcat_sent_bytes": "counter",
                        "process_cpu_seconds": "counter", "jvm_memory_used_bytes": "gauge",
                        "jvm_threads_state": "gauge"})
    assert value(fams, "tomcat_requests_total") >= CALLS       # /seg/5 reached every tier
    assert value(fams, "tomcat_threads_max") == 200
    assert value(fams, "process_cpu_seconds_total") > 0


def test_the_clone_exports_the_client_times_its_status_shows(loaded):
    """One measurement (ClientTime), two readers: GET /status client_time and the JMX agent."""
    rep = replica(loaded, "clone")
    fams = families(scrape(f"http://127.0.0.1:{tiers.TIERS['clone'].metrics_port(rep['port'])}/metrics"))
    assert_types(fams, {"clone_client_waiting_threads": "gauge", "clone_client_obtained": "counter",
                        "clone_client_not_obtained": "counter", "clone_client_wait_seconds": "counter",
                        "clone_client_hold_seconds": "counter", "clone_client_hold_cpu_seconds": "counter"})
    with urllib.request.urlopen(f"{rep['url']}/status", timeout=10) as r:
        status = json.load(r)
    for backend in ("axis", "gsoap"):
        times = status["backends"][backend]["client_time"]
        got = value(fams, "clone_client_obtained_total", backend=backend, mode="singleton")
        assert got >= CALLS and times["calls"] >= got                # /status read after the scrape
        held = value(fams, "clone_client_hold_seconds_total", backend=backend)
        assert 0 < held <= times["hold_ns"] / 1e9
    assert value(fams, "clone_client_waiting_threads") == 0           # no load now


def test_gsoap_serves_lint_free_request_counts_and_time_histograms(loaded):
    rep = replica(loaded, "gsoap")
    # the session stack serves other tests' echoInts too: what CALLS more sendInts move, and not
    before = families(scrape(f"{rep['url']}/metrics"))
    for _ in range(CALLS):
        with urllib.request.urlopen(f"{loaded.web_url()}/seg/5?backend=gsoap&op=sendInts&n=100", timeout=60) as r:
            assert r.status == 200
    text = scrape(f"{rep['url']}/metrics")
    assert promtool_lints(text) == ""
    fams = families(text)
    assert_types(fams, {"gsoap_requests": "counter", "gsoap_requests_in_flight": "gauge",
                        "gsoap_request_parse_seconds": "histogram", "gsoap_operation_seconds": "histogram",
                        "gsoap_response_serialize_seconds": "histogram", "process_cpu_seconds": "counter",
                        "process_resident_memory_bytes": "gauge", "process_start_time_seconds": "gauge"})
    assert value(fams, "gsoap_requests_total", outcome="ok") >= CALLS
    assert value(fams, "gsoap_requests_in_flight") == 0             # the scrape itself is left out
    for h in ("gsoap_request_parse_seconds", "gsoap_operation_seconds", "gsoap_response_serialize_seconds"):
        count = value(fams, f"{h}_count", operation="sendInts")
        assert count >= CALLS
        assert value(fams, f"{h}_bucket", operation="sendInts", le="+Inf") == count
        assert 0 < value(fams, f"{h}_sum", operation="sendInts") < count * 5      # seconds, not µs
        assert value(fams, f"{h}_count", operation="sendInts") - value(before, f"{h}_count", operation="sendInts") \
            >= CALLS
        assert value(fams, f"{h}_count", operation="echoInts") == value(before, f"{h}_count", operation="echoInts")


def test_cpu_exporter_serves_lint_free_cpu_of_every_replica_and_the_host(loaded):
    port = procs.free_port()
    proc = procs.start("cpu-exporter-test", [sys.executable, "-m", "testbed.live.exporter", "--source", "local",
                                             "--port", str(port)], RUN_DIR / "cpu-exporter-test.log",
                       env={"TESTBED_STATE_DIR": str(loaded.cfg.state_dir), **{k: str(v) for k, v in
                            loaded.cfg.entry_ports().items()}}, port=port, cwd=tiers.ROOT)
    try:
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}/metrics", 30)
        text = scrape(f"http://127.0.0.1:{port}/metrics")
    finally:
        procs.stop(proc)
    assert promtool_lints(text) == ""
    fams = families(text)
    assert_types(fams, {"testbed_cpu_seconds": "counter", "testbed_cpu_quota_cores": "gauge",
                        "testbed_host_cpu_seconds": "counter", "testbed_host_cpu_cores": "gauge"})
    tiers_seen = {s.labels["tier"] for s in fams["testbed_cpu_seconds"].samples}
    assert {"front", "clone", "axis", "gsoap", "haproxy"} <= tiers_seen
    assert value(fams, "testbed_cpu_seconds_total", tier="clone", replica="1") > 0
    assert value(fams, "testbed_host_cpu_cores") == (os.cpu_count() or 1)
    assert value(fams, "testbed_host_cpu_seconds_total", mode="busy") > 0
