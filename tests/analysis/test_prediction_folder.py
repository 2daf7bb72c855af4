"""The prediction from a result folder: demand extraction on the hand-made folder (exact
numbers, data/make_predict.py), the forecast of an experiment's configurations, summary.json's
"prediction", the report's section, ./testbed predict and the runner's hook."""
import json
import shutil
import subprocess
import sys

import pytest

from analysis.load.folder import load
from analysis.predict import baseline_demands as dmod, command, forecast, section
from analysis.predict.fit import Config, fit, model
from analysis.predict.model import solve_model
from analysis.steps import run_steps
from handmade_probe import PROBE, RESTARTED, request_run, with_probe

ROOT_PY = [sys.executable, "-m", "analysis", "predict"]


@pytest.fixture(scope="module")
def folder(predict_handmade):
    """The hand-made folder's copy (the simulation's cache, prediction-check.json, is committed so
    that its points need not be simulated again)."""
    return predict_handmade


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
    cal = fit(d)
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


def test_the_latency_outside_the_lock_rests_on_the_short_cycles(loaded):
    """A step's time outside the lock is its cycle N/X less two measured times of nearly that
    size: at 64 users a 1 % error of the throughput is 6 ms here (2.5 s on this host's
    singleton). Three many-user steps whose figures are 20 ms off move the fit by less than a
    millisecond, where the median of the six would follow them."""
    from dataclasses import replace
    result, steps = loaded
    d = dmod.measure(result, steps)
    low = fit(d).residual_outside                  # 4, 8, 16 users: cycles of 40, 80, 160 ms
    noisy = [replace(d.steps[0], users=n, lock_wait=n / 100 - 0.010 - 0.030) for n in (48, 64, 96)]  # outside: 30 ms
    fitted = fit(replace(d, steps=d.steps + noisy)).residual_outside
    assert low > 0 and abs(fitted - low) < 0.001
    assert fit(replace(d, steps=noisy)).residual_outside > low + 0.010       # they alone: theirs


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
    from analysis.render.report import regenerate
    written = regenerate(folder, tmp_path)
    s = json.loads(written["summary.json"].read_text())
    p = s["prediction"]
    assert p["target"] is None                            # no `predict --target` wrote this experiment
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
    from analysis.render.report import regenerate
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
    assert t["answered_max_throughput"] is None and "<code>predict</code> answered" not in html   # an older runner's file
    if reached:
        return                            # what follows depends on no target: checked once
    # what `predict` answered, and from where, beside this run's own re-prediction
    exp["settings"].update(target_predicted=126.0, target_from="results/classic-x")
    (copy / "experiment.json").write_text(json.dumps(exp))
    written = regenerate(copy, tmp_path / "out2")
    t = json.loads(written["summary.json"].read_text())["prediction"]["target"]
    assert t["answered_max_throughput"] == 126.0 and t["answered_from"] == "results/classic-x"
    assert t["answered_error"] == pytest.approx(126.0 / t["measured_max_throughput"] - 1)
    html = written["report.html"].read_text()
    assert "answered 126/s for it from results/classic-x (-10.0% against the measurement)" in html


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
    from testbed.experiment.definition import load as load_definition
    runs = load_definition(toml).runs
    assert [r.client_mode for r in runs] == ["singleton", t["config"]["client_mode"]]
    assert runs[1].tiers["clone"] == t["config"]["clones"] and t["critical_users"] in runs[1].load.users
    # and says what to compare: the report tells whether that run reached the target
    settings = load_definition(toml).settings
    assert settings["target_throughput"] == 120 and runs[1].id == settings["target_run"] + "-r0"   # its repeat 0
    assert settings["target_predicted"] == pytest.approx(t["max_throughput"], abs=0.05)
    assert settings["target_from"] == str(folder)
    # both primed by the steady-state rule, not for fixed seconds; the baseline's ceiling as clones.toml's
    assert [r.load.warm for r in runs] == ["steady", "steady"] and [r.load.prime_seconds for r in runs] == [0, 0]
    assert runs[0].load.warm_max_seconds == 300 and runs[1].load.warm_max_seconds == 240
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
    from testbed.run.record.clienttime import rows
    status = {"backends": {"axis": {"client_time": {"calls": 3, "wait_ns": 10, "hold_ns": 20, "hold_cpu_ns": 5}},
                           "gsoap": {"calls": 0}}}
    assert rows("2", status, 12.5) == ["12.500,2,axis,3,10,20,5\n"]


