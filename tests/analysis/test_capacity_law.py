"""Interactive response-time law N = N* + X·Z."""
import pytest

from analysis.measure.capacity import LAW, capacity


def test_capacity_adds_throughput_times_think_time_to_critical_users():
    c = capacity(300.0, 40, 2.0)
    assert c.users == 640.0 and LAW in c.sentence() and "N = N* + X·Z" in c.sentence()


def test_zero_think_time_leaves_the_critical_point():
    assert capacity(300.0, 40, 0.0).users == 40


def test_negative_think_time_is_refused():
    with pytest.raises(ValueError):
        capacity(300.0, 40, -1.0)
