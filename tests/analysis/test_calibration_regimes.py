"""Calibration: expected segment throughputs from demands, serial vs bottleneck predictions."""
import pytest

from analysis.judge import calibration
from analysis.measure import segments
def lock(us):
    return {"cpu_us": 0, "wait_us": us, "locked": True}


def compare(demands, paths, **kw):
    return calibration.compare(demands, paths, segments.decompose(paths), **kw)


def test_locked_demand_capacity_is_one_over_its_time():
    assert calibration.segment_capacity({"SEG4": lock(2000)}, cores=4) == (500.0, "1e6/(cpu_us+wait_us)")


def test_unlocked_cpu_demand_scales_with_cores():
    value, formula = calibration.segment_capacity({"SEG2": {"cpu_us": 1000, "wait_us": 5000}}, cores=2)
    assert value == 2000.0 and "C=2" in formula


def test_unlocked_wait_holds_no_shared_resource():
    value, why = calibration.segment_capacity({"SEG2": {"cpu_us": 0, "wait_us": 5000}}, cores=2)
    assert value is None and "no shared resource" in why


def test_points_of_one_segment_add_up():
    value, _ = calibration.segment_capacity({"INVOKER": lock(1000), "CLONE": lock(1000)}, cores=1)
    assert value == 500.0


def test_serial_regime_is_matched_by_the_serial_law():
    demands = {"SEG2": lock(1000), "SEG3": lock(500), "SEG4": lock(2000)}
    out = compare(demands, {1: 5000.0, 2: 833.0, 3: 588.0, 4: 270.0})
    assert out["matched"] == calibration.SERIAL
    seg4 = next(s for s in out["segments"] if s["segment"] == 4)
    assert seg4["expected"] == 500.0 and abs(seg4["error"]) < 0.01


def test_parallel_resources_are_matched_by_the_bottleneck_law():
    demands = {"SEG2": lock(1000), "SEG3": {"cpu_us": 200, "locked": False}, "CLONE": lock(2000)}
    out = compare(demands, {1: 5000.0, 2: 990.0, 3: 985.0, 4: 983.0, 5: 495.0})
    assert out["matched"] == calibration.BOTTLENECK and "bottleneck law matched" in out["verdict"]
    rows = {p["path"]: p for p in out["paths"]}
    assert rows[5]["bottleneck_prediction"] == pytest.approx(500.0)
    assert rows[5]["bottleneck_resource"] == "lock of clone"
    assert rows[5]["serial_prediction"] == pytest.approx(1 / (1 / 5000 + 1 / 1000 + 1 / 5000 + 1 / 500))


def test_a_measurement_between_the_laws_goes_to_the_nearer_by_ratio_not_to_the_lower_one():
    # a CI rehearsal's quick parallel run on a host loaded by other tests: path 4 at the serial
    # prediction (111/s: 125 bottleneck), path 5 at 46/s between the serial 27.0 and the
    # bottleneck 62.5. By relative error the serial law "won" (21.0 % vs 23.8 %) although
    # path 5 sits a factor 1.36 below one law and 1.70 above the other (figures as rounded in the log).
    demands = {"SEG2": lock(8000), "CLONE": lock(16000), "SERVICE": lock(12000)}
    out = compare(demands, {1: 1018.0, 4: 111.0, 5: 46.0}, backend="axis")
    assert out["mean_abs_error"][calibration.SERIAL] < out["mean_abs_error"][calibration.BOTTLENECK]
    assert out["matched"] == calibration.BOTTLENECK
    assert out["mean_factor"][calibration.BOTTLENECK] < out["mean_factor"][calibration.SERIAL]
    assert "×" in out["verdict"] and "geometric" in out["verdict"]


def test_a_factor_too_low_and_the_same_factor_too_high_are_equal_misses():
    rows = [{"path": 2, "measured": 100.0, "serial_prediction": 50.0, "serial_error": -0.5,
             "bottleneck_prediction": 200.0, "bottleneck_error": 1.0}]
    out = calibration.verdict(rows, 0.03)
    assert out["mean_factor"][calibration.SERIAL] == pytest.approx(out["mean_factor"][calibration.BOTTLENECK])


def test_two_points_under_one_process_lock_share_it():
    res = calibration.resource_demands({"SEG2": lock(1000), "SEG4": lock(1000)}, 4, None, {}, 1.0, None, None)
    assert res == {"lock of front": pytest.approx(0.002)}


def test_each_replica_has_its_own_lock():
    res = calibration.resource_demands({"CLONE": lock(2000)}, 5, None, {"clone": 4}, 1.0, None, None)
    assert res["lock of clone"] == pytest.approx(0.0005)


def test_service_point_belongs_to_the_backend_of_the_run():
    res = calibration.resource_demands({"SERVICE": lock(1000)}, 5, "gsoap", {}, 1.0, None, None)
    assert set(res) == {"lock of gsoap"}


def test_cpu_quotas_make_a_quoted_tier_its_own_cpu_and_the_rest_share_the_stack():
    demands = {"SEG2": {"cpu_us": 1000}, "CLONE": {"cpu_us": 1000}, "SERVICE": {"cpu_us": 1000}}
    res = calibration.resource_demands(demands, 5, "axis", {}, 2.0, {"clone": 0.5}, None)
    assert res == {"CPU of stack": pytest.approx(0.001), "CPU of clone": pytest.approx(0.002)}


def test_one_dominant_resource_cannot_tell_the_regimes_apart():
    out = compare({"SEG2": lock(100_000)}, {1: 5000.0, 2: 10.0})   # c(2) = 10/s against 5000/s
    assert out["matched"] == "indistinguishable"


def test_unknown_demand_points_are_listed_not_used():
    out = compare({"SEG9": lock(1000)}, {1: 5000.0, 2: 4990.0})
    assert out["ignored_points"] == ["SEG9"]
