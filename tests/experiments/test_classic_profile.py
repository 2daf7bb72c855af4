"""The classic-system profile's arithmetic (cli/testbed/fit/profile.py): measured costs in,
emulated demands, quotas, wait and pool out, and each setting chosen again from what the runs
measured under the quotas (next_*); no stack. How the profile goes into the runs and the
runner's steps: test_profile_runs.py; segments ③ and ④: test_profile_segments.py."""
from __future__ import annotations

import pytest

from analysis.judge.classic import PUBLISHED
from testbed.experiment import definition
from testbed.fit import profile
from testbed.fit import rewrite
from testbed.fit.profile import Measured, design

from profilecase import M  # tests/experiments/profilecase.py


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


def test_the_profile_is_chosen_by_the_file_or_the_command_line():
    assert definition.load("classic").profile == "stack"
    assert definition.load("classic", profile="classic-system").profile == "classic-system"
    with pytest.raises(definition.DefinitionError, match="kind = \"classic\""):
        definition.load("clones", profile="classic-system")


def test_the_report_and_the_terminal_say_the_demands_are_emulated_and_how(tmp_path):
    import json
    import shutil

    from analysis.render.report import regenerate
    from testbed import ROOT
    from testbed.run.headline import lines
    folder = tmp_path / "classic"
    shutil.copytree(ROOT / "tests" / "analysis" / "data" / "classic-handmade", folder)
    meta = json.loads((folder / "experiment.json").read_text())
    p = design(M)
    retuned = profile.next_build(profile.next_wait(p.to_json(), 0.9 * p.t1, 40.0), 4e-3, 100.0)
    first = retuned["request_retuned"]                              # a second probe, as the runner makes it
    retuned = profile.next_build(retuned, 3.5e-3, 150.0, (first["probe_rate"], first["own_s"]))
    retuned["request_retuned"]["first"] = first
    retuned, _ = profile.next_invoker(profile.next_paths(retuned, 400e-6), 900e-6, 500)
    retuned = profile.next_segment(retuned, 3, 390e-6, 395e-6, 700e-6)
    s3 = retuned["segments_retuned"]["3"]                           # and a second pass, as the runner makes it
    retuned = profile.next_segment(retuned, 3, 390e-6, 395e-6, 660e-6)
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


def test_the_wait_is_chosen_again_from_the_measured_t1_and_the_singletons_round_trip_under_quotas():
    prof = design(M).to_json()
    # path ① gave 10 % less than planned under the front's quota; the singleton probe, with the
    # planned wait in force, ran at a rate that makes its round trip 2.5 ms (cost probes: 1 ms)
    probe = 1 / (prof["wait_us"] / 1e6 + 2.5e-3)
    new = profile.next_wait(prof, 0.9 * prof["t1"], probe)
    assert new["singleton"] == pytest.approx(7.4 / 812 * 0.9 * prof["t1"])
    assert 1 / (new["wait_us"] / 1e6 + 2.5e-3) == pytest.approx(new["singleton"], rel=0.01)
    assert new["retuned"]["round_trip_s"] == pytest.approx(2.5e-3)
    assert new["retuned"]["t1_planned"] == prof["t1"] and new["quotas"] == prof["quotas"]
    # a round trip longer than the whole period asked: no wait, said
    slow = profile.next_wait(prof, 0.9 * prof["t1"], 1.0)
    assert slow["wait_us"] == 0 and any("no service wait" in n for n in slow["notes"])


def test_a_client_per_requests_build_is_chosen_again_from_its_clone_cpu_under_the_quota():
    prof = profile.next_wait(design(M).to_json(), design(M).t1, 1 / (design(M).wait_us / 1e6 + 1e-3))
    # the probe: the clone used 1.8 times the cost probe's own cost per call, the build besides
    own = 1.8 * M.clone_request_s
    new = profile.next_build(prof, own + prof["request_cpu_us"] / 1e6)
    x = prof["quotas"]["clone"] / (own + new["request_cpu_us"] / 1e6)     # what the quota then holds
    assert x / prof["singleton"] == pytest.approx(22 / 7.4, rel=0.01)
    assert new["request_retuned"]["own_s"] == pytest.approx(own) and not new["notes"]
    # dearer than the whole share: nothing added, said
    dear = profile.next_build(prof, 10.0)
    assert dear["request_cpu_us"] == 0 and any("client per request" in n for n in dear["notes"])
    runs = rewrite.with_build(rewrite.apply(definition.load("classic").runs, design(M)), new["request_cpu_us"])
    assert [r.demands["CLONE"]["cpu_us"] for r in runs if r.client_mode == "request"] == [new["request_cpu_us"]]
    assert [r.load.prime_seconds for r in runs if r.client_mode == "request"] == [rewrite.PROBE_PRIME_S]
    assert not any("CLONE" in r.demands for r in runs if r.client_mode != "request")


