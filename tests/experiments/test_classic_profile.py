"""The classic-system profile (cli/testbed/fit/profile.py): measured costs in, emulated demands,
quotas, wait and pool out, and how they go into the runs (no stack)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from analysis.classic import PUBLISHED
from testbed.run import definition
from testbed.fit import profile
from testbed.fit.profile import Measured, design

# about this 2-core host's figures: the static page's front cost, the JSP and the beans a few
# µs each, /seg/5's front 0.6 ms; Locust and HAProxy included in total_s
M = Measured(front_s={1: 90e-6, 2: 92e-6, 3: 95e-6, 4: 100e-6, 5: 600e-6},
             total_s={1: 340e-6, 5: 2.0e-3}, clone_request_s=3.0e-3, total_request_s=5.0e-3,
             clone_pool_s=1.0e-3, total_pool_s=2.5e-3, round_trip_s=1.0e-3, host_cores=2.0)


def front_per_request(p, k: int) -> float:
    """The front's CPU per request on /seg/k under the profile (µs)."""
    return own_front_per_request(p.measured, k) + p.demands_cpu_us["SEG1"] + sum(
        p.demands_cpu_us[d] for d in ("SEG2", "SEG3", "SEG4", "INVOKER")[:k - 1])


def own_front_per_request(m: Measured, k: int) -> float:
    return m.front_s[k] * 1e6


def test_the_front_costs_of_each_path_follow_the_published_path_maxima():
    p = design(M)
    paths = PUBLISHED["paths"]
    f1 = front_per_request(p, 1)
    # the JSP here is no dearer than the shape allows: segment ① is 80 % emulated, no more
    assert p.demands_cpu_us["SEG1"] == pytest.approx(4 * M.front_s[1] * 1e6, abs=1)
    for k in (2, 3, 4):          # T(1..k)/T(1) = F(1)/F(1..k), F rounded to whole µs
        assert f1 / front_per_request(p, k) == pytest.approx(paths[k] / paths[1], rel=0.02), k
    # the pool is held by the front's quota at the published fix: F(1..5) = F(1)·812/100
    assert f1 / front_per_request(p, 5) == pytest.approx(PUBLISHED["fix"] / paths[1], rel=0.02)
    assert p.pool_size == profile.POOL_SIZE and not p.notes


def test_the_quota_wait_and_clone_quota_give_the_published_ratios():
    p = design(M)
    # T(①) = front quota / F(1), within 60 % of the host for the heaviest configuration
    f1 = M.front_s[1] + p.demands_cpu_us["SEG1"] / 1e6
    assert p.t1 == pytest.approx(p.quotas["front"] / f1, rel=0.01)
    assert p.t1 * (M.total_s[1] + p.demands_cpu_us["SEG1"] / 1e6) <= 0.6 * 2.0 + 1e-9
    # the singleton 7.4/812 of T(①); its rate 1/(wait + round trip)
    assert p.singleton / p.t1 == pytest.approx(7.4 / 812)
    assert 1 / (p.wait_us / 1e6 + M.round_trip_s) == pytest.approx(p.singleton, rel=0.03)
    # the clone's quota leaves the pool (13.5 singletons) room: it uses 60 % of it ...
    assert 13.5 * p.singleton * M.clone_pool_s / p.quotas["clone"] == pytest.approx(profile.CLONE_SHARE, rel=0.01)
    # ... and holds a client per request, with its emulated build, at 22/7.4 singletons
    x_request = p.quotas["clone"] / (M.clone_request_s + p.request_cpu_us / 1e6)
    assert x_request / p.singleton == pytest.approx(22 / 7.4, rel=0.01)
    assert p.expected["pool/singleton"] == pytest.approx(13.5, rel=0.01)


