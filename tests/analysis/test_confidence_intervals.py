"""95 % confidence intervals: of a step's throughput (per-second increments of the stats history),
carried to run maxima and propagated to segment throughputs and clone speed-ups."""
from __future__ import annotations

import math
import statistics

import pytest

from analysis import steps
from analysis.load.settings import Settings
from analysis.measure import clones, maxima, segments
from analysis.stats import mean_ci, ratio_interval


def test_mean_ci_is_t_times_the_standard_error():
    mean, half = mean_ci([10, 12, 11, 13, 9])     # s = √2.5, t(0.975, 4) = 2.7764 (tables: 2.776)
    assert mean == 11 and half == pytest.approx(2.7764 * math.sqrt(2.5) / math.sqrt(5), abs=1e-4)
    assert mean_ci([5]) is None and mean_ci([4, 4, 4])[1] == 0
    many = mean_ci([0, 2] * 500)                   # t(0.975, 999) = 1.9623, the normal's 1.960 nearly
    assert many[1] == pytest.approx(1.9623 * statistics.stdev([0, 2] * 500) / math.sqrt(1000), abs=1e-4)


def test_a_steps_interval_comes_from_the_per_second_increments_of_its_window(history):
    # warm-up at 50/s, then 100, 104, 96, 102, 98 requests in the five seconds measured
    rows = history([50, 50, 100, 104, 96, 102, 98], start=1000)
    run = {"id": "r", "status": "complete",
           "steps": [{"index": 0, "users": 4, "start": 999.5, "measure_from": 1001.0, "end": 1007.0}]}
    (s,) = steps.compute(run, rows, [], Settings())
    # rows 1001..1006 are inside: their increments are the last five seconds' counts
    assert s.ci_samples == 5 and s.throughput == pytest.approx(100.0)
    assert s.throughput_ci95 == pytest.approx(2.7764 * math.sqrt(10) / math.sqrt(5), abs=1e-3)
    assert s.interval == pytest.approx((100 - s.throughput_ci95, 100 + s.throughput_ci95))
    assert steps.csv_row(s)["throughput_ci95"] == pytest.approx(s.throughput_ci95)


def test_the_run_maximum_carries_its_steps_interval_and_repeats_their_envelope(step):
    a, b = step(0, 4, 100.0), step(1, 8, 120.0)
    a.throughput_ci95, b.throughput_ci95 = 5.0, 6.0
    m = maxima.run_maximum([a, b])
    assert m.max_throughput == 120.0 and m.interval == (114.0, 126.0)
    other = maxima.RunMaximum(110.0, 8, 1, 2, 0, interval=(100.0, 120.0))
    rep = maxima.repeated({"r0": m, "r1": other})
    assert rep.interval == (100.0, 126.0)


def test_a_segments_interval_comes_from_the_ends_of_the_two_path_intervals():
    # T(1..3) = 600 ± 10, T(1..4) = 500 ± 10: T(4) = 3000, at least 610·490/120, at most 590·510/80
    lo, hi = segments.segment_interval((590, 610), (490, 510))
    assert lo == pytest.approx(610 * 490 / 120) and hi == pytest.approx(590 * 510 / 80)
    assert lo < 3000 < hi
    assert segments.segment_interval((590, 610), (585, 600)) == (pytest.approx(610 * 585 / 25), None)
    assert segments.segment_interval((590, 610), (615, 630)) is None     # no positive T(k) inside
    g = {x.segment: x for x in segments.decompose({3: 600, 4: 500}, 0.03, {3: (590, 610), 4: (490, 510)})}
    assert g[4].throughput == pytest.approx(3000) and g[4].interval[0] == pytest.approx(lo)
    assert g[4].to_json()["interval"] == [pytest.approx(lo), pytest.approx(hi)]


def test_a_speedup_is_the_ratio_of_two_intervals():
    assert ratio_interval((180, 220), (90, 110)) == (pytest.approx(180 / 110), pytest.approx(220 / 90))
    assert ratio_interval((1, 2), (0, 1)) is None
    rows = [{"id": "base", "tiers": {"clone": 1}, "client_mode": "singleton", "max_throughput": 100.0,
             "interval": (95.0, 105.0)},
            {"id": "two", "tiers": {"clone": 2}, "client_mode": "singleton", "max_throughput": 200.0,
             "interval": (190.0, 210.0)},
            {"id": "pool", "tiers": {"clone": 1}, "client_mode": "pool", "max_throughput": 700.0,
             "interval": (680.0, 720.0)}]
    out = {r["id"]: r for r in clones.scaling(rows)}
    assert out["two"]["speedup"] == 2.0
    assert out["two"]["speedup_interval"] == [pytest.approx(190 / 105), pytest.approx(210 / 95)]
    assert out["pool"]["vs_singleton_interval"] == [pytest.approx(680 / 105), pytest.approx(720 / 95)]
