"""`./testbed bench` warms every target up before it measures, and keeps the warm-up runs out
of its results."""
from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import pytest

from testbed.bench import services as bench
from testbed.bench import wrk


ENOUGH = wrk.WARMUP_MIN_REQUESTS


@pytest.mark.parametrize("rates, requests, warm", [
    ([], 0, False),
    ([2400.0], ENOUGH, False),                        # one run says nothing about the trend
    ([2400.0, 9000.0], ENOUGH, False),                # still speeding up
    ([2400.0, 9000.0, 9800.0], ENOUGH, True),         # +9 %: within the tolerance
    ([9000.0, 8500.0], ENOUGH, True),                 # slower is warm too (noise, not JIT)
    ([9000.0, 9000.0 * (1 + wrk.WARMUP_TOLERANCE) + 1], ENOUGH, False),
    ([100.0, 61.0], 320, False),                      # flat, but held down before the JIT could run
])
def test_a_target_is_warm_once_it_served_enough_and_stopped_speeding_up(rates, requests, warm):
    assert wrk.is_warm(rates, requests) is warm


def run_bench(stack, folder, **args) -> tuple[SimpleNamespace, list[str]]:
    """bench.measure with these arguments; (the arguments, every line it said)."""
    if not shutil.which("wrk"):
        pytest.fail("wrk is missing; install it: sudo apt-get install -y wrk (or ./testbed setup)")
    said: list[str] = []
    ns = SimpleNamespace(**args)
    bench.measure(stack, folder, ns, say=lambda line, **_: said.append(line))
    return ns, said


@pytest.mark.stack
@pytest.mark.slow          # ./testbed bench end to end: warm-up rounds, then measured ones
@pytest.mark.timeout(600)
def test_bench_warms_every_target_first_and_reports_only_the_rounds_after(stack, tmp_path):
    # one operation (the default's two double the wrk runs, every one of them CPU-bound on 2 cores,
    # and check nothing more: the second test below measures another)
    args, said = run_bench(stack, tmp_path, connections=4, duration=1, repeat=1, warmup=1, ops="ping")

    first_round = next(i for i, line in enumerate(said) if line.startswith("bench: round 1/"))
    warmups = [i for i, line in enumerate(said) if line.startswith("bench: warm-up ")]
    assert any("warming up every target" in line for line in said[:2])
    # bound + (2 services × 2 routes + gSOAP with the other serializers, direct) × 1 op
    assert len(warmups) == 6 and max(warmups) < first_round

    result = json.loads((tmp_path / "bench.json").read_text())
    warm = result["warmup"]["targets"]
    rows = {r["target"]: r for r in result["rows"]}
    assert set(warm) == set(rows) and len(rows) == 6
    for target, w in warm.items():
        assert 1 <= len(w["rps"]) <= wrk.WARMUP_MAX_RUNS
        assert w["warm"] == wrk.is_warm(w["rps"], w["requests"]) == rows[target]["warm"]
        assert len(w["rps"]) >= 2 or not w["warm"]
        assert rows[target]["runs"] == args.repeat           # the warm-up runs are not among them
    md = (tmp_path / "bench.md").read_text()
    assert "warmed up before the rounds" in md and "## Warm-up" in md


@pytest.mark.stack
@pytest.mark.slow          # ./testbed bench end to end, both serializers
@pytest.mark.timeout(600)
def test_bench_measures_both_gsoap_serializers_side_by_side_and_stops_its_own_process(stack, tmp_path):
    _, said = run_bench(stack, tmp_path, connections=2, duration=1, repeat=1, warmup=1, ops="sendInts:100",
                        serializers="generated,tuned")
    result = json.loads((tmp_path / "bench.json").read_text())
    other = "generated" if bench.stack_serializers(stack) == "tuned" else "tuned"
    assert result["gsoap_serializers"] == {"gsoap": bench.stack_serializers(stack), f"gsoap-{other}": other}
    assert {r["target"] for r in result["rows"]} >= {f"gsoap-{other}/direct/sendInts:100", "gsoap/direct/sendInts:100"}
    versus = result["tuned_over_generated"]
    assert [(v["op"], v["route"]) for v in versus] == [("sendInts:100", "direct")] and versus[0]["ratio"] > 0
    assert {v["service"] for v in result["gsoap_over_axis"]} == {"gsoap", f"gsoap-{other}"}
    started = next(line for line in said if f"the {other} serializers on port" in line)
    pid = int(started.split("(pid ")[1].split(")")[0])
    import os
    assert not os.path.exists(f"/proc/{pid}") or "zombie" in open(f"/proc/{pid}/status").read().lower()