def test_a_busier_or_bigger_host_moves_t1_and_nothing_else_of_the_shape():
    small, busy, big = design(M), design(Measured(**{**M.to_json(), "background_cores": 1.0})), \
        design(Measured(**{**M.to_json(), "host_cores": 8.0}))
    assert busy.t1 == pytest.approx(small.t1 / 2) and big.t1 == pytest.approx(small.t1 * 4)
    assert busy.demands_cpu_us == small.demands_cpu_us == big.demands_cpu_us
    assert big.wait_us < small.wait_us < busy.wait_us


def test_the_heaviest_configuration_sets_t1():
    # a client per request far dearer than anything else on the host: it binds
    dear = design(Measured(**{**M.to_json(), "total_request_s": 60e-3}))
    assert dear.binding.startswith("a client per request") and dear.t1 < design(M).t1


def test_a_jsp_dearer_than_the_shape_allows_raises_segment_one_until_every_path_fits():
    # this stack's JSP costs a sixth of its static page; the classic one's was 2 % (812/795):
    # the profile can only add demand, so it adds it to segment ① (every path) until the JSP's
    # share is the published one, and nothing to the JSP
    dear = Measured(**{**M.to_json(), "front_s": {**M.front_s, 2: 105e-6}})
    p = design(dear)
    paths = PUBLISHED["paths"]
    assert all(v >= 0 for v in p.demands_cpu_us.values()) and p.demands_cpu_us["SEG2"] == 0
    assert p.demands_cpu_us["SEG1"] == pytest.approx(15 / (812 / 795 - 1) - 90, abs=1)
    f1 = own_front_per_request(dear, 1) + p.demands_cpu_us["SEG1"]
    for k in (2, 3, 4):
        f = own_front_per_request(dear, k) + p.demands_cpu_us["SEG1"] + sum(
            p.demands_cpu_us[d] for d in ("SEG2", "SEG3", "SEG4")[:k - 1])
        assert f1 / f == pytest.approx(paths[k] / paths[1], rel=0.02), k
    # T(①) is the front's quota over segment ①'s whole cost, and path ① carries it to the host
    assert p.t1 == pytest.approx(p.quotas["front"] / (f1 / 1e6), rel=0.01)
    assert p.t1 * (dear.total_s[1] + p.demands_cpu_us["SEG1"] / 1e6) <= 0.6 * 2.0 + 1e-9
    assert not p.notes


def test_a_client_per_request_already_dearer_than_the_shape_is_said_and_nothing_negative_is_added():
    dear = design(Measured(**{**M.to_json(), "clone_request_s": 30e-3}))   # the build already dearer
    assert dear.request_cpu_us == 0 and any("client per request" in n for n in dear.notes)


def test_apply_sets_quotas_demands_wait_and_pool_in_every_run_and_scales_nothing_else():
    exp = definition.load("classic")
    p = design(M)
    runs = profile.apply(exp.runs, p)
    assert all(r.knobs["CPUS_FRONT"] == f"{p.quotas['front']:g}" and r.knobs["CPUS_CLONE"] == f"{p.quotas['clone']:g}"
               for r in runs)
    assert all(not r.auto_wait for r in runs)
    # the file runs /seg/5 first (to warm the stack); the profile's calibration warmed it, and its
    # retune needs path ① before the first /seg/5 run: the paths in order, the rest as they were
    assert [r.path for r in exp.runs[:5]] == [5, 1, 2, 3, 4]
    assert [r.entry for r in runs] == [f"axis-path{k}" for k in range(1, 6)] + [r.entry for r in exp.runs[5:]]
    assert all(r.demands["SERVICE"] == {"cpu_us": 0, "wait_us": p.wait_us, "locked": False} for r in runs)
    seg3 = next(r for r in runs if r.entry == "axis-path3")
    assert seg3.demands["SEG3"] == {"cpu_us": p.demands_cpu_us["SEG3"], "wait_us": 0, "locked": False}
    assert not any(d.get("locked") for r in runs for d in r.demands.values())   # the lock stays the client's
    pool = next(r for r in runs if r.client_mode == "pool")
    assert pool.pool_size == profile.POOL_SIZE and "CLONE" not in pool.demands
    request = next(r for r in runs if r.client_mode == "request")           # the emulated build: that run only
    assert request.demands["CLONE"] == {"cpu_us": p.request_cpu_us, "wait_us": 0, "locked": False}
    assert not any("CLONE" in r.demands for r in runs if r.client_mode != "request")
    assert next(r for r in runs if r.entry == "singleton-c4-a1").tiers["clone"] == 4
    k = seg3.stack_knobs()
    assert k["DEMAND_SEG3_CPU_US"] == str(p.demands_cpu_us["SEG3"]) and k["DEMAND_SEG3_LOCKED"] == "0"


