"""The monitoring-overhead benchmark's two figures (cli/testbed/bench/monitoring_overhead.py): the
ratio to `off` paired within each round, and the accounted CPU cost of scraping."""
from __future__ import annotations

import pytest

from testbed.bench.monitoring_overhead import CONDITIONS, accounted, pair_figures, paired_ratios, round_order


def _row(rnd: int, cond: str, rps: float) -> dict:
    return {"round": rnd, "condition": cond, "rps": rps}


def test_each_ratio_is_taken_against_off_of_the_same_round_so_a_drift_between_rounds_cancels():
    # the stack speeds up 10 % a round (the JIT); prometheus costs exactly 1 % in every round
    rows = []
    for rnd, base in enumerate((1000.0, 1100.0, 1210.0)):
        rows += [_row(rnd, "off", base), _row(rnd, "prometheus", base * 0.99)]
    pairs = paired_ratios(rows)
    assert pairs["prometheus"] == pytest.approx([0.99, 0.99, 0.99])
    assert pairs["off"] == pytest.approx([1.0, 1.0, 1.0])
    assert set(pairs) == set(CONDITIONS) and pairs["tab"] == []


def test_a_round_without_its_off_run_gives_no_ratio():
    rows = [_row(0, "off", 1000.0), _row(0, "tab", 990.0), _row(1, "tab", 500.0)]   # round 1 was cut short
    assert paired_ratios(rows)["tab"] == pytest.approx([0.99])


def test_the_accounted_cost_is_every_scrape_once_per_interval_plus_the_watchers_over_all_cores():
    # three JVMs at 6 ms a scrape and HAProxy at 1 ms, every 5 s: 19 ms / 5 s = 0.38 % of a core;
    # Prometheus 0.3 % and the CPU exporter 0.1 % of a core; the Locust master is not a scraper
    cost = accounted({"front-1": 6.0, "clone-1": 6.0, "axis-1": 6.0, "haproxy": 1.0}, 5.0,
                     {"prometheus": 0.3, "cpu-exporter": 0.1, "locust-master": 5.0}, cores=2)
    assert cost["scrapes_pct_of_a_core"] == pytest.approx(0.38)
    assert cost["watchers_pct_of_a_core"] == pytest.approx(0.4)
    assert cost["share_of_host"] == pytest.approx(0.0039)
    assert cost["expected_ratio"] == pytest.approx(0.9961)


def test_a_longer_interval_costs_proportionally_less():
    costs = {"front-1": 10.0}
    assert accounted(costs, 10.0, {}, 1)["share_of_host"] == pytest.approx(
        accounted(costs, 5.0, {}, 1)["share_of_host"] / 2)


def test_every_round_has_each_condition_once_no_agent_first_and_the_rest_reversing():
    first, second = round_order(0), round_order(1)
    assert sorted(first) == sorted(second) == sorted(CONDITIONS)
    assert first[0] == second[0] == "no-agent"          # its restarts come before the others' runs
    assert first[1:] == second[1:][::-1]
    assert round_order(2) == first


def test_the_paired_phase_gives_each_pairs_ratio_their_median_and_the_interval_of_their_mean():
    runs = []
    for i, (off, watched) in enumerate(((1000.0, 990.0), (1100.0, 1111.0), (1050.0, 1029.0), (980.0, 980.0))):
        order = (("off", off), ("watched", watched)) if i % 2 == 0 else (("watched", watched), ("off", off))
        runs += [{"pair": i, "condition": c, "rps": v} for c, v in order]
    fig = pair_figures(runs)
    assert fig["ratios"] == pytest.approx([0.99, 1.01, 0.98, 1.0])
    assert fig["median"] == pytest.approx(0.995) and fig["mean"] == pytest.approx(0.995)
    low, high = fig["ci95"]
    assert low < 0.995 < high and high - low < 0.05


def test_a_single_pair_has_no_interval():
    assert pair_figures([{"pair": 0, "condition": "off", "rps": 1.0}, {"pair": 0, "condition": "watched", "rps": 1.0}]) is None
