"""The client build's CPU under load (analysis/predict/buildcost.py, cli/testbed/fit/buildprobe.py):
where the runner ran its cost probe again while a clone built clients, each tier's CPU per
build is that run's CPU above the cost probe's per request, over the builds of each step. A
hand-made clones folder (data/make_handmade) with a cost probe at 1000/s and a run under
load at 800/s with 100 builds a second, round numbers with exact answers."""
from __future__ import annotations

import json
import shutil
import sys

import pytest

from analysis.load.folder import load
from analysis.load.probes import COST_PROBE_RUN, LOADED_PROBE_RUN, OLD_NAMES, PROBES_DIR
from analysis.predict import baseline_demands as dmod, buildcost, forecast
from analysis.predict.fit import fit
from analysis.steps import StepSample, run_steps

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent / "data"))
from make_handmade import run  # noqa: E402

# the cost probe: per request front 0.5, clone 0.3, axis 0.2, haproxy 0.2, loadgen 0.3, the rest 0.1 ms
CALIB = {"front/1": 50.0, "clone/1": 30.0, "axis/1": 20.0, "haproxy/1": 20.0, "loadgen/worker-1": 30.0}
# under load, 800/s: the requests' own 0.8 x CALIB, plus per build (100/s) front 1.6, clone 5,
# axis 1, haproxy 0.5, loadgen 0, the rest 0.2 ms
LOADED = {"front/1": 56.0, "clone/1": 74.0, "axis/1": 26.0, "haproxy/1": 21.0, "loadgen/worker-1": 24.0}
PER_BUILD = {"front": 0.0016, "clone": 0.005, "axis": 0.001, "haproxy": 0.0005, "loadgen": 0.0,
             "unattributed": 0.0002}
IDLE_PROBE = {"format": 1, "backend": "axis", "probe": {"built": 400}, "build_s_median": 0.0025,
              "cpu_s_per_build": {"clone": 0.001, "axis": 0.0005, "haproxy": 0.0005, "front": 0.0,
                                  "loadgen": 0.0, "unattributed": 0.0}}


def _probe_run(folder, scratch, run_id: str, start: int, steps: list[dict], probes: str = PROBES_DIR) -> int:
    """Write probes/<run_id>/ (or another folder of probes) with the baseline's stack and no service wait."""
    meta = json.loads((folder / "runs" / "singleton-c1-a1" / "run.json").read_text())
    meta = {k: v for k, v in meta.items() if k not in ("id", "steps", "status", "started", "ended")}
    meta["demands"] = {}
    end = run(scratch, run_id, start, meta, steps)
    (folder / probes).mkdir(exist_ok=True)
    shutil.move(scratch / "runs" / run_id, folder / probes / run_id)
    return end


def _folder(data, tmp_path, calls_per_s: int = 100, probe_calls: bool = True, calib: dict = CALIB,
            names: tuple[str, str, str] = (PROBES_DIR, COST_PROBE_RUN, LOADED_PROBE_RUN)):
    """names: the probes' folder, the cost probe's run and its run under load (OLD_NAMES: as a
    runner wrote them before the probes were named so)."""
    probes, cost_run, loaded_run = names
    folder = tmp_path / "clones-loaded"
    shutil.copytree(data / "predict-handmade", folder)
    (folder / "prediction.json").unlink(missing_ok=True)
    (folder / buildcost.FILE).write_text(json.dumps(IDLE_PROBE))
    t = 1_800_000_000
    t = _probe_run(folder, tmp_path / "scratch", cost_run, t,
                   [{"users": 16, "x": 1000, "cpu": calib, "host": 160.0}] * 3, probes)
    jit = {**LOADED, "clone/1": 150.0, "front/1": 70.0}           # the build path's JIT: not used
    steps = ([{"users": 16, "x": 800, "cpu": jit, "host": 290.0}] * 3
             + [{"users": 16, "x": 800, "cpu": LOADED, "host": 211.0}] * 2)
    end = _probe_run(folder, tmp_path / "scratch", loaded_run, t + 5, steps, probes)
    calls = [{"start": s, "end": s + 4, "built": 4 * calls_per_s, "failed": 0} for s in range(t + 5, end, 4)]
    if probe_calls:
        (folder / probes / loaded_run / buildcost.PROBE_CALLS).write_text(
            json.dumps({"format": 1, "backend": "axis", "threads": 2, "calls": calls}))
    return folder


