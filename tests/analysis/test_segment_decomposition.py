"""Serial-demand law decomposition and composition."""
import math

import pytest

from analysis.measure import segments
def by_segment(rows):
    return {r.segment: r for r in rows}


def test_worked_example_of_experiments_md():
    assert segments.segment_throughput(600, 500) == (3000, None)


def test_first_segment_is_the_first_path():
    assert by_segment(segments.decompose({1: 3000.0}))[1].throughput == 3000.0


def test_segment_throughput_is_not_negative_when_paths_tie():
    rows = by_segment(segments.decompose({1: 1000.0, 2: 1000.0}))
    assert rows[2].throughput is None and "not measurable" in rows[2].reason


def test_segment_is_not_measurable_when_longer_path_is_slightly_faster():
    rows = by_segment(segments.decompose({1: 1000.0, 2: 1010.0}))
    assert rows[2].throughput is None and rows[2].reason


def test_longer_path_faster_beyond_tolerance_points_at_non_serial_resources():
    rows = by_segment(segments.decompose({1: 1000.0, 2: 1200.0}))
    assert rows[2].throughput is None and "bottleneck law" in rows[2].reason


def test_difference_within_tolerance_is_not_measurable_and_never_huge():
    value, why = segments.segment_throughput(1000.0, 980.0, tolerance=0.03)
    assert value is None and why
    value, why = segments.segment_throughput(1000.0, 960.0, tolerance=0.03)
    assert value == pytest.approx(24000.0) and why is None


def test_no_result_is_negative_or_infinite_for_any_pair():
    for prev in (1.0, 10.0, 999.0, 1000.0):
        for cur in (1.0, 9.9, 10.0, 10.1, 500.0, 1000.0, 2000.0):
            value, _ = segments.segment_throughput(prev, cur)
            assert value is None or (value > 0 and math.isfinite(value))


def test_missing_path_makes_its_segment_and_the_next_not_separable():
    rows = by_segment(segments.decompose({1: 3000.0, 3: 600.0}))
    assert rows[2].throughput is None and rows[3].throughput is None and "1..2" in rows[3].reason


def test_decomposition_of_the_cli_example():
    rows = by_segment(segments.decompose({1: 3000, 2: 2500, 3: 2400, 4: 2390, 5: 300}))
    assert rows[2].throughput == pytest.approx(15000) and rows[3].throughput == pytest.approx(60000)
    assert rows[4].throughput is None
    assert rows[5].throughput == pytest.approx(2390 * 300 / 2090)


def test_repeat_spread_widens_the_tolerance_of_the_segments_it_touches():
    tol = segments.tolerances({1: None, 2: None, 3: 0.10, 4: None}, base=0.03)
    assert tol == {1: 0.03, 2: 0.03, 3: 0.10, 4: 0.10}


def test_per_segment_tolerance_is_applied():
    rows = by_segment(segments.decompose({1: 1000.0, 2: 950.0}, {2: 0.10}))
    assert rows[2].throughput is None and rows[2].tolerance == 0.10


def test_composition_is_the_serial_law_backwards():
    assert segments.whole_path(500.0, 125.0) == pytest.approx(100.0)
    assert segments.compose(600.0, 3000.0) == pytest.approx(500.0)


def test_composition_rejects_a_zero_throughput():
    with pytest.raises(ValueError):
        segments.compose(500.0, 0.0)
