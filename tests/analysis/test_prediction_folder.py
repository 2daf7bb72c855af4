"""The prediction from a result folder: demand extraction on the hand-made folder (exact
numbers, data/make_predict.py), the forecast of an experiment's configurations, summary.json's
"prediction", the report's section, ./testbed predict and the runner's hook."""
import json
import subprocess
import sys

import pytest

from analysis.folder import load
from analysis.predict import demands as dmod, forecast, section
from analysis.predict.runsteps import run_steps
from analysis.predict.calibrate import Config, calibrate, model
from analysis.predict.model import solve_model

ROOT_PY = [sys.executable, "-m", "analysis", "predict"]


@pytest.fixture(scope="module")
def folder(data):
    return data / "predict-handmade"


@pytest.fixture(scope="module")
def loaded(folder):
    result = load(folder)
    return result, run_steps(result)


def test_demands_are_cpu_over_throughput_per_tier_and_the_clone_timers_per_call(loaded):
    result, steps = loaded
    d = dmod.measure(result, steps)
    assert d.baseline_runs == ["singleton-c1-a1"] and len(d.steps) == 3
    ms = {t: round(e.mean * 1e3, 6) for t, e in d.cpu.items()}
    assert ms == {"loadgen": 4.0, "haproxy": 1.5, "front": 3.0, "clone": 2.0, "service": 1.5, "unattributed": 1.0}
    assert d.lock_hold.mean == pytest.approx(0.010)
    assert d.lock_cpu.mean == pytest.approx(0.0012)
    # waits of 20 ms x (users - 1) / 3 at 4, 8, 16 users
    assert d.lock_wait.mean == pytest.approx((20 + 140 / 3 + 100) / 3 / 1e3, rel=1e-6)
    assert d.lock_wait.low is not None and d.lock_wait.low >= 0 and d.lock_wait.high > d.lock_wait.mean
    assert d.service_wait_s == pytest.approx(0.005)
    assert d.pools == {"host": 2.0} and d.threads["front"] == 200 and d.think_time_s == 0
    # one throughput (100/s at every step): no background rate can be fitted, D = U / X, said so
    assert d.background == {} and len(d.missing) == 1
    assert "no background rate U0 fitted" in d.missing[0] and "span only 1.00x" in d.missing[0]


def test_the_cpu_is_split_around_the_lock_and_the_residual_is_fitted_to_the_holding_time(loaded):
    result, steps = loaded
    d = dmod.measure(result, steps)
    cal = calibrate(d)
    # inside: the clone thread's 1.2 ms, a third of HAProxy (0.5), the service 1.5
    assert cal.inside["host"] == pytest.approx(0.0032)
    assert cal.outside["host"] == pytest.approx(0.004 + 1.0e-3 + 0.003 + 0.0008 + 0.001)
    m = model(cal, Config())
    holds = sorted(solve_model(m, s.users).lock_hold for s in d.steps)
    # one latency for every step: the median step's holding time is the measured 10 ms exactly,
    # the others (less or more CPU queueing inside the lock) near it
    assert holds[1] == pytest.approx(0.010, abs=1e-5)
    assert all(h == pytest.approx(0.010, rel=0.06) for h in holds)
    # outside the lock: cycle time 4 / 100 s less the 20 ms wait and 10 ms hold, less its CPU
    assert 0 < cal.residual_outside < 0.010


def test_a_folder_without_a_baseline_is_refused_naming_the_fix(data):
    result = load(data / "segments-handmade")
    with pytest.raises(dmod.NoBaseline, match="no baseline run .*./testbed run clones"):
        dmod.measure(result, run_steps(result))


def test_every_planned_configuration_is_predicted_but_a_client_per_request(loaded):
    result, steps = loaded
    p = forecast.predict(result, steps, own_request_steps=False)
    texts = [c["text"] for c in p["configurations"]]
    assert texts == ["singleton · clone 1 · service 1", "singleton · clone 1 · service 2",
                     "singleton · clone 2 · service 1", "singleton · clone 4 · service 1",
                     "pool of 8 · clone 1 · service 1"]
    assert [n["runs"] for n in p["not_predicted"]] == [["request-c1-a1"]]
    by = {c["text"]: c for c in p["configurations"]}
    base = by["singleton · clone 1 · service 1"]["predicted_max_throughput"]
    # more service replicas: the same; more clones: more, until the host's 2 cores (13 ms a request)
    assert by["singleton · clone 1 · service 2"]["predicted_max_throughput"] == pytest.approx(base)
    assert base < by["singleton · clone 2 · service 1"]["predicted_max_throughput"] <= 2 / 0.013 + 1e-6
    assert by["singleton · clone 2 · service 1"]["naive"]["multiple"] == 2
    assert by["pool of 8 · clone 1 · service 1"]["naive"]["linear"][0] == pytest.approx(8 * 100)


def test_summary_and_report_carry_the_prediction_with_its_error_table(folder, tmp_path):
    from analysis.report import regenerate
    written = regenerate(folder, tmp_path)
    s = json.loads(written["summary.json"].read_text())
    p = s["prediction"]
    c2 = next(c for c in p["configurations"] if c["runs"] == ["singleton-c2-a1"])
    assert c2["measured_max_throughput"] == pytest.approx(140, rel=0.01)
    assert c2["error"] == pytest.approx((c2["predicted_max_throughput"] - c2["measured_max_throughput"])
                                        / c2["measured_max_throughput"])
    assert c2["linear_max_throughput"] == pytest.approx(200) and c2["beats_naive"] is True
    assert c2["agree"] is True and c2["agreement_max_deviation"] <= 0.02
    assert c2["written_before_runs"] is False          # no prediction.json: made when reported
    html = written["report.html"].read_text()
    assert 'id="prediction"' in html and 'id="prediction-demands"' in html
    assert "Predicted before measured" in html and "Not predicted: request" in html