def test_the_second_request_probe_makes_a_line_with_the_first():
    # the first probe at 56/s cost 5.5 ms a call besides the build; the second, with the build
    # chosen from it, ran at 138/s at 2.3 ms: the line through these two points decides
    prof = {**design(M).to_json(), "singleton": 46.5, "request_cpu_us": 400}
    prof["quotas"] = {**prof["quotas"], "clone": 0.5}
    new = profile.next_build(prof, 2.3e-3 + 400e-6, 138.0, (56.0, 5.5e-3))
    line, target = new["request_retuned"]["line"], 22 / 7.4 * 46.5
    assert line["b_s"] == pytest.approx((56 * 5.5e-3 - 138 * 2.3e-3) / (56 - 138), rel=1e-3)
    assert line["a_cores"] + target * (line["b_s"] + new["request_cpu_us"] / 1e6) == pytest.approx(0.5, rel=0.01)
    assert new["request_retuned"]["other"] == {"rate": 56.0, "own_s": 5.5e-3}


def test_a_client_per_requests_clone_cpu_is_a_line_against_its_rate():
    # this host's figures (2026-11-28): cost probe 485/s at 2.29 ms a call, no quota; the probe
    # under the clone's 0.714-core quota with a 1.79 ms build: 143/s at 5.00 ms a call
    prof = {**design(M).to_json(), "singleton": 73.5, "request_cpu_us": 1790}
    prof["quotas"] = {**prof["quotas"], "clone": 0.714}
    prof["measured"] = {**prof["measured"], "request_rate": 485.0, "clone_request_s": 2.294e-3}
    new = profile.next_build(prof, 5.0e-3, 143.0)
    line, target = new["request_retuned"]["line"], 22 / 7.4 * 73.5
    assert line["b_s"] == pytest.approx((485 * 2.294e-3 - 143 * 3.21e-3) / (485 - 143), rel=1e-3)
    assert line["a_cores"] == pytest.approx(143 * 3.21e-3 - 143 * line["b_s"], rel=1e-3) and line["a_cores"] > 0
    # the build that makes U = a + X·(b + build) the quota at the target rate
    assert line["a_cores"] + target * (line["b_s"] + new["request_cpu_us"] / 1e6) == pytest.approx(0.714, rel=0.01)
    # the probe no slower than the cost probe: no line, the probe's own cost per call
    flat = profile.next_build(prof, 5.0e-3, 480.0)
    assert flat["request_retuned"]["line"] is None
    assert flat["request_retuned"]["per_call_at_target_s"] == pytest.approx(3.21e-3)


def test_the_pool_runs_invoker_cpu_is_chosen_again_from_the_fronts_cpu_under_its_quota():
    prof = {**design(M).to_json(), "singleton": 73.5}
    prof["quotas"] = {**prof["quotas"], "front": 0.312}
    target = 100 / 7.4 * 73.5
    new, cpu = profile.next_invoker(prof, 250e-6, 100)          # 150 µs a request besides the Invoker's 100
    assert 0.312 / (150e-6 + cpu / 1e6) == pytest.approx(target, rel=0.01) and not new["notes"]
    assert new["pool_retuned"]["own_s"] == pytest.approx(150e-6)
    dear, cpu = profile.next_invoker(prof, 518e-6, 0)            # dearer than the fix allows: nothing, said
    assert cpu == 0 and any("fix asks" in n for n in dear["notes"])
    runs = rewrite.with_invoker(rewrite.apply(definition.load("classic").runs, design(M)), 164)
    assert [r.demands["INVOKER"]["cpu_us"] for r in runs if r.client_mode == "pool"] == [164]
    # the front restarts for it: primed as long as a probe, but not with --quick
    assert [r.load.prime_seconds for r in runs if r.client_mode == "pool"] == [rewrite.PROBE_PRIME_S]
    quick = rewrite.with_invoker(definition.load("classic", quick=True).runs, 164, quick=True)
    assert all(r.load.prime_seconds == 0 for r in quick)
    assert all(r.demands["INVOKER"]["cpu_us"] == design(M).demands_cpu_us["INVOKER"]
               for r in runs if r.client_mode != "pool" and "INVOKER" in r.demands)


def test_a_cost_probe_reading_a_segment_cheaper_than_the_one_before_reads_noise():
    # the JSP read 10 µs cheaper than the static page: taken as costing nothing of its own, so
    # the JSP's demand is the whole 2 % the shape asks of it, not 2 % plus the noise
    noisy = design(Measured(**{**M.to_json(), "front_s": {**M.front_s, 2: 80e-6, 3: 85e-6}}))
    f1 = M.front_s[1] + noisy.demands_cpu_us["SEG1"] / 1e6
    assert noisy.demands_cpu_us["SEG2"] == pytest.approx(f1 * (812 / 795 - 1) * 1e6, abs=1)
    # path ④ (100 µs) is still dearer than ① (90): its own 10 µs are counted once, at ④
    f4 = f1 * 812 / 430 - 10e-6
    assert sum(noisy.demands_cpu_us[p] for p in ("SEG2", "SEG3", "SEG4")) == pytest.approx((f4 - f1) * 1e6, abs=2)
