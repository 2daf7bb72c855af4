"""The classic-system profile's segments ③ and ④ chosen again from a first pass of their paths
under the front's quota (profile.next_segment, tohost.retune_segment): no stack, handmade runs."""
from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from analysis.judge.classic import PUBLISHED
from testbed.experiment import definition
from testbed.fit import profile
from testbed.fit import rewrite
from testbed.fit import tohost
from testbed.fit.probes import profile_probe_specs
from testbed.fit.profile import design

from profilecase import M  # tests/experiments/profilecase.py

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
from make_handmade import T0, run  # noqa: E402

PATHS = PUBLISHED["paths"]


def test_a_segment_dearer_under_the_quota_than_planned_loses_the_difference():
    prof = profile.next_paths(design(M).to_json(), 400e-6)
    planned = prof["demands_cpu_us"]["SEG3"]
    f1, f2 = 390e-6, 395e-6                        # paths ① and ② as they ran, at their plateau
    probe = f2 + planned / 1e6 + 60e-6             # the probe: the bean's own cost 60 µs, not the cost probes' 3
    new = profile.next_segment(prof, 3, f1, f2, probe)
    cpu = new["demands_cpu_us"]["SEG3"]
    assert cpu == pytest.approx(planned - 60 + (f1 * (PATHS[1] / PATHS[3] - PATHS[1] / PATHS[2])
                                                - planned / 1e6) * 1e6, abs=1)
    f3 = probe + (cpu - planned) / 1e6             # path ③ with the new demand
    # the normalized segment throughput T(③)/T(①) = f1 / (f3 - f2) is the published one
    assert f1 / (f3 - f2) == pytest.approx(PUBLISHED["segments"][3] / PATHS[1], rel=0.01)
    assert new["segments_retuned"]["3"] == {"probe_cpu_us": planned, "probe_front_s": probe, "previous_s": f2,
                                            "f1_s": f1, "target_s": pytest.approx(f3, abs=1e-6), "cpu_us": cpu}
    assert new["demands_cpu_us"]["SEG4"] == prof["demands_cpu_us"]["SEG4"] and not new["notes"]
    # ④ after it: the shape's share of ④ on top of path ③ as it ran
    new4 = profile.next_segment(new, 4, f1, 700e-6, 700e-6 + 100e-6)
    f4 = 800e-6 + (new4["demands_cpu_us"]["SEG4"] - new["demands_cpu_us"]["SEG4"]) / 1e6
    assert f1 / (f4 - 700e-6) == pytest.approx(PUBLISHED["segments"][4] / PATHS[1], rel=0.02)
    assert set(new4["segments_retuned"]) == {"3", "4"}


def test_a_segment_dearer_than_the_shape_without_any_demand_gets_none_and_says_so():
    prof = design(M).to_json()
    new = profile.next_segment(prof, 3, 300e-6, 300e-6, 300e-6 + prof["demands_cpu_us"]["SEG3"] / 1e6 + 400e-6)
    assert new["demands_cpu_us"]["SEG3"] == 0 and any("the shape asks; nothing added" in n for n in new["notes"])


def _made(root: Path, spec, x: float, front_pct: float, first: tuple | None = None) -> None:
    """A finished run of spec into root/<id>/: three plateau steps, the front at front_pct % of a
    core; first: (x, front_pct) of a step at 16 users before them."""
    steps = [{"users": u, "x": x, "cpu": {"front/1": front_pct}, "host": front_pct + 20} for u in (64, 128, 256)]
    if first:
        steps.insert(0, {"users": 16, "x": first[0], "cpu": {"front/1": first[1]}, "host": first[1] + 20})
    run(root / "_made", spec.id, T0, {"kind": "segments", "path": spec.path, "label": spec.label}, steps)
    root.mkdir(parents=True, exist_ok=True)
    shutil.move(root / "_made" / "runs" / spec.id, root / spec.id)
    shutil.rmtree(root / "_made")


def _segment_three(tmp_path: Path, front_us):
    """Path ③'s retune (tohost.retune_before) on handmade paths ① (400 µs of front CPU a
    request) and ② (410 µs), its passes costing the front front_us(demand, planned) µs a request.
    (exp, i, planned, probes, new profile, lines, said)."""
    p = design(M)
    exp = definition.load("classic", profile="classic-system")
    exp.runs[:] = rewrite.apply(exp.runs, p)
    prof = profile.next_paths(p.to_json(), 400e-6)
    exp.runs[:] = rewrite.with_demands(exp.runs, prof["demands_cpu_us"])
    # segment runs primed briefly, so that the probe's prime shows where it is given
    exp.runs[:] = [replace(r, load=replace(r.load, warm="none", prime_seconds=5.0)) if r.kind == "segments" else r
                   for r in exp.runs]
    by_path = {r.path: r for r in exp.runs if r.kind == "segments"}
    _made(tmp_path / "runs", by_path[1], 2000, 80.0)               # 400 µs a request
    _made(tmp_path / "runs", by_path[2], 1950, 80.0)               # 410 µs
    i, planned, probes, said = exp.runs.index(by_path[3]), prof["demands_cpu_us"]["SEG3"], [], []

    def run_one(spec, root):
        demand = spec.demands["SEG3"]["cpu_us"]
        probes.append((spec.id, demand, spec.load.users))
        # at its plateau; its first step (twice the cost at half the best) is below the
        # plateau, as it is in the paths' reading
        cost = front_us(demand, planned) / 10
        _made(root, spec, 1000, cost, first=(500, cost))

    new, _, lines = tohost.retune_before(exp, i, tmp_path, [], run_one, json.loads(json.dumps(prof)), {}, said.append)
    return exp, i, planned, probes, new, lines, said, run_one