def test_each_tiers_cpu_per_build_is_its_cpu_above_the_cost_probes_over_the_builds(data, tmp_path):
    folder = _folder(data, tmp_path)
    result = load(folder)
    cost, why = buildcost.read(folder, result.settings)
    assert why is None and cost.under_load.startswith("under load: ")
    assert cost.cpu == pytest.approx(PER_BUILD, abs=2e-6)
    assert cost.idle_cpu == IDLE_PROBE["cpu_s_per_build"] and cost.wall_s == 0.0025   # the idle probe's
    assert cost.to_json()["idle_cpu_s_per_build"]["clone"] == 0.001


def test_a_client_per_request_adds_the_builds_cost_under_load_and_the_run_is_no_fit_step(data, tmp_path):
    folder = _folder(data, tmp_path)
    result = load(folder)
    steps = run_steps(result)
    d = dmod.measure(result, steps)
    assert d.fit_runs == [COST_PROBE_RUN]          # the run under load is not the CPU fit's
    cal = fit(d)
    p = forecast.predict(result, steps, own_request_steps=False)
    req = next(c for c in p["configurations"] if c["runs"] == ["request-c1-a1"])
    assert "its CPU per build under load: " in req["fitted_to"]
    baseline = sum(cal.outside.values()) + sum(cal.inside.values())
    assert req["model"]["outside"]["host"] == pytest.approx(baseline + sum(PER_BUILD.values()), abs=1e-5)
    assert p["build_probe"]["under_load"] and p["build_probe"]["cpu_s_per_build"]["front"] == pytest.approx(0.0016)


def test_a_folder_written_with_calibration_for_probes_is_read_as_before(data, tmp_path):
    """An older runner kept the cost probe in calibration/calibration/ and its run under load in
    calibration/calibration-build/: the same build cost, the same fit, named by the old ids."""
    old = (OLD_NAMES[PROBES_DIR], OLD_NAMES[COST_PROBE_RUN], OLD_NAMES[LOADED_PROBE_RUN])
    assert old == ("calibration", "calibration", "calibration-build")
    folder = _folder(data, tmp_path, names=old)
    assert not (folder / PROBES_DIR).exists()
    result = load(folder)
    cost, why = buildcost.read(folder, result.settings)
    assert why is None and cost.cpu == pytest.approx(PER_BUILD, abs=2e-6)
    assert "steps of the cost probe's load" in cost.under_load
    d = dmod.measure(result, run_steps(result))
    assert d.fit_runs == ["calibration"]                 # the old cost probe's id: no run of the experiment
    assert [r.id for r in result.runs] == [r.id for r in load(data / "predict-handmade").runs]
    assert dmod.beside_other_load_text([{"run_id": "calibration", "users": 16, "others": 0.3}]).startswith(
        "fitted beside other load: other programs used 30% of the host at 16 users (the cost probe)")


def test_without_the_run_under_load_the_idle_probe_is_used(data, tmp_path):
    folder = _folder(data, tmp_path, probe_calls=False)
    cost, why = buildcost.read(folder, load(folder).settings)
    assert why is None and cost.cpu == IDLE_PROBE["cpu_s_per_build"] and not cost.under_load
    loaded, why = buildcost.under_load(folder, load(folder).settings)
    assert loaded is None and why.startswith("no client build under load (")


# side by side: the calls from T0 on alternate 6 s with builds (100/s, 800 requests/s) and 6 s
# without (1000/s); each boundary at x.4, where a history row counts (buildcost.REPORT_AT)
T0 = 1_800_000_060.4      # inside the run under load of _folder (its steps from 1_800_000_047)
ALT_CALLS = [{"start": T0 + 12 * k, "end": T0 + 12 * k + 6, "built": 600, "failed": 0} for k in range(5)]
PER_REQUEST = {"front": 0.0005, "clone": 0.0003, "axis": 0.0002, "haproxy": 0.0002, "loadgen": 0.0003,
               "unattributed": 0.0001}


def _building(t: float) -> bool:
    return any(c["start"] <= t < c["end"] for c in ALT_CALLS)