def test_a_client_per_request_is_predicted_from_the_baseline_and_the_client_build_probe(folder, tmp_path):
    result, steps = with_probe(folder, tmp_path, PROBE)
    p = forecast.predict(result, steps, own_request_steps=False)
    assert p["not_predicted"] == [] and p["build_probe"]["builds"] == 400
    req = next(c for c in p["configurations"] if c["runs"] == ["request-c1-a1"])
    assert "client-build probe" in req["fitted_to"] and "400 builds" in req["fitted_to"]
    m = req["model"]
    # the baseline's 13 ms a request, all outside any lock, plus the build's 2 ms (the idle
    # gsoap's figure left out), and no lock
    assert m["outside"]["host"] == pytest.approx(0.015) and m["inside"] == {} and m["lock_servers"] is None
    # the build's 2.5 ms wall time less its 2 ms of CPU is a delay on top of the baseline's
    cal = fit(dmod.measure(result, steps))
    assert m["delay_inside"] == pytest.approx(cal.service_wait + max(cal.residual, 0) + 0.0005)
    # CPU-bound at 2 cores / 15 ms once enough users are there
    assert solve_model(model(cal, Config(client_mode="request"), request=forecast.buildcost.request_fit(
        cal, forecast.buildcost.read(result.path, result.settings)[0], dmod.measure(result, steps))), 200).throughput == \
        pytest.approx(2 / 0.015, rel=0.01)


def test_the_reports_demand_table_shows_the_client_builds_cost(folder, tmp_path):
    from analysis.render.report import regenerate
    result, _ = with_probe(folder, tmp_path, PROBE)
    written = regenerate(result.path, tmp_path / "report")
    s = json.loads(written["summary.json"].read_text())
    assert s["prediction"]["build_probe"]["cpu_s_per_build"]["clone"] == pytest.approx(0.001)
    html = written["report.html"].read_text()
    assert "client build: clone CPU" in html and "client build: median wall time" in html
    assert "the client-build probe (400 builds, build_probe.json)" in html
    assert "Not predicted: request" not in html


def test_a_client_per_request_measured_cold_is_named_and_left_out_of_the_errors(folder, tmp_path):
    """classic-20261205-002016's request run: the clone restarted for the lifecycle, no prime,
    388/s measured against 533/s predicted from the probe's warm build (+37 %). Marked, left out
    of the median and largest |error|, said in the report; primed, or a singleton restarted
    unprimed, it is not."""
    from analysis.predict import report_section
    from analysis.render import pages
    with_probe(folder, tmp_path, PROBE)
    copy = tmp_path / "with-probe"
    single = copy / "runs" / "singleton-c2-a1" / "run.json"      # scaled and not primed either
    meta = json.loads(single.read_text())
    single.write_text(json.dumps({**meta, "notes": {**meta["notes"], "reconfigured": ["scale clone 1 -> 2"],
                                                     "primed": False}}))
    result, steps = request_run(copy, {"reconfigured": RESTARTED, "primed": False})
    p = section.build(result, steps, simulate=False)
    rows = {tuple(r["runs"]): r for r in p["configurations"]}
    req = rows[("request-c1-a1",)]
    assert req["error"] is not None and req["measured_cold"].startswith("measured cold: its run restarted the clone")
    assert "build_probe.json" in req["measured_cold"]
    assert [r["measured_cold"] for k, r in rows.items() if k != ("request-c1-a1",)] == [None] * (len(rows) - 1)
    assert p["measured_cold_left_out"] == [req["text"]]
    others = [abs(r["error"]) for r in rows.values() if not r["baseline"] and r["error"] is not None
              and r is not req]
    assert p["max_abs_error"] == pytest.approx(max(others)) and abs(req["error"]) > max(others)
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(report_section.view(p), {})
    assert f"but {req['text']} (measured cold, below)" in html and 'id="prediction-cold"' in html
    assert f"Not a test of the model: {req['text']}, measured cold:" in html
    # primed after the restart: a test of the model like any other run
    shutil.rmtree(copy / "runs" / "request-c1-a1")
    p = section.build(*request_run(copy, {"reconfigured": RESTARTED, "primed": True}), simulate=False)
    assert p["measured_cold_left_out"] == [] and p["max_abs_error"] == pytest.approx(abs(req["error"]))
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(report_section.view(p), {})
    assert "measured cold" not in html


@pytest.mark.parametrize("probe,why", [
    ({"format": 1, "backend": "axis", "error": "ProbeError: no clone replica with an address to ask"},
     "the client-build probe failed: ProbeError: no clone replica"),
    ({**PROBE, "backend": "gsoap"}, "the client-build probe built gsoap clients, the baseline calls axis"),
])
def test_without_a_usable_probe_the_client_per_request_is_not_predicted_and_says_why(folder, tmp_path, probe, why):
    result, steps = with_probe(folder, tmp_path, probe)
    p = forecast.predict(result, steps, own_request_steps=False)
    assert [n["runs"] for n in p["not_predicted"]] == [["request-c1-a1"]]
    assert why in p["not_predicted"][0]["why"] and "singleton baseline never does" in p["not_predicted"][0]["why"]