def test_the_calibration_runs_measure_the_stack_without_demands_waits_or_quotas():
    exp = definition.load("classic")
    first = profile.apply(exp.runs, design(M))[0]
    specs = profile.calibration_specs(first)
    assert [(s.id, s.path, s.client_mode) for s in specs] == [
        *((f"calibration-path{k}", k, "singleton") for k in range(1, 6)), ("calibration-pool", 5, "pool"),
        ("calibration-request", 5, "request")]
    assert all(not s.demands and not any(k.startswith("CPUS_") for k in s.knobs) for s in specs)


def test_the_profile_is_chosen_by_the_file_or_the_command_line():
    assert definition.load("classic").profile == "stack"
    assert definition.load("classic", profile="classic-system").profile == "classic-system"
    with pytest.raises(definition.DefinitionError, match="kind = \"classic\""):
        definition.load("clones", profile="classic-system")


def test_the_report_and_the_terminal_say_the_demands_are_emulated_and_how(tmp_path):
    import json
    import shutil

    from analysis.report import regenerate
    from testbed import ROOT
    from testbed.run.headline import lines
    folder = tmp_path / "classic"
    shutil.copytree(ROOT / "tests" / "analysis" / "data" / "classic-handmade", folder)
    meta = json.loads((folder / "experiment.json").read_text())
    p = design(M)
    retuned = profile.retune_request(profile.retune(p.to_json(), 0.9 * p.t1, 40.0), 4e-3, 100.0)
    first = retuned["request_retuned"]                              # a second probe, as the runner makes it
    retuned = profile.retune_request(retuned, 3.5e-3, 150.0, (first["probe_rate"], first["own_s"]))
    retuned["request_retuned"]["first"] = first
    retuned, _ = profile.retune_pool(profile.retune_paths(retuned, 400e-6), 900e-6, 500)
    retuned = profile.retune_segment(retuned, 3, 390e-6, 395e-6, 700e-6)
    s3 = retuned["segments_retuned"]["3"]                           # and a second pass, as the runner makes it
    retuned = profile.retune_segment(retuned, 3, 390e-6, 395e-6, 660e-6)
    retuned["segments_retuned"]["3"]["first"] = s3
    meta["profile"] = json.loads(json.dumps(retuned))              # as experiment.json holds it
    meta["scaling"] = {"wait_us": p.wait_us, "scaled": True, "sentence": "scaled to this host: service wait "
                       f"{p.wait_us / 1000:g} ms because the classic-system profile ..."}
    (folder / "experiment.json").write_text(json.dumps(meta))
    regenerate(folder)
    page = (folder / "report.html").read_text()
    assert page.index('id="side-by-side"') < page.index('id="emulation"')
    assert "The segment demands of this run are emulated" in page and "no demand is locked" in page
    assert f"T(①) {0.9 * p.t1:,.0f}/s measured (planned {p.t1:,.0f}/s)" in page     # the wait chosen again
    assert f"{retuned['pool_retuned']['invoker_us']} µs (probe 500 µs: 900 µs of front CPU" in page
    assert "build chosen again (probes of that run under the clone" in page
    assert (f"{retuned['request_cpu_us']} µs (probe with {first['probe_build_us']} µs: 100/s at 4.00 ms of clone CPU "
            f"a call; probe with {retuned['request_retuned']['probe_build_us']} µs: 150/s at "
            f"3.50 ms") in page
    assert "segment ① 400 µs a request measured" in page
    assert (f"{retuned['demands_cpu_us']['SEG3']} µs (first pass with {s3['probe_cpu_us']} µs: 700 µs of front CPU a "
            f"request at its plateau; second pass with {s3['cpu_us']} µs: 660 µs of front CPU a request at its "
            "plateau; path ③ asks") in page and "quota, and a second)</td>" in page
    assert f"{retuned['demands_cpu_us']['SEG3']} µs" in page and "90 µs" not in page.split('id="emulation"')[0][-200:]
    summary = json.loads((folder / "summary.json").read_text())
    text = "\n".join(lines(summary))
    assert text.startswith("scaled to this host: service wait")
    assert f"access bean {retuned['demands_cpu_us']['SEG3']} µs" in text and "emulated by the classic-system profile" in text


