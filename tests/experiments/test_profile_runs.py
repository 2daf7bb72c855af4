"""The classic-system profile in the runs (no stack): put into the experiment's runs
(cli/testbed/fit/rewrite.py), its cost and profile probes planned (fit/probes.py), and the
runner's steps that measure and retune it (fit/tohost.py), on handmade runs."""
from __future__ import annotations

from dataclasses import replace

import pytest

from analysis.judge.classic import PUBLISHED
from testbed.experiment import definition
from testbed.fit import profile
from testbed.fit import rewrite
from testbed.fit.probes import REQUEST_PROBE_PRIME_S, cost_probe_specs, profile_probe_specs
from testbed.fit.profile import design

from profilecase import M  # tests/experiments/profilecase.py


def test_apply_sets_quotas_demands_wait_and_pool_in_every_run_and_scales_nothing_else():
    exp = definition.load("classic")
    p = design(M)
    runs = rewrite.apply(exp.runs, p)
    assert all(r.knobs["CPUS_FRONT"] == f"{p.quotas['front']:g}" and r.knobs["CPUS_CLONE"] == f"{p.quotas['clone']:g}"
               for r in runs)
    assert all(not r.auto_wait for r in runs)
    # the file runs /seg/5 first (to warm the stack); the profile's cost probes warmed it, and its
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


def test_paths_held_by_the_fronts_quota_get_users_enough_to_reach_it():
    runs = rewrite.apply(definition.load("classic").runs, design(M))
    seg = {r.entry: r for r in runs if r.kind == "segments"}
    assert all(seg[f"axis-path{k}"].load.users == rewrite.SEGMENT_USERS for k in (1, 2, 3, 4))
    path5 = next(r for r in definition.load("classic").runs if r.entry == "axis-path5")
    assert seg["axis-path5"].load.users == path5.load.users   # the lock: few do


def test_the_cost_probes_measure_the_stack_without_demands_waits_or_quotas():
    exp = definition.load("classic")
    first = rewrite.apply(exp.runs, design(M))[0]
    specs = cost_probe_specs(first)
    assert [(s.id, s.path, s.client_mode) for s in specs] == [
        *((f"cost-probe-path{k}", k, "singleton") for k in range(1, 6)), ("cost-probe-pool", 5, "pool"),
        ("cost-probe-request", 5, "request")]
    assert all(not s.demands and not any(k.startswith("CPUS_") for k in s.knobs) for s in specs)


def test_the_probes_run_each_configuration_at_its_largest_users_after_a_prime_as_long_as_its_jvm_needs():
    runs = rewrite.apply(definition.load("classic").runs, design(M))
    probes = {s.id: s for s in profile_probe_specs(runs) if s.path == 5}      # paths ③ ④: test_profile_segments.py
    assert list(probes) == ["profile-probe-singleton", "profile-probe-request", "profile-probe-request-2",
                            "profile-probe-pool"]
    for s in probes.values():
        run = next(r for r in runs if r.client_mode == s.client_mode and r.path == 5)
        assert s.load.users == (max(run.load.users),) and s.demands == run.demands
    # a clone building a client per call warms up for a minute under its quota: its probes prime longer
    assert probes["profile-probe-request"].load.prime_seconds == REQUEST_PROBE_PRIME_S > rewrite.PROBE_PRIME_S
    assert probes["profile-probe-pool"].load.prime_seconds == rewrite.PROBE_PRIME_S
    quick = profile_probe_specs(rewrite.apply(definition.load("classic", quick=True).runs, design(M), True), True)
    assert [s.id for s in quick] == ["profile-probe-singleton"] and quick[0].load.prime_seconds < rewrite.PROBE_PRIME_S


