"""The experiment files under loadgen/experiments/ and how the runner reads them (no stack)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.experiment import definition
from testbed.experiment.definition import DefinitionError
from testbed.run.runner import LOCUST_START_S, Runner

SHIPPED = ("segments", "clones", "calibration")
IGNORED = ("id", "label", "repeat", "status", "steps", "started", "ended", "error",
           "locust_workers", "locust_csv_full_history", "notes")


def parse(text: str, **kw):
    import tomllib
    return definition.parse(tomllib.loads(text), Path("x.toml"), text, **kw)


MINIMAL = 'name = "m"\nkind = "segments"\n[[runs]]\nid = "a"\npath = 1\n'


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("quick", [False, True])
def test_every_shipped_experiment_parses_in_both_modes(name, quick):
    exp = definition.load(name, quick=quick)
    assert exp.kind == name and exp.runs
    assert len({r.id for r in exp.runs}) == len(exp.runs)


@pytest.mark.parametrize("name", SHIPPED)
def test_quick_plans_leave_room_for_reconfiguration_within_two_minutes(name):
    """A check of the files' arithmetic (planned seconds + a rough start-up cost per Locust
    run and per JVM restart), not a timing of anything."""
    exp = definition.load(name, quick=True)
    assert Runner(exp, stack=None).estimate() <= 120


@pytest.mark.parametrize("name", SHIPPED)
def test_every_run_of_a_shipped_experiment_says_what_the_analysis_needs(name):
    for r in definition.load(name).runs:
        c = r.config()
        assert c["kind"] == name and 1 <= c["path"] <= 5
        assert set(c["tiers"]) == {"front", "clone", "axis", "gsoap"}
        assert not set(c) & set(IGNORED)          # only configuration at the top of run.json
        if name == "calibration":
            assert c["regime"] in ("serial", "parallel") and c["demands"]
        elif name == "segments":
            assert "demands" not in c              # the stack's own cost, no knob


def test_segments_runs_cover_every_cumulative_path_of_one_series():
    """/seg/5 first, primed until warm; the other paths on the JVMs it warmed (no prime: eta.cold_runs,
    RunDriver's rule), every step adaptive."""
    from testbed.run.eta import changed_runs, cold_runs
    runs = definition.load("segments").runs
    assert [r.path for r in runs] == [5, 1, 2, 3, 4]
    assert [r.user_class for r in runs] == ["Seg5ViaClonesAxis", "Seg1StaticPage", "Seg2Jsp", "Seg3AccessBean",
                                            "Seg4SessionBean"]
    assert len({json.dumps({k: v for k, v in r.config().items() if k != "path"}, sort_keys=True)
                for r in runs}) == 1
    assert all(r.load.steady and r.load.target_ci > 0 and r.load.prime_seconds == 0 for r in runs)
    assert cold_runs(runs, changed_runs(runs)) == [True, False, False, False, False]


def test_the_longest_an_experiment_may_take_counts_a_prime_only_where_a_run_is_cold():
    """Runner.estimate: segments primes /seg/5 once (at most its ceiling), not five times."""
    exp = definition.load("segments")
    load = exp.runs[0].load
    runner = Runner(exp, stack=None)
    steps = sum(r.load.seconds(primed=False) for r in exp.runs)
    assert runner.estimate() == pytest.approx(load.warm_max_seconds + steps + 5 * LOCUST_START_S)


def test_clones_runs_differ_from_the_baseline_in_one_tier_or_the_client_mode_only():
    runs = {r.entry: r for r in definition.load("clones").runs}
    base = runs["singleton-c1-a1"]
    rest = lambda r: {k: v for k, v in r.config().items() if k not in ("tiers", "client_mode", "pool_size")}
    for r in runs.values():
        assert rest(r) == rest(base)
        differ = [t for t in r.tiers if r.tiers[t] != base.tiers[t]]
        assert len(differ) + (r.client_mode != base.client_mode) <= 1, r.entry
    assert {runs[k].tiers["axis"] for k in runs if k.startswith("singleton-c1")} == {1, 2, 4}
    assert {runs[k].tiers["clone"] for k in runs if k.endswith("-a1") and k.startswith("singleton")} == {1, 2, 4}
    assert {r.client_mode for r in runs.values()} == {"singleton", "request", "pool"}
    # the plateau must come from the real client: no lock and no demand in front or client tier;
    # only the (unlocked) remote-service time that the classic deployment had
    for r in runs.values():
        assert set(r.demands) <= {"SERVICE"} and not r.demands.get("SERVICE", {}).get("locked")


def test_calibration_demands_become_the_tiers_knobs():
    r = next(r for r in definition.load("calibration").runs if r.regime == "parallel")
    k = r.stack_knobs()
    assert (k["DEMAND_CLONE_WAIT_US"], k["DEMAND_CLONE_LOCKED"]) == ("16000", "1")
    assert (k["DEMAND_SEG3_WAIT_US"], k["DEMAND_SEG3_LOCKED"]) == ("0", "0")   # unset means zero
    assert k["CLIENT_MODE"] == "pool" and k["CLIENT_POOL_SIZE"] == "8"


def test_paths_expand_to_one_run_per_path_named_after_the_entry():
    exp = parse('name = "m"\nkind = "segments"\n[[runs]]\nid = "gs"\nbackend = "gsoap"\n'
                'tiers = {gsoap = 1}\npaths = [1, 5]\n')
    assert [r.id for r in exp.runs] == ["gs-path1-r0", "gs-path5-r0"]
    assert exp.runs[1].user_class == "Seg5ViaClonesGsoap"


def test_repeat_makes_rounds_of_every_run_with_equal_configuration():
    exp = parse(MINIMAL.replace("path = 1", "paths = [1, 2]"), repeat=2)
    assert [r.id for r in exp.runs] == ["a-path1-r0", "a-path2-r0", "a-path1-r1", "a-path2-r1"]
    assert exp.runs[0].config() == exp.runs[2].config() and exp.runs[2].repeat == 1


def test_quick_replaces_the_plan_and_keeps_only_the_runs_it_names():
    text = MINIMAL + ('[[runs]]\nid = "b"\npath = 2\nload = {users = [3]}\n'
                      '[quick]\nusers = [1]\nstep_seconds = 5\nwarmup_seconds = 1\nruns = ["b"]\n')
    full, quick = parse(text), parse(text, quick=True)
    assert [r.load.users for r in full.runs] == [(1, 2, 4, 8, 16, 32), (3,)]
    assert [(r.entry, r.load.users, r.load.step_seconds) for r in quick.runs] == [("b", (1,), 5.0)]


def test_run_tiers_are_merged_over_the_default_tiers():
    exp = parse(MINIMAL.replace('path = 1', 'path = 5\ntiers = {clone = 4}')
                + '[defaults]\ntiers = {axis = 2}\n')
    assert exp.runs[0].tiers == {"front": 1, "clone": 4, "axis": 2, "gsoap": 0}


@pytest.mark.parametrize("text, named", [
    (MINIMAL.replace("path = 1", "pth = 1"), "pth"),
    (MINIMAL + "[load]\nuser = [1]\n", "user"),
    (MINIMAL.replace("path = 1", "path = 6"), "path"),
    (MINIMAL.replace('kind = "segments"', 'kind = "clone"'), "kind"),
    (MINIMAL.replace("path = 1", "path = 5\ntiers = {axis = 0}"), "tiers.axis"),
    (MINIMAL.replace("path = 1", "path = 1\ndemands = {SEG9 = {wait_us = 1}}"), "SEG9"),
    (MINIMAL.replace("path = 1", "path = 1\nknobs = {DEMAND_SEG2_WAIT_US = 5}"), "DEMAND_SEG2_WAIT_US"),
    (MINIMAL.replace("path = 1", "path = 1\nregime = \"serial\""), "regime"),
    (MINIMAL + "[load]\nstep_seconds = 5\nwarmup_seconds = 5\n", "warmup_seconds"),
    (MINIMAL + '[[runs]]\nid = "a"\npath = 2\n', "a"),
    (MINIMAL + '[quick]\nruns = ["zz"]\n', "zz"),
    (MINIMAL.replace("path = 1", 'path = 5\nclient_mode = "pool"\npool_size = 2000'), r"pool_size must be a whole number 1\.\.1024"),
    (MINIMAL.replace('kind = "segments"', 'kind = "segments"\nfindings = ["stalls"]'), "findings"),
])
def test_a_mistake_in_an_experiment_file_is_an_error_naming_it(text, named):
    with pytest.raises(DefinitionError, match=named):
        parse(text, quick=True)


def test_a_knob_set_by_some_runs_only_must_have_a_default():
    text = MINIMAL.replace("path = 1", 'path = 1\nknobs = {GSOAP_POOL_SIZE = 4}') + '[[runs]]\nid = "b"\npath = 2\n'
    with pytest.raises(DefinitionError, match="GSOAP_POOL_SIZE.*b"):
        parse(text)
    ok = parse(text + '[defaults]\nknobs = {GSOAP_POOL_SIZE = 16}\n')
    assert [r.knobs["GSOAP_POOL_SIZE"] for r in ok.runs] == ["4", "16"]


def test_an_unknown_experiment_name_lists_the_known_ones():
    with pytest.raises(DefinitionError, match="segments"):
        definition.find("segmnts")


def test_up_refuses_a_pool_the_clone_cannot_have_before_starting_anything(capsys):
    import argparse
    from testbed.stacks import verbs
    parser = argparse.ArgumentParser()
    verbs.add_up_arguments(parser)
    assert verbs.up(parser.parse_args(["--pool-size", "2000"])) == 2
    assert "--pool-size 2000: clients per clone must be 1..1024" in capsys.readouterr().err