@pytest.mark.parametrize("target,reached,shown", [(120, True, "<b>reached</b>"),
                                                   (160, False, '<span class="flag">not reached</span>')])
def test_a_target_check_says_whether_the_named_run_reached_the_target(folder, tmp_path, target, reached, shown):
    """An experiment that `predict --target --experiment` wrote (settings.target_throughput,
    target_run): the summary and the report say whether that run measured at least the target
    (the handmade 2-clone run measures 140/s)."""
    import shutil
    from analysis.report import regenerate
    copy = tmp_path / "folder"
    shutil.copytree(folder, copy)
    exp = json.loads((copy / "experiment.json").read_text())
    exp["settings"].update(target_throughput=target, target_run="singleton-c2-a1")
    (copy / "experiment.json").write_text(json.dumps(exp))
    written = regenerate(copy, tmp_path / "out")
    t = json.loads(written["summary.json"].read_text())["prediction"]["target"]
    assert (t["throughput"], t["run"], t["reached"]) == (target, "singleton-c2-a1", reached)
    assert t["measured_max_throughput"] == pytest.approx(140, rel=0.01) and t["predicted_max_throughput"] > 0
    html = written["report.html"].read_text()
    assert 'id="prediction-target"' in html and shown in html and ("not reached" in html) == (not reached)
    # any other experiment: no target line
    plain = json.loads(regenerate(folder, tmp_path / "plain")["summary.json"].read_text())["prediction"]
    assert plain["target"] is None


def test_a_prediction_written_before_the_runs_is_the_one_compared(folder, tmp_path):
    import shutil
    copy = tmp_path / "f"
    shutil.copytree(folder, copy)
    result = load(copy)
    pred = forecast.predict(result, run_steps(result), own_request_steps=False)
    pred["written"] = 1.0                                # before every run started
    (copy / forecast.FILE).write_text(json.dumps(pred))
    p = section.build(load(copy), run_steps(load(copy)), simulate=False)
    c2 = next(c for c in p["configurations"] if c["runs"] == ["singleton-c2-a1"])
    assert c2["written_before_runs"] is True and p["file"] == forecast.FILE


def test_cli_prints_json_with_a_throughput_per_user_count(folder, tmp_path):
    out = subprocess.run(ROOT_PY + [str(folder), "--clones", "2", "--users", "4,16", "--json", "--no-check",
                                    "-o", str(tmp_path / "p.png")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert set(j["throughput"]) == {"4", "16"} and j["throughput"]["16"] > 100
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_cli_target_names_the_smallest_configuration_and_its_users(folder, tmp_path):
    toml = tmp_path / "check.toml"
    out = subprocess.run(ROOT_PY + [str(folder), "--target", "120/s", "--think-time", "30", "--json",
                                    "--experiment", str(toml)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    t = json.loads(out.stdout)["target"]
    assert t["reached"] and t["max_throughput"] >= 120
    assert t["users"] == pytest.approx(t["critical_users"] + t["max_throughput"] * 30)
    # the experiment that checks it: the baseline beside the configuration named
    from testbed.run.definition import load as load_definition
    runs = load_definition(toml).runs
    assert [r.client_mode for r in runs] == ["singleton", t["config"]["client_mode"]]
    assert runs[1].tiers["clone"] == t["config"]["clones"] and t["critical_users"] in runs[1].load.users
    # and says what to compare: the report tells whether that run reached the target
    settings = load_definition(toml).settings
    assert settings["target_throughput"] == 120 and runs[1].id == settings["target_run"] + "-r0"   # its repeat 0
    over = subprocess.run(ROOT_PY + [str(folder), "--target", "1000/s"], capture_output=True, text=True, timeout=300)
    assert over.returncode == 0 and "not reachable" in over.stdout and "--cores" in over.stdout


@pytest.mark.parametrize("args,message", [
    (["{empty}"], "is not a result folder"),
    (["{seg}"], "no baseline run"),
    (["{pred}", "--client-mode", "request"], "cannot be predicted from a singleton baseline"),
    (["{pred}", "--users", "0,4"], "user counts must be 1..5000"),
    (["{pred}", "--target", "fast"], "expected a throughput like 100/s"),
])
def test_cli_errors_name_the_fix(data, folder, tmp_path, args, message):
    args = [a.format(seg=data / "segments-handmade", pred=folder, empty=tmp_path) for a in args]
    out = subprocess.run(ROOT_PY + args, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and message in out.stderr


def test_the_runner_predicts_right_after_the_last_baseline_run():
    from testbed.run.predicting import due
    base = {"kind": "clones", "tiers": {"front": 1, "clone": 1, "axis": 1}, "client_mode": "singleton", "backend": "axis"}
    other = {**base, "tiers": {"front": 1, "clone": 2, "axis": 1}}
    plan = [base, base, other, other]
    assert [due(plan, i) for i in range(4)] == [False, True, False, False]
    rounds = [base, other, base, other]                             # --repeat 2: rounds interleave
    assert [due(rounds, i) for i in range(4)] == [True, False, False, False]
    assert not any(due([other, other], i) for i in range(2))         # no baseline, no prediction
    assert not any(due([base], i) for i in range(1))                 # nothing left to predict


def test_client_time_rows_come_from_the_clone_status_counters():
    from testbed.run.clienttime import rows
    status = {"backends": {"axis": {"client_time": {"calls": 3, "wait_ns": 10, "hold_ns": 20, "hold_cpu_ns": 5}},
                           "gsoap": {"calls": 0}}}
    assert rows("2", status, 12.5) == ["12.500,2,axis,3,10,20,5\n"]
