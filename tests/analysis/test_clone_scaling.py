"""Clone speed-up and efficiency against the 1-replica baseline of the same kind."""
import pytest

from analysis.measure import clones
def row(rid, clone, axis, mode, x):
    return {"id": rid, "tiers": {"front": 1, "clone": clone, "axis": axis}, "client_mode": mode,
            "pool_size": None, "config": {"backend": "axis"}, "max_throughput": x}


ROWS = [row("base", 1, 1, "singleton", 100), row("c2", 2, 1, "singleton", 190),
        row("c4", 4, 1, "singleton", 370), row("a2", 1, 2, "singleton", 102),
        row("a4", 1, 4, "singleton", 99), row("req", 1, 1, "request", 300),
        row("both", 2, 2, "singleton", 200)]


def by_id():
    return {r["id"]: r for r in clones.scaling(ROWS)}


def test_client_tier_speedup_and_efficiency_against_one_clone():
    r = by_id()["c4"]
    assert r["scaling"] == "client tier" and r["speedup"] == pytest.approx(3.7)
    assert r["efficiency"] == pytest.approx(0.925) and r["baseline_runs"] == ["base"]


def test_service_tier_scaling_is_reported_apart_from_client_tier():
    r = by_id()["a4"]
    assert r["scaling"] == "service tier" and r["speedup"] == pytest.approx(0.99)
    assert r["efficiency"] == pytest.approx(0.2475)


def test_baseline_run_has_speedup_one():
    r = by_id()["base"]
    assert (r["speedup"], r["efficiency"], r["scaled_tier"]) == (1.0, 1.0, "baseline")


def test_request_mode_is_a_ratio_to_singleton_with_the_same_tiers():
    r = by_id()["req"]
    assert r["vs_singleton"] == pytest.approx(3.0) and r["speedup"] is None


def test_run_scaling_two_tiers_at_once_gets_no_speedup():
    assert by_id()["both"]["speedup"] is None


def test_speedup_uses_the_median_of_repeated_baselines():
    rows = ROWS + [dict(row("base", 1, 1, "singleton", 120), id="base2"),
                   dict(row("base", 1, 1, "singleton", 80), id="base3")]
    r = {x["id"]: x for x in clones.scaling(rows)}["c2"]
    assert r["speedup"] == pytest.approx(1.9) and sorted(r["baseline_runs"]) == ["base", "base2", "base3"]


def test_curves_start_at_one_replica_for_each_tier():
    curves = clones.curves(clones.scaling(ROWS))
    assert [p[:2] for p in curves["client tier"]] == [(1, 1.0), (2, 1.9), (4, 3.7)]
    assert [p[0] for p in curves["service tier"]] == [1, 2, 4]


def test_a_lifecycles_own_emulated_demand_is_left_out_only_when_asked():
    # the classic-system profile gives the pool run its own Invoker CPU: held against the
    # singleton all the same; without the profile's points, a run with other demands is not
    demands = {"SERVICE": {"cpu_us": 0, "wait_us": 20000, "locked": False},
               "INVOKER": {"cpu_us": 700, "wait_us": 0, "locked": False}}
    single = dict(row("s", 1, 1, "singleton", 30), config={"backend": "axis", "demands": demands})
    pool = dict(row("p", 1, 1, "pool", 390), config={"backend": "axis", "demands": {
        **demands, "INVOKER": {"cpu_us": 1000, "wait_us": 0, "locked": False}}})
    plain = {r["id"]: r for r in clones.scaling([single, pool])}
    assert plain["p"]["vs_singleton"] is None
    profiled = {r["id"]: r for r in clones.scaling([single, pool], clones.PROFILE_LIFECYCLE_POINTS)}
    assert profiled["p"]["vs_singleton"] == pytest.approx(13.0)
    other = dict(pool, config={"backend": "axis", "demands": {**demands, "SERVICE": {"cpu_us": 0, "wait_us": 1,
                                                                                     "locked": False}}})
    assert {r["id"]: r for r in clones.scaling([single, other], clones.PROFILE_LIFECYCLE_POINTS)}["p"][
        "vs_singleton"] is None                       # any other demand still keeps them apart
