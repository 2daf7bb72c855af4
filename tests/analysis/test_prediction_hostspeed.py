"""The host speed probe (speed.csv) and the prediction's second reading at the measured host speed."""
import csv
import json
import shutil
import time

import pytest

from analysis.load import hostspeed
from analysis.load.folder import load
from analysis.predict import atspeed, forecast, section
from analysis.predict.model import Model, solve_model
from analysis.steps import run_steps
from testbed.run.record import speedprobe
from testbed.run.record.sampler import CpuSampler


def test_the_sampler_times_the_probe_beside_its_cpu_rows_only_where_asked(tmp_path):
    s = CpuSampler(tmp_path / "cpu.csv", lambda: [], interval=0.3, speed=tmp_path / "speed.csv").start()
    time.sleep(1.2)
    s.stop()
    rows = list(csv.DictReader(open(tmp_path / "speed.csv")))
    assert len(rows) >= 3 and all(float(r["probe_us"]) > 0 for r in rows) and not s.errors
    assert [float(r["timestamp"]) for r in rows] == sorted(float(r["timestamp"]) for r in rows)
    s = CpuSampler(tmp_path / "cpu2.csv", lambda: [], interval=0.3).start()
    time.sleep(0.5)
    s.stop()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "cpu.csv", "cpu2.csv", "speed.csv"]


def test_the_probe_times_its_work_in_cpu_time(monkeypatch):
    # four times the work takes longer (the fastest of three medians each, against the noise
    # of a shared host); a sleep in between is not counted: thread CPU time, not wall time
    one = min(speedprobe.probe_us() for _ in range(3))
    monkeypatch.setattr(speedprobe, "WORK", speedprobe.WORK * 4)
    assert min(speedprobe.probe_us() for _ in range(3)) > 2 * one > 0


def test_a_window_needs_three_samples_and_a_missing_file_gives_nothing(tmp_path):
    (tmp_path / "speed.csv").write_text("timestamp,probe_us\n10.0,600\n11.0,700\n12.0,800\nbad,row\n13.0,\n")
    samples = hostspeed.read(tmp_path)
    assert samples == [(10.0, 600.0), (11.0, 700.0), (12.0, 800.0)]
    assert hostspeed.window_us(samples, 10.0, 12.0) == pytest.approx(700.0)
    assert hostspeed.window_us(samples, 10.5, 12.0) is None and hostspeed.window_us(samples, None, 12.0) is None
    assert hostspeed.read(tmp_path / "nowhere") == []


def test_the_model_on_a_faster_host_divides_its_cpu_demands_and_keeps_its_waits():
    m = {"pools": {"host": 2.0}, "outside": {"host": 0.010}, "inside": {}, "delay_inside": 0.0, "delay_outside": 0.0,
         "lock_servers": None, "clones": 1, "think_time": 0.0, "concurrency": None}
    fast = atspeed.model_at(m, 2.0)
    assert fast.outside == {"host": pytest.approx(0.005)} and fast.lock_servers == float("inf")
    # CPU-bound without a lock: the saturation throughput is cores / demand, so it doubles
    assert solve_model(Model(**atspeed.model_at(m, 1.0).__dict__), 64).throughput == pytest.approx(200, rel=1e-3)
    assert solve_model(fast, 64).throughput == pytest.approx(400, rel=1e-3)
    # a lock held 50 ms of pure waiting: the host's speed does not move its 20/s
    locked = {**m, "outside": {"host": 0.001}, "delay_inside": 0.050, "lock_servers": 1}
    assert solve_model(atspeed.model_at(locked, 2.0), 64).throughput == pytest.approx(
        solve_model(atspeed.model_at(locked, 1.0), 64).throughput, rel=0.01)
    # a crowded demand (a per-request clone's build, model.py "Crowding"), written to JSON and read
    # back: divided as the rest, its factor kept — so on a host twice as fast it stays within the
    # outside demand and the saturation doubles
    crowded = {**m, "crowded": {"host": 0.004}, "crowding": [[2, 1.0], [64, 1.25]]}
    fast = atspeed.model_at(json.loads(json.dumps(crowded)), 2.0)
    assert fast.crowded == {"host": pytest.approx(0.002)} and fast.crowding == ((2.0, 1.0), (64.0, 1.25))
    assert solve_model(fast, 64).throughput == pytest.approx(2 * solve_model(atspeed.model_at(crowded, 1.0), 64).throughput,
                                                             rel=1e-3)
    assert solve_model(fast, 64).throughput == pytest.approx(2 / 0.0055, rel=1e-3)