def test_the_runner_step_calibrates_then_designs_and_applies_the_profile(tmp_path):
    """tohost.fit_profile with calibration runs written as the runner would (no stack): six
    calibration runs, then every run of the experiment carries the profile."""
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    front = {1: 9.0, 2: 8.0, 3: 8.5, 4: 10.0, 5: 60.0}           # % of a core at 1000/s (or 100/s: ⑤)
    calls = []

    def run_one(spec, root):
        calls.append(spec.id)
        x = 1000 if spec.path < 5 else 100
        cpu = {"front/1": front[spec.path] if spec.client_mode == "singleton" else 10.0,
               "haproxy/1": 5.0, "loadgen/master": 20.0}
        if spec.path == 5:
            cpu.update({"clone/1": {"request": 30.0, "pool": 10.0}.get(spec.client_mode, 4.0), "axis/1": 4.0})
        run(root / "_made", spec.id, T0, {"kind": "segments", "path": spec.path, "label": spec.label},
            [dict(s, cpu=cpu, host=sum(cpu.values()), x=x) for s in plateau(x, users=(16,))])
        root.mkdir(parents=True, exist_ok=True)
        shutil.move(root / "_made" / "runs" / spec.id, root / spec.id)
        shutil.rmtree(root / "_made")

    exp = definition.load("classic", profile="classic-system")
    failed: list[str] = []
    prof, chosen, lines = tohost.fit_profile(exp, tmp_path, failed, run_one, 2.0)
    assert calls == [f"calibration-path{k}" for k in range(1, 6)] + ["calibration-pool", "calibration-request"]
    assert not failed
    assert prof["measured"]["front_s"][1] == pytest.approx(90e-6, rel=0.02)
    assert prof["measured"]["clone_request_s"] == pytest.approx(3e-3, rel=0.02)
    assert chosen["wait_us"] == prof["wait_us"] and chosen["sentence"].startswith("scaled to this host")
    assert all(r.knobs["CPUS_FRONT"] == f"{prof['quotas']['front']:g}" for r in exp.runs)
    assert lines[0].startswith("profile classic-system (emulated)")
    # a calibration run that measured nothing: the experiment cannot be fitted, and says why
    exp = definition.load("classic", profile="classic-system")
    with pytest.raises(tohost.FitError, match="calibration run calibration-path1"):
        tohost.fit_profile(exp, tmp_path / "empty", [], lambda spec, root: None, 2.0)


def test_paths_held_by_the_fronts_quota_get_users_enough_to_reach_it():
    runs = profile.apply(definition.load("classic").runs, design(M))
    seg = {r.entry: r for r in runs if r.kind == "segments"}
    assert all(seg[f"axis-path{k}"].load.users == profile.SEGMENT_USERS for k in (1, 2, 3, 4))
    path5 = next(r for r in definition.load("classic").runs if r.entry == "axis-path5")
    assert seg["axis-path5"].load.users == path5.load.users   # the lock: few do


