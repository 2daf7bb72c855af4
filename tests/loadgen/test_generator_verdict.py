"""The verdict on the load generator (analysis/generator.py) from what Locust recorded of itself: one
short run against a server of the test's own that answers at once, with Locust in a CPU quota of
0.1 core (CPUS_LOCUST, as the local stack gives an experiment's Locust) and without one. Short of
CPU, its event loop wakes late, and the step is judged "behind" with that cause, excluded, and
the run's findings not testable; without the limit it kept up — unless the host itself was
saturated meanwhile (a shared host: then the verdict is not this test's to check, and it says so).
Load: loopback only, one step of 4 s."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from analysis import generator
from analysis.judge import regime
from analysis.load import latency
from analysis.load.settings import Settings
from analysis.steps import LOADGEN_BEHIND, StepSample
from locust_runs import Server, run_locust
from testbed.cpu.clock import host_cpu_seconds
from testbed.cpu.quotas import QuotaError, Quotas

pytestmark = pytest.mark.timeout(150)

USERS = 16
SATURATED = 0.9            # the host's busy share at which even an unlimited Locust may fall behind


def _step(tmp_path: Path) -> StepSample:
    """The run as one step, judged as the analysis judges a step."""
    intervals, bad = latency.read(tmp_path / latency.LOG_FILE)
    assert not bad and intervals
    s = StepSample(run_id="generator", index=0, users=USERS, start=None, measure_from=None, end=None, window_s=None)
    s.latency = latency.of_window(intervals, None, None)
    generator.judged(s, Settings())
    return s


def test_a_generator_in_a_tenth_of_a_core_is_behind_with_the_cause(tmp_path):
    quota = Quotas(Path(tempfile.gettempdir()) / "testbed-generator-test", {"CPUS_LOCUST": "0.1"})
    try:
        groups = quota.place("locust", "locust")
    except QuotaError as e:
        pytest.skip(f"no cgroup rights on this machine: {e}")
    before = host_cpu_seconds()
    try:
        run_locust(tmp_path, Server(), 0, users=USERS, cgroups=groups)
    finally:
        quota.clear(stop_leftovers=True)
    after = host_cpu_seconds()
    busy, idle = after[0] - before[0], after[1] - before[1]
    s = _step(tmp_path)
    g = s.generator
    if g["kept_up"] and busy / max(busy + idle, 1e-9) >= SATURATED:
        # the test's own server shares the saturated host: it answered too slowly to keep even a
        # tenth of a core busy, and a generator that waits on its server is not behind
        pytest.skip(f"shared host: the host was {busy / (busy + idle):.0%} busy during the run, so the test's "
                    "server, not Locust's quota, set the pace: not testable here")
    assert not g["kept_up"] and g["loop_p50_ms"] >= Settings().loadgen_loop_lag_ms, g
    assert "event loop" in g["causes"][0] and LOADGEN_BEHIND in s.flags and s.excluded
    limited = regime.generator_limited([s])
    assert limited and "load generator was the limit" in limited["cause"] and "LOADGEN_CPUS" in limited["fix"]


def test_the_same_run_without_the_limit_kept_up(tmp_path):
    before = host_cpu_seconds()
    run_locust(tmp_path, Server(), 0, users=USERS)
    after = host_cpu_seconds()
    busy, idle = after[0] - before[0], after[1] - before[1]
    s = _step(tmp_path)
    if not s.generator["kept_up"] and busy / max(busy + idle, 1e-9) >= SATURATED:
        pytest.skip(f"shared host: the host was {busy / (busy + idle):.0%} busy during the run, so Locust "
                    f"fell behind with it ({s.generator['causes'][0]}): not testable here")
    assert s.generator["kept_up"], s.generator
    assert s.generator["loop_p99_ms"] is not None and not s.excluded
    assert regime.generator_limited([s]) is None
