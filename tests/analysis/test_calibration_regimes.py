"""Calibration: expected segment capacities from demands, serial vs bottleneck predictions."""
import pytest

from analysis import calibration, segments


def lock(us):
    return {"cpu_us": 0, "wait_us": us, "locked": True}


def test_locked_demand_capacity_is_one_over_its_time():
    assert calibration.segment_capacity(lock(2000), cores=4) == (500.0, calibration.FORMULA_LOCKED)


def test_unlocked_cpu_demand_scales_with_cores():
    value, formula = calibration.segment_capacity({"cpu_us": 1000, "wait_us": 5000, "locked": False}, cores=2)
    assert value == 2000.0 and "C=2" in formula


def test_unlocked_wait_consumes_no_shared_resource():
    value, why = calibration.segment_capacity({"cpu_us": 0, "wait_us": 5000, "locked": False}, cores=2)
    assert value is None and "no shared resource" in why


def test_serial_regime_is_matched_by_the_serial_law():
    demands = {2: lock(1000), 3: lock(500), 4: lock(2000)}
    paths = {1: 5000.0, 2: 833.0, 3: 588.0, 4: 270.0}
    out = calibration.compare(demands, paths, segments.decompose(paths), cores=1)
    assert out["matched"] == calibration.SERIAL
    derived = {s["segment"]: s for s in out["segments"]}
    assert derived[4]["expected"] == 500.0 and abs(derived[4]["error"]) < 0.01


def test_parallel_resources_are_matched_by_the_bottleneck_law():
    demands = {2: lock(1000), 3: {"cpu_us": 200, "locked": False}, 4: lock(2000)}
    paths = {1: 5000.0, 2: 990.0, 3: 985.0, 4: 495.0}
    out = calibration.compare(demands, paths, segments.decompose(paths), cores=1)
    assert out["matched"] == calibration.BOTTLENECK and "bottleneck law matched" in out["verdict"]
    rows = {p["path"]: p for p in out["paths"]}
    assert rows[4]["bottleneck_prediction"] == 500.0
    assert rows[4]["serial_prediction"] == pytest.approx(1 / (1 / 5000 + 1 / 1000 + 1 / 5000 + 1 / 500))


def test_one_dominant_segment_cannot_tell_the_regimes_apart():
    demands = {2: lock(100_000)}                      # c(2) = 10/s against T(1) = 5000/s
    paths = {1: 5000.0, 2: 10.0}
    out = calibration.compare(demands, paths, segments.decompose(paths), cores=1)
    assert out["matched"] == "indistinguishable"


def test_per_segment_cores_are_used():
    demands = {2: {"cpu_us": 1000, "locked": False}, 3: {"cpu_us": 1000, "locked": False}}
    out = calibration.compare(demands, {1: 1e5, 2: 900.0, 3: 900.0}, [], cores={2: 1, 3: 4})
    expected = {s["segment"]: s["expected"] for s in out["segments"]}
    assert expected[2] == 1000.0 and expected[3] == 4000.0


def test_demands_are_read_from_run_json_keyed_by_segment():
    assert calibration.demands_from_run({"demands": {"2": lock(1), "x": {}}}) == {2: lock(1)}