def test_the_wait_is_chosen_again_from_the_measured_t1_and_the_singletons_round_trip_under_quotas():
    prof = design(M).to_json()
    # path ① gave 10 % less than planned under the front's quota; the singleton probe, with the
    # planned wait in force, ran at a rate that makes its round trip 2.5 ms (calibration: 1 ms)
    probe = 1 / (prof["wait_us"] / 1e6 + 2.5e-3)
    new = profile.retune(prof, 0.9 * prof["t1"], probe)
    assert new["singleton"] == pytest.approx(7.4 / 812 * 0.9 * prof["t1"])
    assert 1 / (new["wait_us"] / 1e6 + 2.5e-3) == pytest.approx(new["singleton"], rel=0.01)
    assert new["retuned"]["round_trip_s"] == pytest.approx(2.5e-3)
    assert new["retuned"]["t1_planned"] == prof["t1"] and new["quotas"] == prof["quotas"]
    # a round trip longer than the whole period asked: no wait, said
    slow = profile.retune(prof, 0.9 * prof["t1"], 1.0)
    assert slow["wait_us"] == 0 and any("no service wait" in n for n in slow["notes"])


def test_the_runner_retunes_before_the_first_seg5_run_from_path_one_and_a_probe(tmp_path):
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    exp = definition.load("classic", profile="classic-system")
    p = design(M)
    exp.runs[:] = profile.apply(exp.runs, p)
    prof = p.to_json()
    i = next(k for k, r in enumerate(exp.runs) if r.path == 5)
    path1 = next(r for r in exp.runs if r.path == 1)
    t1 = 0.8 * p.t1

    def made(spec, root, x):
        run(root / "_made", spec.id, T0, {"kind": "segments", "path": spec.path, "label": spec.label},
            [dict(s, cpu={"front/1": 20.0}, host=20.0, x=x) for s in plateau(x, users=(16,))])
        root.mkdir(parents=True, exist_ok=True)
        shutil.move(root / "_made" / "runs" / spec.id, root / spec.id)
        shutil.rmtree(root / "_made")

    made(path1, tmp_path / "runs", t1)
    probes = []

    def run_one(spec, root):
        probes.append((spec.id, spec.demands["SERVICE"]["wait_us"], spec.path))
        made(spec, root, 1 / (p.wait_us / 1e6 + 2e-3))

    new, chosen, lines = tohost.retune_profile(exp, i, tmp_path, [], run_one, prof, {"wait_us": p.wait_us})
    assert probes == [("calibration-singleton-probe", p.wait_us, 5)]    # with the planned wait
    assert new["retuned"]["t1_measured"] == pytest.approx(t1, rel=0.02)
    assert chosen["wait_us"] == new["wait_us"] != p.wait_us and lines[0].startswith("scaled to this host")
    assert all(r.demands["SERVICE"]["wait_us"] == new["wait_us"] for r in exp.runs[i:])
    assert all(r.demands["SERVICE"]["wait_us"] == p.wait_us for r in exp.runs[:i])
    # no path ① before: the planned wait stays, and the line says so
    exp2 = definition.load("classic", profile="classic-system")
    exp2.runs[:] = profile.apply(exp2.runs, p)
    same, _, why = tohost.retune_profile(exp2, 0, tmp_path, [], run_one, prof, {"wait_us": p.wait_us})
    assert same is prof and "planned service wait stays" in why[0]


def test_a_client_per_requests_build_is_chosen_again_from_its_clone_cpu_under_the_quota():
    prof = profile.retune(design(M).to_json(), design(M).t1, 1 / (design(M).wait_us / 1e6 + 1e-3))
    # the probe: the clone used 1.8 times the calibration's own cost per call, the build besides
    own = 1.8 * M.clone_request_s
    new = profile.retune_request(prof, own + prof["request_cpu_us"] / 1e6)
    x = prof["quotas"]["clone"] / (own + new["request_cpu_us"] / 1e6)     # what the quota then holds
    assert x / prof["singleton"] == pytest.approx(22 / 7.4, rel=0.01)
    assert new["request_retuned"]["own_s"] == pytest.approx(own) and not new["notes"]
    # dearer than the whole share: nothing added, said
    dear = profile.retune_request(prof, 10.0)
    assert dear["request_cpu_us"] == 0 and any("client per request" in n for n in dear["notes"])
    runs = profile.with_build(profile.apply(definition.load("classic").runs, design(M)), new["request_cpu_us"])
    assert [r.demands["CLONE"]["cpu_us"] for r in runs if r.client_mode == "request"] == [new["request_cpu_us"]]
    assert [r.load.prime_seconds for r in runs if r.client_mode == "request"] == [profile.PROBE_PRIME_S]
    assert not any("CLONE" in r.demands for r in runs if r.client_mode != "request")