def _alternating(t_from: int, t_to: int):
    """Per-second cpu.csv samples and history rows of [t_from, t_to]: each tier's CPU
    PER_REQUEST x requests + PER_BUILD x builds (host: their sum), the rates of the phase."""
    from analysis.load.cpu import Sample
    from analysis.load.locust_csv import HistoryRow
    samples, rows, total = [], [], 0.0
    for k in range(t_from, t_to):
        on = _building(k + 0.5)
        x, b = (800.0, 100.0) if on else (1000.0, 0.0)
        cores = {t: x * PER_REQUEST[t] + b * PER_BUILD[t] for t in PER_REQUEST}
        for t, u in cores.items():
            if t != "unattributed":
                samples.append(Sample(k + 1.0, t, "1", "42", 100 * u))
        samples.append(Sample(k + 1.0, "host", "all", "", 100 * sum(cores.values())))
        # requests up to k + 0.4: the rate changes at x.4, so whole seconds [k-0.6, k+0.4)
        total += 1000.0 if not _building(k - 0.1) else 800.0
        rows.append(HistoryRow(float(k), 16, round(total), 0, None, None, None))
    return samples, rows


def test_side_by_side_the_builds_cost_is_what_each_tier_grows_by_between_windows_with_and_without():
    samples, rows = _alternating(int(T0) - 20, int(T0) + 70)
    per, points = buildcost.side_by_side(samples, rows, ALT_CALLS, T0, T0 - 20, T0 + 70)
    assert per == pytest.approx(PER_BUILD, abs=1e-7)
    assert points["with"]["windows"] == 5 and points["without"]["windows"] == 4
    assert points["with"]["x"] == pytest.approx(800) and points["without"]["x"] == pytest.approx(1000)
    assert points["with"]["b"] == pytest.approx(100) and points["without"]["b"] == 0
    # each window leaves out its first TRIM_S: a call [T0, T0+6] counts from T0+1
    assert buildcost.windows(ALT_CALLS[:2], T0, 0, 2e9) == [
        (T0 + 1, T0 + 6, True), (T0 + 7, T0 + 12, False), (T0 + 13, T0 + 18, True)]
    # calls before alternate_from (the warm-up) and windows outside [start, end] are not used
    assert buildcost.windows([{"start": T0 - 8, "end": T0 - 4, "built": 1}] + ALT_CALLS[:1], T0, 0, 2e9) == [
        (T0 + 1, T0 + 6, True)]
    per, points = buildcost.side_by_side(samples, rows, ALT_CALLS, T0, T0, T0 + 20)
    assert per == {} and "need 2 of each" in points["why"]


