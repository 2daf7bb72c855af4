"""Maximum throughput, critical users and repeats."""
from analysis.measure import maxima
from analysis.steps import HIGH_ERRORS, LOADGEN_SATURATED


def test_maximum_ignores_excluded_steps(step):
    m = maxima.run_maximum([step(0, 1, 100), step(1, 2, 300, {HIGH_ERRORS: "x"}), step(2, 4, 200)])
    assert (m.max_throughput, m.critical_users, m.step, m.excluded_steps) == (200, 4, 2, 1)


def test_critical_users_are_the_fewest_users_reaching_a_tied_maximum(step):
    m = maxima.run_maximum([step(0, 2, 200), step(1, 4, 250), step(2, 8, 250)])
    assert m.critical_users == 4


def test_run_without_valid_steps_has_no_maximum_and_says_why(step):
    m = maxima.run_maximum([step(0, 2, 900, {LOADGEN_SATURATED: "x"})])
    assert m.max_throughput is None and "excluded" in m.reason


def test_repeats_give_median_of_maxima_with_spread():
    ms = {f"r{i}": maxima.RunMaximum(x, u, 0, 3, 0) for i, (x, u) in enumerate([(490, 4), (500, 8), (520, 8)])}
    r = maxima.repeated(ms)
    assert (r.max_throughput, r.critical_users, r.runs, r.minimum, r.maximum) == (500, 8, 3, 490, 520)
    assert abs(r.spread - 0.06) < 1e-12


def test_a_single_run_has_no_spread():
    assert maxima.repeated({"a": maxima.RunMaximum(10.0, 1, 0, 1, 0)}).spread is None


def test_repeats_are_grouped_by_configuration_not_by_id_or_repeat_index():
    metas = {"a": {"id": "a", "path": 4, "repeat": 0}, "b": {"id": "b", "path": 4, "repeat": 1},
             "c": {"id": "c", "path": 5, "repeat": 0}}
    assert sorted(maxima.group_by_config(metas).values()) == [["a", "b"], ["c"]]