def test_the_runner_probes_path_three_twice_then_sets_its_segment_for_the_runs_from_it_once(tmp_path):
    def front_us(demand, planned):  # 800 µs a request with the planned demand (dearer); 1.45 µs a µs of it
        return 800 + 1.45 * (demand - planned)

    exp, i, planned, probes, new, lines, said, run_one = _segment_three(tmp_path, front_us)
    users = exp.runs[i].load.users
    r = new["segments_retuned"]["3"]
    first = r["first"]
    # a first pass (every step), which moved the demand by more than a pass's noise, so a second
    assert probes == [("profile-probe-path3", planned, users), ("profile-probe-path3-2", first["cpu_us"], users)]
    assert first["probe_cpu_us"] == planned and first["probe_front_s"] == pytest.approx(800e-6, rel=0.01)
    assert r["probe_cpu_us"] == first["cpu_us"] and r["previous_s"] == pytest.approx(410e-6, rel=0.01)
    assert r["f1_s"] == pytest.approx(400e-6, rel=0.01)
    assert r["probe_front_s"] == pytest.approx(front_us(first["cpu_us"], planned) * 1e-6, rel=0.01)
    assert new["demands_cpu_us"]["SEG3"] == r["cpu_us"] < planned
    # with a slope of 1.45 one pass leaves 45 % of the error, the second 20 % of it
    target = r["target_s"] * 1e6
    assert abs(front_us(r["cpu_us"], planned) - target) < 0.25 * abs(800 - target)
    assert abs(front_us(first["cpu_us"], planned) - target) > 0.4 * abs(800 - target)
    assert any("a second pass of path 3" in t for t in said)
    assert all(s.demands["SEG3"]["cpu_us"] == r["cpu_us"] for s in exp.runs[i:] if "SEG3" in s.demands)
    assert all(s.demands["SEG3"]["cpu_us"] == planned for s in exp.runs[:i])
    # path ③ runs on a front restarted for it: primed as long as a probe; the runs after it are not
    assert exp.runs[i].load.prime_seconds == rewrite.PROBE_PRIME_S
    assert exp.runs[i + 1].load.prime_seconds == 5.0 < rewrite.PROBE_PRIME_S
    assert "segment 3" in lines[0] and f"(was {planned})" in lines[0] and "first pass" in lines[0]
    assert "second pass" in lines[1] and f"(was {first['cpu_us']})" in lines[1]
    # once only: a second path ③ (a repeat) is not probed again
    assert tohost.retune_before(exp, i, tmp_path, [], run_one, new, {}, said.append) is None and len(probes) == 2


def test_a_first_pass_that_moves_its_segment_less_than_a_pass_s_noise_is_the_only_one(tmp_path):
    target_us = 410 + 400 * (PATHS[1] / PATHS[3] - PATHS[1] / PATHS[2])      # path ② as it ran + ③'s share

    def front_us(demand, planned):  # 20 µs dearer than the shape asks with the planned demand
        return target_us + 20 + (demand - planned)

    exp, i, planned, probes, new, lines, said, _ = _segment_three(tmp_path, front_us)
    r = new["segments_retuned"]["3"]
    assert [x[0] for x in probes] == ["profile-probe-path3"] and "first" not in r
    assert r["cpu_us"] == pytest.approx(planned - 20, abs=2) and len(lines) == 1
    assert not any("second pass" in t for t in said)


def test_without_path_one_or_its_front_cpu_the_planned_segment_stays_and_nothing_is_probed(tmp_path):
    p = design(M)
    exp = definition.load("classic", profile="classic-system")
    exp.runs[:] = rewrite.apply(exp.runs, p)
    i = next(k for k, r in enumerate(exp.runs) if r.kind == "segments" and r.path == 4)
    probes = []
    new, _, lines = tohost.retune_before(exp, i, tmp_path, [], lambda spec, root: probes.append(spec.id),
                                         p.to_json(), {}, lambda s: None)
    assert not probes and "segment 4's demand stays" in lines[0]
    assert new["segments_retuned"] == {"4": None} and new["demands_cpu_us"] == p.to_json()["demands_cpu_us"]


def test_the_probes_include_paths_three_and_four_but_not_with_quick():
    runs = rewrite.apply(definition.load("classic").runs, design(M))
    probes = profile_probe_specs(runs)
    assert [s.id for s in probes[:4]] == ["profile-probe-path3", "profile-probe-path4",    # at most two passes
                                          "profile-probe-path3-2", "profile-probe-path4-2"]
    for s, k in zip(probes, (3, 4)):
        path = next(r for r in runs if r.kind == "segments" and r.path == k)
        assert s.path == k and s.demands == path.demands and s.load.users == path.load.users
        assert s.load.step_seconds == path.load.step_seconds and s.load.plateau_tolerance == path.load.plateau_tolerance
        # primed at least as long as a probe: a prime by measurement gets that as its floor
        assert path.load.steady and s.load.steady and s.load.prime_seconds == path.load.prime_seconds == 0
        assert s.load.warm_min_seconds == max(path.load.warm_min_seconds, rewrite.PROBE_PRIME_S)
        assert f"a first pass of /seg/{k} under" in s.label
    assert "a second pass of /seg/3 under" in probes[2].label and "a second pass of /seg/4 under" in probes[3].label
    quick = profile_probe_specs(rewrite.apply(definition.load("classic", quick=True).runs, design(M), True), True)
    assert not any("path" in s.id for s in quick)