def _timed_copy(folder, tmp_path, base_us: float, run_us: float):
    """The handmade folder with a speed.csv in each run: the probe at base_us through the
    baseline, at run_us through the 2-clone run."""
    copy = tmp_path / "timed"
    shutil.copytree(folder, copy)
    for run, us in (("singleton-c1-a1", base_us), ("singleton-c2-a1", run_us)):
        ts = [float(r["timestamp"]) for r in csv.DictReader(open(copy / "runs" / run / "cpu.csv"))]
        t, rows = min(ts) - 1, []
        while t <= max(ts) + 1:
            rows.append(f"{t:.3f},{us}\n")
            t += 0.5
        (copy / "runs" / run / "speed.csv").write_text("timestamp,probe_us\n" + "".join(rows))
    result = load(copy)
    return result, run_steps(result)


def test_each_configuration_reads_the_host_speed_and_the_model_at_it(data, tmp_path):
    result, steps = _timed_copy(data / "predict-handmade", tmp_path, base_us=600, run_us=500)
    p = section.build(result, steps, simulate=False)
    row = next(c for c in p["configurations"] if c["runs"] == ["singleton-c2-a1"])
    assert row["host_speed"] == pytest.approx(1.2)
    model = next(c for c in forecast.predict(result, steps)["configurations"] if c["runs"] == ["singleton-c2-a1"])["model"]
    want = max(solve_model(atspeed.model_at(model, 1.2), u).throughput for u in row["users"])
    assert row["predicted_at_host_speed"] == pytest.approx(want)
    assert row["error_at_host_speed"] == pytest.approx((want - row["measured_max_throughput"]) / row["measured_max_throughput"])
    # the prediction and its error are the ones made at the baseline's speed, untouched
    plain = section.build(load(data / "predict-handmade"), run_steps(load(data / "predict-handmade")), simulate=False)
    same = next(c for c in plain["configurations"] if c["runs"] == ["singleton-c2-a1"])
    assert row["error"] == pytest.approx(same["error"]) and same["host_speed"] is None
    assert same["predicted_at_host_speed"] is None and same["error_at_host_speed"] is None


def test_the_report_shows_the_host_speed_table_only_for_runs_that_timed_it(data, tmp_path):
    from analysis.predict import report_section
    from analysis.render import pages
    render = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction
    timed = section.build(*_timed_copy(data / "predict-handmade", tmp_path, base_us=600, run_us=500), simulate=False)
    html = render(report_section.view(timed), {})
    assert 'id="prediction-host-speed"' in html and "1.20×" in html
    plain = load(data / "predict-handmade")
    assert 'id="prediction-host-speed"' not in render(report_section.view(
        section.build(plain, run_steps(plain), simulate=False)), {})


def test_validation_gives_the_saturation_verdicts_once_more_at_the_measured_host_speed(tmp_path, monkeypatch):
    from analysis.predict import validate

    def row(err, speed=None, at_speed=None):
        return {"text": "client per request · clone 1 · service 1", "predicted_max_throughput": 100 * (1 + err),
                "measured_max_throughput": 100.0, "error": err, "sweep_mae": abs(err), "knee_predicted": 4,
                "knee_measured": 4, "knee_steps_apart": 0, "linear_error": 0.5, "usl_error": 0.5,
                "beats_naive": True, "agreement_max_deviation": 0.01, "agree": True, "written_before_runs": True,
                "host_speed": speed, "predicted_at_host_speed": None if at_speed is None else 100 * (1 + at_speed),
                "error_at_host_speed": at_speed}

    folders = {"timed": [row(0.02, 1.0, 0.02), row(-0.25, 1.31, -0.03)], "old": [row(0.01)]}
    monkeypatch.setattr(validate, "rows_of", lambda f, fit_runs=None: (
        {"folder": f, "mode": "local", "written": 1.0, "beside_other_load": None}, folders[f]))
    out = tmp_path / "v.md"
    assert validate.main(["timed", "old", "-o", str(out)]) == 0
    v = json.loads(out.with_suffix(".json").read_text())["verdicts"]
    assert v["every_within_10pct"] is False and v["configurations"] == 3      # the verdicts as predicted
    assert v["at_host_speed"] == {"every_within_10pct": True, "median_within_5pct": True, "configurations": 2,
                                  "median_abs_error": pytest.approx(0.025), "max_abs_error": pytest.approx(0.03)}
    md = out.read_text()
    assert "| 1.31 | -3.0% |" in md and "On the errors at the measured host speed (2 configurations" in md
    # no run timed it: no second reading
    assert validate.main(["old", "-o", str(out)]) == 0
    assert "at_host_speed" not in json.loads(out.with_suffix(".json").read_text())["verdicts"]