def test_the_runner_retunes_the_build_from_a_probe_of_the_request_run(tmp_path):
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    exp = definition.load("classic", profile="classic-system")
    p = design(M)
    exp.runs[:] = profile.apply(exp.runs, p)
    i = next(k for k, r in enumerate(exp.runs) if r.client_mode == "request")
    seen = []

    def run_one(spec, root):                     # the clone at 40 % of a core at 100/s: 4 ms a call
        seen.append((spec.id, spec.client_mode, spec.demands.get("CLONE", {}).get("cpu_us")))
        run(root / "_made", spec.id, T0, {"kind": "clones", "path": 5, "label": spec.label},
            [dict(s, cpu={"clone/1": 40.0, "front/1": 5.0}, host=45.0, x=100) for s in plateau(100, users=(16,))])
        root.mkdir(parents=True, exist_ok=True)
        shutil.move(root / "_made" / "runs" / spec.id, root / spec.id)
        shutil.rmtree(root / "_made")

    new, lines = tohost.retune_request(exp, i, tmp_path, [], run_one, p.to_json())
    # two probes: the planned build, then the build chosen from the first
    first = new["request_retuned"]["first"]
    assert seen == [("calibration-request-probe", "request", p.request_cpu_us),
                    ("calibration-request-probe-2", "request", new["request_retuned"]["probe_build_us"])]
    assert first["probe_build_us"] == p.request_cpu_us != new["request_retuned"]["probe_build_us"]
    assert new["request_retuned"]["clone_per_request_s"] == pytest.approx(4e-3, rel=0.02)
    # both probes at 100/s: no line through them, the second probe's own cost per call decides
    assert new["request_retuned"]["line"] is None and new["request_retuned"]["other"]["rate"] == pytest.approx(100, rel=0.02)
    assert new["request_retuned"]["per_call_at_target_s"] == pytest.approx(new["request_retuned"]["own_s"])
    assert exp.runs[i].demands["CLONE"]["cpu_us"] == new["request_cpu_us"] and len(lines) == 2
    assert "probe 1" in lines[0] and "probe 2" in lines[1]
    # --quick: one probe
    seen.clear()
    quick = definition.load("classic", profile="classic-system", quick=True)
    quick.runs[:] = profile.apply(quick.runs, p, quick=True)
    quick.runs[0] = replace(quick.runs[0], client_mode="request")
    _, lines = tohost.retune_request(quick, 0, tmp_path / "quick", [], run_one, p.to_json())
    assert [s[0] for s in seen] == ["calibration-request-probe"] and len(lines) == 1


def test_the_second_request_probe_makes_a_line_with_the_first():
    # the first probe at 56/s cost 5.5 ms a call besides the build; the second, with the build
    # chosen from it, ran at 138/s at 2.3 ms: the line through these two points decides
    prof = {**design(M).to_json(), "singleton": 46.5, "request_cpu_us": 400}
    prof["quotas"] = {**prof["quotas"], "clone": 0.5}
    new = profile.retune_request(prof, 2.3e-3 + 400e-6, 138.0, (56.0, 5.5e-3))
    line, target = new["request_retuned"]["line"], 22 / 7.4 * 46.5
    assert line["b_s"] == pytest.approx((56 * 5.5e-3 - 138 * 2.3e-3) / (56 - 138), rel=1e-3)
    assert line["a_cores"] + target * (line["b_s"] + new["request_cpu_us"] / 1e6) == pytest.approx(0.5, rel=0.01)
    assert new["request_retuned"]["other"] == {"rate": 56.0, "own_s": 5.5e-3}