def test_the_runner_step_probes_the_costs_then_designs_and_applies_the_profile(tmp_path):
    """tohost.fit_profile with cost probes written as the runner would (no stack): seven
    cost probes, then every run of the experiment carries the profile."""
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
    assert calls == [f"cost-probe-path{k}" for k in range(1, 6)] + ["cost-probe-pool", "cost-probe-request"]
    assert not failed
    assert prof["measured"]["front_s"][1] == pytest.approx(90e-6, rel=0.02)
    assert prof["measured"]["clone_request_s"] == pytest.approx(3e-3, rel=0.02)
    assert chosen["wait_us"] == prof["wait_us"] and chosen["sentence"].startswith("scaled to this host")
    assert all(r.knobs["CPUS_FRONT"] == f"{prof['quotas']['front']:g}" for r in exp.runs)
    assert lines[0].startswith("profile classic-system (emulated)")
    # a cost probe that measured nothing: the experiment cannot be fitted, and says why
    exp = definition.load("classic", profile="classic-system")
    with pytest.raises(tohost.FitError, match="cost probe cost-probe-path1"):
        tohost.fit_profile(exp, tmp_path / "empty", [], lambda spec, root: None, 2.0)


def test_the_runner_retunes_before_the_first_seg5_run_from_path_one_and_a_probe(tmp_path):
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    exp = definition.load("classic", profile="classic-system")
    p = design(M)
    exp.runs[:] = rewrite.apply(exp.runs, p)
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

    new, chosen, lines = tohost.retune_wait(exp, i, tmp_path, [], run_one, prof, {"wait_us": p.wait_us})
    assert probes == [("profile-probe-singleton", p.wait_us, 5)]    # with the planned wait
    assert new["retuned"]["t1_measured"] == pytest.approx(t1, rel=0.02)
    assert chosen["wait_us"] == new["wait_us"] != p.wait_us and lines[0].startswith("scaled to this host")
    assert all(r.demands["SERVICE"]["wait_us"] == new["wait_us"] for r in exp.runs[i:])
    assert all(r.demands["SERVICE"]["wait_us"] == p.wait_us for r in exp.runs[:i])
    # no path ① before: the planned wait stays, and the line says so
    exp2 = definition.load("classic", profile="classic-system")
    exp2.runs[:] = rewrite.apply(exp2.runs, p)
    same, _, why = tohost.retune_wait(exp2, 0, tmp_path, [], run_one, prof, {"wait_us": p.wait_us})
    assert same is prof and "planned service wait stays" in why[0]


def test_the_runner_retunes_the_build_from_a_probe_of_the_request_run(tmp_path):
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    exp = definition.load("classic", profile="classic-system")
    p = design(M)
    exp.runs[:] = rewrite.apply(exp.runs, p)
    i = next(k for k, r in enumerate(exp.runs) if r.client_mode == "request")
    seen = []

    def run_one(spec, root):                     # the clone at 40 % of a core at 100/s: 4 ms a call
        seen.append((spec.id, spec.client_mode, spec.demands.get("CLONE", {}).get("cpu_us")))
        run(root / "_made", spec.id, T0, {"kind": "clones", "path": 5, "label": spec.label},
            [dict(s, cpu={"clone/1": 40.0, "front/1": 5.0}, host=45.0, x=100) for s in plateau(100, users=(16,))])
        root.mkdir(parents=True, exist_ok=True)
        shutil.move(root / "_made" / "runs" / spec.id, root / spec.id)
        shutil.rmtree(root / "_made")

    new, lines = tohost.retune_build(exp, i, tmp_path, [], run_one, p.to_json())
    # two probes: the planned build, then the build chosen from the first
    first = new["request_retuned"]["first"]
    assert seen == [("profile-probe-request", "request", p.request_cpu_us),
                    ("profile-probe-request-2", "request", new["request_retuned"]["probe_build_us"])]
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
    quick.runs[:] = rewrite.apply(quick.runs, p, quick=True)
    quick.runs[0] = replace(quick.runs[0], client_mode="request")
    _, lines = tohost.retune_build(quick, 0, tmp_path / "quick", [], run_one, p.to_json())
    assert [s[0] for s in seen] == ["profile-probe-request"] and len(lines) == 1


def test_the_segments_are_set_again_from_segment_ones_cost_under_the_quota(tmp_path):
    import shutil
    import sys as _sys
    from pathlib import Path

    from testbed.fit import tohost
    p = design(M)
    prof = p.to_json()
    f1 = 300e-6                      # under the front's quota segment ① cost 300 µs, not 450 planned
    new = profile.next_paths(json_round_trip(prof), f1)
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
    exp.runs[:] = rewrite.apply(exp.runs, p)
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
