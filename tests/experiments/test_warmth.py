"""Warm by measurement (cli/testbed/run/record/warmth.py): the steady-state rule on made-up
series, and the watch on a run folder and a metrics endpoint served by the test on loopback."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from testbed.experiment.plan import DefinitionError, LoadPlan, load_plan
from testbed.run.record import warmth

PLAN = replace(LoadPlan(), warm="steady", warm_min_seconds=10.0, warm_max_seconds=100.0, warm_window_seconds=5.0,
               warm_windows=4, warm_band=0.05, warm_jit_share=0.05)
METRICS = """# HELP jvm_compilation_time_seconds_total The total time in seconds taken for HotSpot class compilation
# TYPE jvm_compilation_time_seconds_total counter
jvm_compilation_time_seconds_total {jit}
jvm_gc_collection_seconds_count{{gc="G1 Young Generation"}} 40.0
jvm_gc_collection_seconds_count{{gc="G1 Old Generation"}} {full}
jvm_gc_collection_seconds_sum{{gc="G1 Old Generation"}} 0.5
"""


def jvm(name="front-1", jit=(), full=()):
    return warmth.Jvm(name, "http://127.0.0.1:1/metrics", list(jit), list(full))


# ------------------------------------------------------------------ the rule
def test_metrics_give_the_compilation_time_and_only_the_old_generations_collections():
    assert warmth.read_metrics(METRICS.format(jit=12.5, full=3.0)) == (12.5, 3.0)
    assert warmth.read_metrics("jvm_gc_collection_seconds_count{gc=\"MarkSweepCompact\"} 2\n") == (None, 2.0)


def test_windows_count_requests_between_their_edges_from_the_cumulative_history(tmp_path):
    rows = [(100.0 + s, 50 * s) for s in range(0, 13)]         # 50/s from t = 100
    assert warmth.windows(rows, 100.0, 5.0) == [50.0, 50.0]      # 100-105, 105-110; 110-115 not complete
    assert warmth.windows([], 100.0, 5.0) == []
    path = tmp_path / "h.csv"
    path.write_text("Timestamp,User Count,Type,Name,Requests/s,Total Request Count,Total Failure Count\n"
                    "100,4,,Aggregated,0,0,0\n101,4,GET,/seg/5,3,30,0\n101,4,,Aggregated,3,30,0\n"
                    "102,4,,Aggreg\n")                                      # a cut last line: dropped
    assert warmth.history(path) == [(100.0, 0), (101.0, 30)]


def test_cpu_windows_sum_the_stacks_processes_but_not_the_load_generator_or_the_host(tmp_path):
    path = tmp_path / "cpu.csv"
    path.write_text("timestamp,tier,replica,pid,cpu_percent\n"
                    "100.5,front,1,1,50\n100.5,loadgen,worker-1,2,90\n100.5,host,all,,180\n"
                    "101.5,front,1,1,50\n101.5,axis,1,3,20\n106.5,front,1,1,10\n")
    # front's last row covers the 5 s since its previous one: 10 % of 5 s
    assert warmth.cpu_windows(path, 100.0, 5.0, 2) == pytest.approx([1.2, 0.5])


def test_a_late_sample_counts_for_the_interval_it_covers(tmp_path):
    path = tmp_path / "cpu.csv"
    rows = [f"{100.0 + 1.25 * k},front,1,1,40" for k in range(9)]     # a sampler 25 % late: 4 rows a window
    path.write_text("timestamp,tier,replica,pid,cpu_percent\n" + "\n".join(rows) + "\n")
    assert warmth.cpu_windows(path, 100.0, 5.0, 2) == pytest.approx([0.4 + 3 * 0.5, 4 * 0.5])


def test_a_flat_series_has_no_drift_and_a_rising_one_its_rise():
    assert warmth.drift([100, 102, 98, 101, 99, 100])[0] == pytest.approx(0.0, abs=0.02)
    d, lo, hi, p = warmth.drift([100, 110, 120, 130])
    assert d == lo == hi == pytest.approx(0.3 / 1.15, rel=1e-6) and p < 0.1     # a straight line: no doubt
    assert warmth.drift([0, 0, 0])[0] == float("inf")            # nothing served: never steady
    assert warmth.drift([7, 7, 7])[:3] == (0.0, 0.0, 0.0)


def test_noise_widens_the_interval_but_a_clear_trend_stays_beyond_the_band():
    noisy = [4.0, 5.2, 3.7, 4.1, 5.3, 3.9]                         # a slow run's CPU per request, ms
    d, lo, hi, _ = warmth.drift(noisy)
    assert lo < -0.05 < 0.05 < hi and not warmth.beyond(lo, hi, 0.05)
    falling = [8.3, 6.4, 6.6, 5.3, 5.0, 4.0]                      # a cold JVM getting cheaper
    d, lo, hi, _ = warmth.drift(falling)
    assert d < -0.3 and warmth.beyond(lo, hi, 0.05)


def test_jit_share_is_the_compilation_growth_per_second_over_the_span():
    series = [(0.0, 1.0), (10.0, 2.0), (20.0, 2.2)]
    assert warmth.share(series, 20.0, 10.0) == pytest.approx(0.02)
    assert warmth.share(series, 20.0, 30.0) is None               # not read that long
    assert warmth.full_gc_since([(0.0, 1.0), (10.0, 2.0)], 5.0) and not warmth.full_gc_since([(0.0, 1.0), (10.0, 1.0)], 5.0)


def test_the_rule_holds_only_past_the_floor_with_enough_flat_windows_a_quiet_jit_and_no_full_collection():
    quiet = jvm(jit=[(0.0, 5.0), (100.0, 5.1)], full=[(0.0, 1.0), (100.0, 1.0)])
    flat, cpu = [500.0, 505.0, 498.0, 502.0], [1.0, 1.01, 0.99, 1.0]
    ok = warmth.judge(PLAN, 40.0, flat, [quiet], 100.0, cpu)
    assert ok["steady"] and ok["why"] == "" and ok["drift"] == pytest.approx(0.0, abs=0.01)
    assert "the floor" in warmth.judge(PLAN, 5.0, flat, [quiet], 100.0, cpu)["why"]
    assert "3 of 4 windows" in warmth.judge(PLAN, 40.0, flat[:3], [quiet], 100.0, cpu)["why"]
    rising = warmth.judge(PLAN, 40.0, [400.0, 440.0, 480.0, 520.0], [quiet], 100.0, cpu)
    assert not rising["steady"] and "throughput drifting +" in rising["why"]
    cheaper = warmth.judge(PLAN, 40.0, flat, [quiet], 100.0, [2.0, 1.7, 1.4, 1.1])
    assert not cheaper["steady"] and "CPU per request drifting -" in cheaper["why"]
    compiling = jvm("clone-1", jit=[(0.0, 5.0), (80.0, 5.0), (100.0, 7.0)], full=[(0.0, 0.0)])
    out = warmth.judge(PLAN, 40.0, flat, [quiet, compiling], 100.0, cpu)
    assert not out["steady"] and "clone-1 compiling 10% of the time" in out["why"]
    collecting = jvm("axis-1", jit=[(0.0, 5.0), (100.0, 5.0)], full=[(0.0, 1.0), (96.0, 1.0), (100.0, 2.0)])
    out = warmth.judge(PLAN, 40.0, flat, [collecting], 100.0, cpu)
    assert not out["steady"] and out["full_gc"] == ["axis-1"]


def test_full_collections_that_recur_through_the_span_are_the_steady_state_not_a_transient():
    w = PLAN.warm_window_seconds            # a client per request: a full collection every window or two
    series = [(0.0, 0.0)] + [(100.0 - k * w + 0.5, float(10 - k)) for k in (4, 3, 1, 0)] + [(100.0, 11.0)]
    series.sort()
    assert warmth.full_gc_windows(series, 100.0, w, PLAN.warm_windows) == 3
    quiet_jit = [(0.0, 5.0), (100.0, 5.0)]
    out = warmth.judge(PLAN, 40.0, [500.0, 505.0, 498.0, 502.0], [jvm("clone-1", quiet_jit, series)], 100.0,
                       [1.0, 1.01, 0.99, 1.0])
    assert out["steady"] and out["full_gc"] == ["clone-1"] and out["full_gc_recurring"] == {"clone-1": 3}
    assert "full collections recurring" in warmth._figures(out, PLAN) and "clone-1 in 3 of" in warmth._figures(out, PLAN)
    once = [(0.0, 0.0), (99.0, 0.0), (100.0, 1.0)]       # one collection, in the last window only: a transient
    out = warmth.judge(PLAN, 40.0, [500.0, 505.0, 498.0, 502.0], [jvm("clone-1", quiet_jit, once)], 100.0,
                       [1.0, 1.01, 0.99, 1.0])
    assert not out["steady"] and "clone-1 in a full collection" in out["why"] and out["full_gc_recurring"] == {}


# ------------------------------------------------------------------ the watch on a run folder
class Metrics(BaseHTTPRequestHandler):
    jit = 10.0

    def do_GET(self):
        body = METRICS.format(jit=type(self).jit, full=0.0).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def metrics_port():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Metrics)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def folder(tmp_path, start: float, seconds: int, rate: int = 100):
    (tmp_path / "steps.jsonl").write_text(json.dumps({"phase": "prime", "users": 16, "start": start}) + "\n")
    rows = ["Timestamp,User Count,Type,Name,Requests/s,Total Request Count,Total Failure Count"]
    rows += [f"{start + s:.0f},16,,Aggregated,{rate},{rate * s},0" for s in range(seconds + 1)]
    (tmp_path / "locust_stats_history.csv").write_text("\n".join(rows) + "\n")
    cpu = ["timestamp,tier,replica,pid,cpu_percent"] + [f"{start + s + 0.5},front,1,1,50" for s in range(seconds)]
    (tmp_path / "cpu.csv").write_text("\n".join(cpu) + "\n")


def add_second(tmp_path, start: float, s: int, rate: int = 100):
    with open(tmp_path / "locust_stats_history.csv", "a") as f:
        f.write(f"{start + s:.0f},16,,Aggregated,{rate},{rate * s},0\n")


def watch_on(tmp_path, port, plan=PLAN):
    replicas = [{"tier": "front", "replica": 1, "url": f"http://127.0.0.1:{port - 50}"},
                {"tier": "haproxy", "replica": 1, "url": "http://127.0.0.1:9"}]       # not a JVM: not read
    w = warmth.WarmWatch(plan, tmp_path, tmp_path / "steps.jsonl", replicas, ["front", "clone"], False)
    (tmp_path / warmth.FILE).write_text(warmth.HEADER)
    return w


def test_the_watch_releases_the_prime_after_the_rule_held_at_two_window_ends_and_says_why(tmp_path, metrics_port):
    start = float(int(time.time()) - 40)
    folder(tmp_path, start, 30)
    w = watch_on(tmp_path, metrics_port)
    assert [j.name for j in w.jvms] == ["front-1"]
    w.jvms[0].jit.append((time.time() - 60, Metrics.jit))           # read for longer than the span
    w.jvms[0].full_gc.append((time.time() - 60, 0.0))
    assert w._look() is False and not (tmp_path / warmth.PRIME_RELEASE).exists()     # held once
    assert w.status() == "warming, ceiling 100 s: throughput +0%, CPU/request +0%, JIT ≤ 0%"
    for s in range(31, 36):
        add_second(tmp_path, start, s)
    w._look()
    assert (tmp_path / warmth.PRIME_RELEASE).exists()                  # held at the next window's end too
    assert w.status() == "warm: the first step starts"
    with open(tmp_path / "steps.jsonl", "a") as f:
        f.write(json.dumps({"phase": "prime", "end": start + 36, "ended_by": "released"}) + "\n")
    ev = w.evidence()
    assert ev["verdict"] == "steady" and ev["seconds"] == 36.0
    assert ev["why"].startswith("steady after 36 s: the last 4 windows of 5 s 100-100/s")
    assert ev["last"]["jit"] == {"front-1": 0.0} and ev["rule"]["band"] == 0.05
    assert len((tmp_path / warmth.FILE).read_text().splitlines()) == 3     # the header and two looks


def test_a_prime_that_reaches_its_ceiling_reads_not_warm_with_the_reason(tmp_path, metrics_port):
    start = float(int(time.time()) - 40)
    folder(tmp_path, start, 30)
    w = watch_on(tmp_path, metrics_port)
    w.jvms[0].jit.append((time.time() - 30, Metrics.jit - 5.0))      # 5 s of compiling in 30 s: busy
    w._look()
    assert not (tmp_path / warmth.PRIME_RELEASE).exists()
    with open(tmp_path / "steps.jsonl", "a") as f:
        f.write(json.dumps({"phase": "prime", "end": start + 100, "ended_by": "max"}) + "\n")
    ev = w.evidence()
    assert ev["verdict"] == "not warm"
    assert ev["why"].startswith("not warm at the ceiling of 100 s: front-1 compiling")


def test_a_jvm_without_metrics_is_named_and_the_rule_goes_on_without_it(tmp_path):
    start = float(int(time.time()) - 40)
    folder(tmp_path, start, 30)
    w = watch_on(tmp_path, 59)                  # nothing listens on port 9 (59 - 50)
    w._look()
    for s in range(31, 36):
        add_second(tmp_path, start, s)
    w._look()
    assert (tmp_path / warmth.PRIME_RELEASE).exists()
    with open(tmp_path / "steps.jsonl", "a") as f:
        f.write(json.dumps({"phase": "prime", "end": start + 36, "ended_by": "released"}) + "\n")
    ev = w.evidence()
    assert ev["verdict"] == "steady" and "JIT not read for front-1" in ev["why"]


def test_runs_without_a_prime_by_measurement_say_what_they_had():
    assert warmth.unprimed(replace(LoadPlan(), prime_seconds=8.0), True)["verdict"] == "fixed"
    assert warmth.unprimed(LoadPlan(), True)["why"].startswith("cold JVMs, no prime")
    assert warmth.unprimed(PLAN, False)["why"].startswith("warm JVMs")


def test_metrics_addresses_follow_the_stack_mode():
    local = {"tier": "clone", "replica": 1, "url": "http://127.0.0.1:19400"}
    assert warmth.metrics_url(local, False) == "http://127.0.0.1:19450/metrics"
    box = {"tier": "clone", "replica": 1, "url": "http://172.18.0.5:8080"}
    assert warmth.metrics_url(box, True) == "http://172.18.0.5:9404/metrics"
    assert warmth.metrics_url({"tier": "clone", "url": None}, False) is None


# ------------------------------------------------------------------ the experiment file's keys
@pytest.mark.parametrize("layer, message", [
    ({"warm": "steady", "prime_seconds": 30}, "give one of them"),
    ({"warm": "hot"}, "warm must be one of none, steady"),
    ({"warm": "steady", "warm_band": 5}, "fractions like 0.05"),
    ({"warm": "steady", "warm_min_seconds": 60, "warm_max_seconds": 30}, "the ceiling above the floor"),
    ({"warm_windows": 1}, "warm_windows must be a whole number 2..60"),
])
def test_bad_warm_keys_are_refused_with_the_fix(layer, message):
    with pytest.raises(DefinitionError, match=message):
        load_plan([(layer, "x.toml [load]")], "x.toml")


def test_a_prime_by_measurement_plans_its_ceiling():
    plan = load_plan([({"warm": "steady", "warm_max_seconds": 120, "users": [4], "step_seconds": 10}, "l")], "x")
    assert plan.steady and plan.prime_ceiling() == 120 and plan.seconds() == 130 and plan.seconds(False) == 10


def test_a_run_that_must_prime_as_long_as_a_probe_raises_the_floor_of_its_prime_by_measurement():
    from testbed.experiment.definition import RunSpec
    from testbed.fit.rewrite import PROBE_PRIME_S, with_prime
    spec = RunSpec(id="r", label="r", kind="clones", repeat=0, path=5, backend="axis", op="ping", n=0,
                   tiers={"front": 1, "clone": 1, "axis": 1, "gsoap": 0}, client_mode="singleton", pool_size=None,
                   regime=None, demands={}, knobs={}, load=PLAN)
    primed = with_prime(spec).load
    assert primed.steady and primed.prime_seconds == 0 and primed.warm_min_seconds == max(10.0, PROBE_PRIME_S)
    fixed = with_prime(replace(spec, load=LoadPlan())).load
    assert not fixed.steady and fixed.prime_seconds == PROBE_PRIME_S