def test_a_client_per_requests_clone_cpu_is_a_line_against_its_rate():
    # this host's figures (2026-11-28): calibration 485/s at 2.29 ms a call, no quota; the probe
    # under the clone's 0.714-core quota with a 1.79 ms build: 143/s at 5.00 ms a call
    prof = {**design(M).to_json(), "singleton": 73.5, "request_cpu_us": 1790}
    prof["quotas"] = {**prof["quotas"], "clone": 0.714}
    prof["measured"] = {**prof["measured"], "request_rate": 485.0, "clone_request_s": 2.294e-3}
    new = profile.retune_request(prof, 5.0e-3, 143.0)
    line, target = new["request_retuned"]["line"], 22 / 7.4 * 73.5
    assert line["b_s"] == pytest.approx((485 * 2.294e-3 - 143 * 3.21e-3) / (485 - 143), rel=1e-3)
    assert line["a_cores"] == pytest.approx(143 * 3.21e-3 - 143 * line["b_s"], rel=1e-3) and line["a_cores"] > 0
    # the build that makes U = a + X·(b + build) the quota at the target rate
    assert line["a_cores"] + target * (line["b_s"] + new["request_cpu_us"] / 1e6) == pytest.approx(0.714, rel=0.01)
    # the probe no slower than the calibration: no line, the probe's own cost per call
    flat = profile.retune_request(prof, 5.0e-3, 480.0)
    assert flat["request_retuned"]["line"] is None
    assert flat["request_retuned"]["per_call_at_target_s"] == pytest.approx(3.21e-3)


def test_the_pool_runs_invoker_cpu_is_chosen_again_from_the_fronts_cpu_under_its_quota():
    prof = {**design(M).to_json(), "singleton": 73.5}
    prof["quotas"] = {**prof["quotas"], "front": 0.312}
    target = 100 / 7.4 * 73.5
    new, cpu = profile.retune_pool(prof, 250e-6, 100)          # 150 µs a request besides the Invoker's 100
    assert 0.312 / (150e-6 + cpu / 1e6) == pytest.approx(target, rel=0.01) and not new["notes"]
    assert new["pool_retuned"]["own_s"] == pytest.approx(150e-6)
    dear, cpu = profile.retune_pool(prof, 518e-6, 0)            # dearer than the fix allows: nothing, said
    assert cpu == 0 and any("fix asks" in n for n in dear["notes"])
    runs = profile.with_invoker(profile.apply(definition.load("classic").runs, design(M)), 164)
    assert [r.demands["INVOKER"]["cpu_us"] for r in runs if r.client_mode == "pool"] == [164]
    # the front restarts for it: primed as long as a probe, but not with --quick
    assert [r.load.prime_seconds for r in runs if r.client_mode == "pool"] == [profile.PROBE_PRIME_S]
    quick = profile.with_invoker(definition.load("classic", quick=True).runs, 164, quick=True)
    assert all(r.load.prime_seconds == 0 for r in quick)
    assert all(r.demands["INVOKER"]["cpu_us"] == design(M).demands_cpu_us["INVOKER"]
               for r in runs if r.client_mode != "pool" and "INVOKER" in r.demands)