def test_side_by_side_the_cost_probes_older_reference_is_not_used(data, tmp_path):
    """A folder whose run under load alternated: the cost probe read each tier 30 % dearer a
    request than the run under load's windows without builds (its JVMs still warming); the
    builds' cost comes out exact all the same."""
    import csv
    dearer = {k: v * 1.3 for k, v in CALIB.items()}
    folder = _folder(data, tmp_path, calib=dearer)
    d = folder / PROBES_DIR / LOADED_PROBE_RUN
    meta = json.loads((d / "run.json").read_text())
    first, last = meta["steps"][0]["start"], meta["steps"][-1]["end"]
    samples, rows = _alternating(int(first) - 2, int(last) + 2)
    with open(d / "cpu.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestamp", "tier", "replica", "pid", "cpu_percent"])
        w.writerows([c.timestamp, c.tier, c.replica, c.pid, c.cpu_percent] for c in samples)
    from make_handmade import HISTORY_HEADER
    with open(d / "locust_stats_history.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HISTORY_HEADER)
        w.writerows([int(r.timestamp), 16, "", "Aggregated", 0, 0] + [10] * 11 + [r.total_requests, 0, 10, 10, 1, 30, 120]
                    for r in rows)
    calls = [{"start": T0 - 18 + 4 * i, "end": T0 - 14 + 4 * i, "built": 400, "failed": 0} for i in range(4)] + ALT_CALLS
    (d / buildcost.PROBE_CALLS).write_text(json.dumps({"format": 2, "backend": "axis", "calls": calls,
                                                        "alternate_from": T0}))
    cost, why = buildcost.read(folder, load(folder).settings)
    assert why is None and cost.under_load.startswith("side by side: 2500 builds in 5 windows ")
    assert cost.cpu == pytest.approx(PER_BUILD, abs=1e-7)
    assert "against 4 windows of the same run without builds at 1000/s" in cost.under_load


def test_builds_are_counted_in_a_steps_window_by_their_calls_overlap():
    calls = [{"start": 0.0, "end": 4.0, "built": 400}, {"start": 4.0, "end": 8.0, "built": 200}]
    assert buildcost._builds_in(calls, 2.0, 6.0) == pytest.approx(200 + 100)
    assert buildcost._builds_in(calls, 8.0, 9.0) == 0
    base = StepSample(COST_PROBE_RUN, 0, 16, 0.0, 1.0, 11.0, 10.0, throughput=1000.0,
                      cpu={"front": 50.0}, host_cpu=60.0)
    step = StepSample(LOADED_PROBE_RUN, 0, 16, 0.0, 2.0, 6.0, 4.0, throughput=800.0,
                      cpu={"front": 56.0}, host_cpu=70.0)
    # 300 builds in 4 s: 75/s; front 0.56 - 0.40 cores, the rest 0.14 - 0.08
    assert buildcost.per_build_under_load(base, [step], calls) == pytest.approx(
        {"front": 0.16 / 75, "unattributed": 0.06 / 75})
    assert buildcost.per_build_under_load(base, [step], []) == {}


def test_the_first_calls_extra_is_what_one_call_adds_less_what_a_second_adds_median_over_turns():
    """buildprobe.turns, first_call: rounds with 0, 1 and 2 calls a client at THREADS in turns
    (each turn ending with its crowded round); per turn the clone's (c1 − c0) − (c2 − c1), the
    median over the turns."""
    from testbed.fit import buildprobe
    readings = iter([1.0e-3, 1.25e-3, 1.30e-3, 1.5e-3,      # +0.25 then +0.05: 0.20 ms
                     1.0e-3, 1.10e-3, 1.20e-3, 1.3e-3,      # +0.10 then +0.10: 0
                     0.9e-3, 1.20e-3, 1.25e-3, 1.4e-3])     # +0.30 then +0.05: 0.25 ms
    asked = []

    def build_round(calls, threads):
        asked.append((calls, threads))
        return next(readings), 500
    out, _ = buildprobe.turns(build_round, 3)
    assert asked == [(0, 2), (1, 2), (2, 2), (1, 64)] * 3
    assert [t["first_call_extra_s"] for t in out["turns"]] == pytest.approx([0.0002, 0.0, 0.00025])
    assert out["clone_s"] == pytest.approx(0.0002)


def test_the_crowding_is_the_median_ratio_of_a_round_on_many_threads_to_the_turns_one_call_round():
    """buildprobe.turns, crowding: per turn a round at CROWD_THREADS (one call a client) against
    the turn's one-call round at THREADS — the round first_call reads too, measured once — the
    ratio of the clone's CPU per build; the median over turns. The model's points
    (buildcost.crowding_points): 1 at the few, the ratio at the many; a ratio of at most 1 is
    noise and crowds nothing."""
    from testbed.fit import buildprobe
    readings = iter([0.9e-3, 1.0e-3, 1.1e-3, 1.2e-3,
                     0.9e-3, 1.0e-3, 1.1e-3, 1.05e-3,
                     0.8e-3, 0.9e-3, 1.0e-3, 1.08e-3])
    asked = []

    def build_round(calls, threads):
        asked.append(threads)
        return next(readings), 500
    _, out = buildprobe.turns(build_round, 3)
    assert asked.count(buildprobe.CROWD_THREADS) == 3 and len(asked) == 12     # 4 rounds a turn, not 5
    assert [t["ratio"] for t in out["turns"]] == pytest.approx([1.2, 1.05, 1.2])
    assert [t["clone_s_per_build"][0] for t in out["turns"]] == pytest.approx([1.0e-3, 1.0e-3, 0.9e-3])
    assert out["ratio"] == pytest.approx(1.2) and out["threads"] == [2, 64] and out["calls"] == 1
    (few, one), (many, ratio) = buildcost.crowding_points(out)
    assert (few, one, many) == (2, 1.0, 64) and ratio == pytest.approx(1.2)
    assert buildcost.crowding_points({**out, "ratio": 0.97}) == ()
    assert buildcost.crowding_points({"error": "ProbeError: no client built"}) == ()
    assert buildcost.crowding_points(None) == ()


def test_a_turn_whose_rounds_built_too_few_or_read_no_clone_cpu_has_no_figure_and_says_why():
    """buildprobe.unresolved: a round of few builds (each call held by the service's wait) reads
    the idle window's noise, and one the idle rate swallowed reads 0 — such a turn gives no first
    call and no crowding ratio; the medians are over the other turns, None without any (a CI run
    read 2.1, 11.2 and 0.0 ms a build from rounds of 40 and 20 builds that made a first call of +20 ms)."""
    from testbed.fit import buildprobe
    few = buildprobe.MIN_TURN_BUILDS - 1
    readings = iter([(2.1e-3, 900), (11.2e-3, 40), (0.0, 20), (1.2e-3, 900),                 # too few builds
                     (1.0e-3, 900), (1.2e-3, 400), (0.0, 300), (1.3e-3, 900),                # idle rate took a round
                     (1.0e-3, 900), (1.25e-3, 400), (1.30e-3, 200), (1.5e-3, 900)])          # 0.20 ms
    calls, crowd = buildprobe.turns(lambda c, k: next(readings), 3)
    assert [t["first_call_extra_s"] for t in calls["turns"]] == [None, None, pytest.approx(0.0002)]
    assert "built 20 clients" in calls["turns"][0]["why"] and "idle CPU" in calls["turns"][1]["why"]
    assert calls["turns"][0]["built"] == [900, 40, 20] and "why" not in calls["turns"][2]
    assert calls["clone_s"] == pytest.approx(0.0002)
    # the crowded pairs: the first one's few-thread round built 40 (no ratio), the others stand
    assert [t["ratio"] for t in crowd["turns"]] == [None, pytest.approx(1.3 / 1.2), pytest.approx(1.2)]
    assert "built 40 clients" in crowd["turns"][0]["why"]
    assert buildprobe.turns(lambda c, k: (1e-3, few), 1)[0]["clone_s"] is None
    _, alone = buildprobe.turns(lambda c, k: (1e-3, few if k == buildprobe.THREADS else 2000), 2)
    assert alone["ratio"] is None and [t["ratio"] for t in alone["turns"]] == [None, None]
    assert buildcost.crowding_points(alone) == ()
    assert buildprobe.turns(lambda c, k: (0.0 if k > 2 else 1e-3, 500), 1)[1]["ratio"] is None


def test_the_runner_keeps_a_clone_building_through_the_run_under_load_and_writes_its_calls(tmp_path, monkeypatch):
    """buildprobe.under_load against a stand-in clone (answering /probe/build as
    BuildProbeServlet does) and a stand-in Locust run of 1.5 s whose prime the rule releases after
    0.5 s: builds without pause until then, then calls of ON_S alternating with pauses of OFF_S
    (here 0.3 s)."""
    import time
    from dataclasses import dataclass
    from standin import serve
    from testbed.fit import buildprobe
    # primed by the rule (at most WARM_S), then steps for about five turns with and without builds
    plan = buildprobe.LOADED_PLAN
    assert plan.steady and plan.prime_ceiling() == buildprobe.WARM_S
    assert len(plan.users) * plan.step_seconds >= 5 * (buildprobe.ON_S + buildprobe.OFF_S)
    monkeypatch.setattr(buildprobe, "OFF_S", 0.3)

    asked = []

    def clone(method, path):
        asked.append(path)
        time.sleep(0.2)
        return 200, json.dumps({"backend": "axis", "built": 7, "failed": 0}).encode()
    server = serve(clone)

    class Stack:
        def status(self):
            return {"replicas": [{"tier": "clone", "replica": 1, "url": f"http://127.0.0.1:{server.server_port}"}]}

        def admin_headers(self):
            return {}

    @dataclass
    class Spec:
        id: str = COST_PROBE_RUN
        entry: str = COST_PROBE_RUN
        label: str = ""
        backend: str = "axis"
        load: object = None
        cold: bool = False
    ran = []

    def run_one(spec, root):
        ran.append((spec.id, root.name, spec.load.users, spec.cold))
        time.sleep(0.5)
        (root / spec.id).mkdir(parents=True, exist_ok=True)
        (root / spec.id / "run.json").write_text(json.dumps({"notes": {"warm": {
            "verdict": "steady", "seconds": 0.5, "why": "steady after 0.5 s: ...", "rule": {}}}}))
        (root / spec.id / buildprobe.PRIME_RELEASE).touch()        # what the watch does once the rule held
        time.sleep(1.0)
    said = []
    try:
        buildprobe.under_load(Stack(), Spec(), run_one, tmp_path, said.append)
        assert ran == [] and asked == []                   # no complete cost probe: nothing
        (tmp_path / PROBES_DIR / COST_PROBE_RUN).mkdir(parents=True)
        (tmp_path / PROBES_DIR / COST_PROBE_RUN / "run.json").write_text(json.dumps({"status": "complete"}))
        buildprobe.under_load(Stack(), Spec(), run_one, tmp_path, said.append)
    finally:
        server.shutdown()
    assert ran == [(LOADED_PROBE_RUN, PROBES_DIR, buildprobe.LOADED_PLAN.users, True)]   # primed on warm JVMs
    out = json.loads((tmp_path / PROBES_DIR / LOADED_PROBE_RUN / buildcost.PROBE_CALLS).read_text())
    assert out.get("error") is None and len(out["calls"]) >= 4
    assert all(c["built"] == 7 and c["end"] > c["start"] for c in out["calls"])
    assert asked[0].startswith(f"/probe/build?backend=axis&n=5000&threads=2&seconds={buildprobe.CALL_S}")
    alt = out["alternate_from"]
    warm = [c for c in out["calls"] if c["start"] < alt]
    turns = [c for c in out["calls"] if c["start"] >= alt]
    gaps = {k: [b["start"] - a["end"] for a, b in zip(calls, calls[1:])] for k, calls in (("warm", warm), ("turns", turns))}
    assert len(warm) >= 2 and len(turns) >= 2
    assert all(g >= 0.29 for g in gaps["turns"]), gaps              # each turn pauses OFF_S (0.3 s) at least
    assert max(gaps["warm"]) < min(gaps["turns"]), gaps             # the warm-up does not pause
    assert asked[-1].endswith(f"&seconds={buildprobe.ON_S}")
    assert any("under load" in s for s in said)
    assert out["warm"] == {"verdict": "steady", "seconds": 0.5, "why": "steady after 0.5 s: ..."}
    assert warm[0]["start"] < alt < warm[0]["start"] + 2.0          # the release, not WARM_S, ended the warm-up
    # the experiment's estimate counts it, never with --quick (no run under load there)
    assert buildprobe.seconds(False, under_load=True) == buildprobe.seconds(False) + buildprobe.WARM_S + 7 * 10 + 5
    assert buildprobe.seconds(True, under_load=True) == buildprobe.seconds(True)


def test_the_runner_probes_the_build_alone_before_the_run_under_load_and_not_again(tmp_path, monkeypatch):
    """Runner._scale: the idle probe's rounds compile the build path before the run under load
    (under load a cold build path cost 3-4 ms of clone CPU a build for 40 s, warm 1.7:
    results/perreq-20261201-221445), and _predict_after keeps that build_probe.json."""
    from testbed.run import runner as rmod
    from testbed.experiment import definition
    exp = definition.load("clones")
    order = []
    monkeypatch.setattr(rmod.tohost, "scale", lambda *a, **k: ({"wait_us": 1}, []))
    monkeypatch.setattr(rmod.buildprobe, "measure", lambda stack, backend, quick, say: order.append(
        ("alone", backend)) or {"backend": backend})
    monkeypatch.setattr(rmod.buildprobe, "under_load", lambda *a, **k: order.append(("under load",)))
    monkeypatch.setattr(rmod.predicting, "write", lambda folder, say: order.append(("prediction",)))

    class Stack:
        class cfg:
            stack_cpus = loadgen_cpus = None
    r = rmod.Runner(exp, Stack(), results_dir=tmp_path, progress=rmod.Progress(stream=open("/dev/null", "w")))
    r.folder, r.meta = tmp_path, {"host": {"cores": 2}}
    monkeypatch.setattr(r, "_write_experiment", lambda: None)
    r._scale(0)
    assert order == [("alone", "axis"), ("under load",)]
    assert json.loads((tmp_path / buildcost.FILE).read_text()) == {"backend": "axis"}
    r._predict_after(0)                                    # after the baseline: the prediction only
    assert order[2:] == [("prediction",)]
    (tmp_path / buildcost.FILE).unlink()                   # no probe yet (no run under load): made here
    r._predict_after(0)
    assert order[3:] == [("alone", "axis"), ("prediction",)]
