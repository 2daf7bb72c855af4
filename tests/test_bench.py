"""`./testbed bench` warms every target up before it measures, and keeps the warm-up runs out
of its results."""
from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import pytest

from testbed import bench


ENOUGH = bench.WARMUP_MIN_REQUESTS


@pytest.mark.parametrize("rates, requests, warm", [
    ([], 0, False),
    ([2400.0], ENOUGH, False),                        # one run says nothing about the trend
    ([2400.0, 9000.0], ENOUGH, False),                # still speeding up
    ([2400.0, 9000.0, 9800.0], ENOUGH, True),         # +9 %: within the tolerance
    ([9000.0, 8500.0], ENOUGH, True),                 # slower is warm too (noise, not JIT)
    ([9000.0, 9000.0 * (1 + bench.WARMUP_TOLERANCE) + 1], ENOUGH, False),
    ([100.0, 61.0], 320, False),                      # flat, but held down before the JIT could run
])
def test_a_target_is_warm_once_it_served_enough_and_stopped_speeding_up(rates, requests, warm):
    assert bench.is_warm(rates, requests) is warm


@pytest.mark.stack
@pytest.mark.slow          # ./testbed bench end to end: warm-up rounds, then measured ones
@pytest.mark.timeout(600)
def test_bench_warms_every_target_first_and_reports_only_the_rounds_after(stack, tmp_path):
    if not shutil.which("wrk"):
        pytest.fail("wrk is missing; install it: sudo apt-get install -y wrk (or ./testbed setup)")
    said: list[str] = []
    args = SimpleNamespace(connections=4, duration=1, repeat=1, warmup=1)
    bench.measure(stack, tmp_path, args, say=lambda line, **_: said.append(line))

    first_round = next(i for i, line in enumerate(said) if line.startswith("bench: round 1/"))
    warmups = [i for i, line in enumerate(said) if line.startswith("bench: warm-up ")]
    assert "warming up every target" in said[0]
    assert len(warmups) == 9 and max(warmups) < first_round      # bound + 2 services × 2 routes × 2 ops

    result = json.loads((tmp_path / "bench.json").read_text())
    warm = result["warmup"]["targets"]
    rows = {r["target"]: r for r in result["rows"]}
    assert set(warm) == set(rows) and len(rows) == 9
    for target, w in warm.items():
        assert 1 <= len(w["rps"]) <= bench.WARMUP_MAX_RUNS
        assert w["warm"] == bench.is_warm(w["rps"], w["requests"]) == rows[target]["warm"]
        assert len(w["rps"]) >= 2 or not w["warm"]
        assert rows[target]["runs"] == args.repeat           # the warm-up runs are not among them
    md = (tmp_path / "bench.md").read_text()
    assert "warmed up before the rounds" in md and "## Warm-up" in md