def test_the_segments_are_set_again_from_segment_ones_cost_under_the_quota(tmp_path):
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    p = design(M)
    prof = p.to_json()
    f1 = 300e-6                      # under the front's quota segment ① cost 300 µs, not 450 planned
    new = profile.retune_paths(json_round_trip(prof), f1)
    d, paths = new["demands_cpu_us"], PUBLISHED["paths"]
    own = {k: M.front_s[k] - M.front_s[1] for k in (2, 3, 4)}
    for k in (2, 3, 4):              # path k: f1 + this stack's own segments + the demands up to k
        f = f1 + own[k] + sum(d[x] for x in ("SEG2", "SEG3", "SEG4")[:k - 1]) / 1e6
        assert f1 / f == pytest.approx(paths[k] / paths[1], rel=0.02), k
    assert d["SEG1"] == p.demands_cpu_us["SEG1"] and new["paths_retuned"]["f1_measured_s"] == f1
    # the runner's step: path ①'s front CPU from its folder, the runs from path ② on get it
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    exp = definition.load("classic", profile="classic-system")
    exp.runs[:] = profile.apply(exp.runs, p)
    path1 = next(r for r in exp.runs if r.path == 1)
    i = next(k for k, r in enumerate(exp.runs) if r.path == 2)
    run(tmp_path / "_made", path1.id, T0, {"kind": "segments", "path": 1, "label": path1.label},
        [dict(s, cpu={"front/1": 60.0}, host=60.0, x=2000) for s in plateau(2000, users=(16,))])
    (tmp_path / "runs").mkdir()
    shutil.move(tmp_path / "_made" / "runs" / path1.id, tmp_path / "runs" / path1.id)
    got, lines = tohost.retune_paths(exp, i, tmp_path, prof)
    assert got["paths_retuned"]["f1_measured_s"] == pytest.approx(300e-6, rel=0.02)
    assert all(r.demands.get("SEG3", {}).get("cpu_us") == got["demands_cpu_us"]["SEG3"] for r in exp.runs[i:])
    assert exp.runs[0].demands["SEG3"]["cpu_us"] == p.demands_cpu_us["SEG3"] and "paths ②-⑤" in lines[0]


def json_round_trip(d: dict) -> dict:
    import json
    return json.loads(json.dumps(d))


def test_a_calibration_reading_a_segment_cheaper_than_the_one_before_reads_noise():
    # the JSP read 10 µs cheaper than the static page: taken as costing nothing of its own, so
    # the JSP's demand is the whole 2 % the shape asks of it, not 2 % plus the noise
    noisy = design(Measured(**{**M.to_json(), "front_s": {**M.front_s, 2: 80e-6, 3: 85e-6}}))
    f1 = M.front_s[1] + noisy.demands_cpu_us["SEG1"] / 1e6
    assert noisy.demands_cpu_us["SEG2"] == pytest.approx(f1 * (812 / 795 - 1) * 1e6, abs=1)
    # path ④ (100 µs) is still dearer than ① (90): its own 10 µs are counted once, at ④
    f4 = f1 * 812 / 430 - 10e-6
    assert sum(noisy.demands_cpu_us[p] for p in ("SEG2", "SEG3", "SEG4")) == pytest.approx((f4 - f1) * 1e6, abs=2)


def test_the_probes_run_each_configuration_at_its_largest_users_after_a_prime_as_long_as_its_jvm_needs():
    runs = profile.apply(definition.load("classic").runs, design(M))
    probes = {s.id: s for s in profile.probe_specs(runs) if s.path == 5}      # paths ③ ④: test_profile_segments.py
    assert list(probes) == ["calibration-singleton-probe", "calibration-request-probe", "calibration-request-probe-2",
                            "calibration-pool-probe"]
    for s in probes.values():
        run = next(r for r in runs if r.client_mode == s.client_mode and r.path == 5)
        assert s.load.users == (max(run.load.users),) and s.demands == run.demands
    # a clone building a client per call warms up for a minute under its quota: its probes prime longer
    assert probes["calibration-request-probe"].load.prime_seconds == profile.REQUEST_PROBE_PRIME_S > profile.PROBE_PRIME_S
    assert probes["calibration-pool-probe"].load.prime_seconds == profile.PROBE_PRIME_S
    quick = profile.probe_specs(profile.apply(definition.load("classic", quick=True).runs, design(M), True), True)
    assert [s.id for s in quick] == ["calibration-singleton-probe"] and quick[0].load.prime_seconds < profile.PROBE_PRIME_S