def test_the_cli_predicts_a_client_per_request_with_the_probe(folder, tmp_path):
    result, _ = with_probe(folder, tmp_path, PROBE)
    out = subprocess.run(ROOT_PY + [str(result.path), "--client-mode", "request", "--users", "200", "--json",
                                    "-o", str(tmp_path / "r.png")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["throughput"]["200"] == pytest.approx(2 / 0.015, rel=0.01)


def test_the_build_probe_ends_once_two_rounds_agree():
    from testbed.fit.buildprobe import seconds, settled
    assert not settled(None, {"clone": 0.001})
    assert not settled({"clone": 0.00183, "axis": 0.0004}, {"clone": 0.0011, "axis": 0.0004})   # still compiling
    assert settled({"clone": 0.00112, "axis": 0.0004}, {"clone": 0.0011, "axis": 0.00038})
    assert not settled({"clone": 0.0}, {"clone": 0.0})
    # the build rounds, then turns of four rounds — 0, 1, 2 calls at 2 threads, 1 call at 64 (4; --quick 1)
    assert seconds(quick=False) == 3 + 5 * (8 + 4 * 4) and seconds(quick=True) == 1 + 2 * (3 + 4 * 1)


def test_the_build_probe_goes_on_through_a_compilers_pause_in_its_first_rounds():
    from testbed.fit.buildprobe import MIN_ROUNDS, warm

    def rounds(ms):
        return [{"clone": x / 1e3} for x in ms]
    paused = rounds([6.03, 3.13, 2.75, 2.75])          # classic-20261204-162119: settled too early there
    assert not warm(paused) and warm(paused, quick=True)
    went_on = rounds([4.81, 2.88, 1.87, 1.53, 1.25, 1.08, 1.16])   # classic-20261204-161022
    assert MIN_ROUNDS <= 7 and warm(went_on) and not warm(went_on[:6])


def test_the_build_probe_takes_each_tiers_idle_rate_off_its_cpu_per_build():
    from testbed.fit.buildprobe import due, per_build
    # readings: (monotonic s, CPU s per tier, host busy s); 2 s idle, then 100 builds in 4 s
    idle = (0.0, {"clone": 10.0, "axis": 5.0}, 100.0)
    start = (2.0, {"clone": 10.2, "axis": 5.0}, 100.4)      # clone idles at 0.1 core; 0.2 s unattributed
    end = (6.0, {"clone": 11.4, "axis": 5.3}, 103.0)
    cpu = per_build(idle, start, end, 100)
    assert cpu["clone"] == pytest.approx((1.2 - 0.4) / 100)
    assert cpu["axis"] == pytest.approx(0.3 / 100)
    # host 2.6 s busy less the tiers' 1.5 s, less the rest's idle 0.1 s/s x 4 s
    assert cpu["unattributed"] == pytest.approx((2.6 - 1.5 - 0.4) / 100)
    # a round that began later than the idle window's end: its own start reading
    later = (3.0, {"clone": 10.3, "axis": 5.0}, 100.6)
    assert per_build(idle, start, end, 100, start=later)["clone"] == pytest.approx((1.1 - 0.3) / 100)
    assert due([{"kind": "clones", "client_mode": "singleton"}, {"kind": "clones", "client_mode": "request"}])
    assert not due([{"kind": "clones", "client_mode": "pool"}, {"kind": "segments", "client_mode": "request"}])


def _shared_copy(folder, tmp_path, host_pct: float):
    """The handmade folder with the baseline's host CPU raised to host_pct (% of one core) in
    every sample: its processes' CPU unchanged, so other programs used the difference."""
    import shutil
    copy = tmp_path / f"host-{host_pct:g}"
    shutil.copytree(folder, copy)
    (copy / "prediction.json").unlink(missing_ok=True)
    cpu = copy / "runs" / "singleton-c1-a1" / "cpu.csv"
    cpu.write_text("".join(f"{line.rsplit(',', 1)[0]},{host_pct:g}\n" if ",host," in line else line
                           for line in cpu.read_text().splitlines(keepends=True)))
    result = load(copy)
    return result, run_steps(result)


def test_a_baseline_beside_other_load_is_named_in_the_demands_the_cli_and_the_report(folder, loaded, tmp_path):
    """Other programs' share of the host (host less this experiment's processes, 2 cores): the
    handmade baseline's 10 % of a core is 5 % of the host, not shared; at 200 % host CPU the
    others took 80 % of a core, 40 % of the host, at every step — named, with the fix."""
    from analysis.predict import report_section
    from analysis.render import pages
    plain = dmod.measure(*loaded)
    assert [s.others for s in plain.steps] == [pytest.approx(0.05)] * 3 and plain.beside_other_load == []
    assert dmod.beside_other_load_text(plain.beside_other_load) is None
    result, steps = _shared_copy(folder, tmp_path, 200)
    d = dmod.measure(result, steps)
    assert [(e["run_id"], e["users"], e["others"]) for e in d.beside_other_load] == [
        ("singleton-c1-a1", u, pytest.approx(0.40)) for u in (4, 8, 16)]
    text = dmod.beside_other_load_text(d.beside_other_load)
    assert text.startswith("fitted beside other load: other programs used 40% of the host at 4, 8 and 16 users")
    assert "STACK_CPUS" in text and d.to_json()["beside_other_load"] == d.beside_other_load
    assert "warning: fitted beside other load" in command.demand_table(d)
    p = section.build(result, steps, simulate=False)
    assert p["beside_other_load"] == text
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(
        report_section.view(p), {})
    assert 'id="prediction-shared"' in html and "Not a test of the model: fitted beside other load" in html
    # just under the line (15 % of the host = 30 % of a core above the processes' 120 %): not shared
    assert dmod.measure(*_shared_copy(folder, tmp_path, 149)).beside_other_load == []


def test_validation_leaves_a_folder_fitted_beside_other_load_out_of_its_verdicts(tmp_path, monkeypatch):
    """Its rows are listed and marked; the verdicts are over the other folders, then once more
    with it included."""
    from analysis.predict import validate

    def row(err):
        return {"text": "singleton · clone 2 · service 1", "predicted_max_throughput": 100 * (1 + err),
                "measured_max_throughput": 100.0, "error": err, "sweep_mae": abs(err), "knee_predicted": 4,
                "knee_measured": 4, "knee_steps_apart": 0, "linear_error": 0.5, "usl_error": 0.5,
                "beats_naive": True, "agreement_max_deviation": 0.01, "agree": True, "written_before_runs": True}

    folders = {"quiet": (None, [row(0.02)]), "busy": ("fitted beside other load: other programs used 26%", [row(-0.40)])}
    monkeypatch.setattr(validate, "rows_of", lambda f, fit_runs=None: (
        {"folder": f, "mode": "local", "written": 1.0, "beside_other_load": folders[f][0]}, folders[f][1]))
    out = tmp_path / "v.md"
    assert validate.main(["quiet", "busy", "-o", str(out)]) == 0
    v = json.loads(out.with_suffix(".json").read_text())["verdicts"]
    assert v["every_within_10pct"] is True and v["configurations"] == 1 and v["max_abs_error"] == pytest.approx(0.02)
    assert v["left_out"] == ["busy: fitted beside other load: other programs used 26%"]
    assert v["with_left_out"]["every_within_10pct"] is False and v["with_left_out"]["configurations"] == 2
    md = out.read_text()
    assert "| busy (shared host) | local |" in md and "Left out of the verdicts above (1:" in md
    # every folder shared: nothing to judge, no verdict (not a "met" over no configuration)
    assert validate.main(["busy", "-o", str(out)]) == 0
    v = json.loads(out.with_suffix(".json").read_text())["verdicts"]
    assert v["configurations"] == 0 and v["every_within_10pct"] is None and v["sweep_mae_within_10pct"] is None


def test_validation_leaves_a_configuration_measured_cold_out_of_its_verdicts(tmp_path, monkeypatch):
    """A classic folder's client per request (section.py's measured_cold) is listed, marked and
    judged only in the verdicts with it included; the folder's other rows count."""
    from analysis.predict import validate
    base = {"predicted_max_throughput": 100.0, "measured_max_throughput": 100.0, "sweep_mae": 0.01,
            "knee_predicted": 4, "knee_measured": 4, "knee_steps_apart": 0, "linear_error": 0.5, "usl_error": 0.5,
            "beats_naive": True, "agreement_max_deviation": 0.01, "agree": True, "written_before_runs": True}
    rows = [{**base, "text": "singleton · clone 2 · service 1", "error": 0.02, "measured_cold": None},
            {**base, "text": "request · clone 1 · service 1", "error": 0.37,
             "measured_cold": "measured cold: its run restarted the clone"}]
    monkeypatch.setattr(validate, "rows_of", lambda f, fit_runs=None: (
        {"folder": f, "mode": "docker", "written": 1.0, "beside_other_load": None}, rows))
    out = tmp_path / "v.md"
    assert validate.main(["classic-x", "-o", str(out)]) == 0
    v = json.loads(out.with_suffix(".json").read_text())["verdicts"]
    assert v["every_within_10pct"] is True and v["configurations"] == 1
    assert v["left_out"] == ["classic-x: request · clone 1 · service 1, measured cold: its run restarted the clone"]
    assert v["with_left_out"]["every_within_10pct"] is False and v["with_left_out"]["max_abs_error"] == pytest.approx(0.37)
    assert "| classic-x (measured cold) | docker | request" in out.read_text()