def test_serializers_to_measure_are_checked_with_a_message_naming_the_flag():
    assert bench.parse_serializers("tuned, generated") == ["tuned", "generated"]
    with pytest.raises(SystemExit, match="--serializers: printf"):
        bench.parse_serializers("tuned,printf")


def test_tuned_over_generated_compares_the_two_gsoap_targets_of_one_run():
    med = {"gsoap/direct/ping": 2000.0, "gsoap-generated/direct/ping": 1000.0, "gsoap/haproxy/ping": 900.0}
    cpu = {"gsoap/direct/ping": 50.0, "gsoap-generated/direct/ping": 100.0}
    assert bench.tuned_over_generated(med, cpu, {"gsoap": "tuned", "gsoap-generated": "generated"}) == [
        {"op": "ping", "route": "direct", "ratio": 2.0, "cpu_ratio": 2.0}]
    assert bench.tuned_over_generated(med, cpu, {"gsoap": "tuned"}) == []


WRK_OUT = """Running 5s test @ http://127.0.0.1:8080/seg/5
  2 threads and 32 connections
  12345 requests in 5.00s, 3.10MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 7
Requests/sec:   2469.00
Transfer/sec:    634.12KB
"""


def test_wrk_output_gives_its_figures_and_a_scripts_latency_lines_where_it_printed_them():
    plain = wrk.parse_wrk(WRK_OUT)
    assert plain == {"rps": 2469.0, "requests": 12345, "non_2xx": 7, "socket_errors": 5,
                     "p50_ms": None, "p95_ms": None}
    scripted = wrk.parse_wrk(WRK_OUT + "p50_us 11873\np95_us 20411\n")      # a Lua done() printed them
    assert scripted == {**plain, "p50_ms": 11.873, "p95_ms": 20.411}
    with pytest.raises(RuntimeError, match="no Requests/sec"):
        wrk.parse_wrk("unable to connect to 127.0.0.1:8080 Connection refused\n")


def test_loadgen_efficiency_tables_every_user_and_the_latency_logs_cost_from_any_subset(tmp_path):
    """`./testbed run loadgen-efficiency` writes its table after every run: with only some users
    measured yet, then with all three, the latency log's cost as 1 - recorded / unrecorded."""
    from testbed.bench import efficiency
    from testbed.experiment.plan import LoadPlan

    def row(user, rps, cpu):
        return {"user": user, "target": "bound", "round": 0, "throughput": rps, "loadgen_cpu_pct": cpu,
                "requests_per_cpu_second": rps / (cpu / 100), "p50_ms": 1.0}
    rows = [row("Seg1StaticPage", 4900.0, 100.0), row(efficiency.UNRECORDED, 5000.0, 100.0)]
    plan = LoadPlan(users=(16,), step_seconds=20, warmup_seconds=5)
    table = efficiency._write(tmp_path, rows, 16, plan, 1, 0.0)           # no bare run yet
    assert "the latency log's cost | | +2.0%" in table and "/ bare" not in table
    table = efficiency._write(tmp_path, rows + [row("BareSeg1User", 7000.0, 100.0)], 16, plan, 1, 0.0)
    assert "Seg1StaticPage / bare | | | | 0.700" in table
    cost = json.loads((tmp_path / "efficiency.json").read_text())["summary"][1]["recording_cost"]
    assert cost["throughput"] == pytest.approx(0.02)
