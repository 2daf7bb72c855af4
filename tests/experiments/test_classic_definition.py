"""loadgen/experiments/classic.toml and the keys it brings: a run's part, [parts.*] and
[settings.<part>] tables, the adaptive-step and plateau-stop load keys (no stack)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from testbed.experiment import definition
from testbed.experiment.definition import DefinitionError
from testbed.run.locustrun import master_argv
from testbed.run.runner import Runner

SEGMENT_RUNS = [f"axis-path{k}" for k in (5, 1, 2, 3, 4)]
CLONE_RUNS = ["singleton-c1-a1", "singleton-c1-a2", "singleton-c1-a4", "singleton-c2-a1",
              "singleton-c4-a1", "request-c1-a1", "pool-c1-a1"]


def parse(text: str, **kw):
    return definition.parse(tomllib.loads(text), Path("x.toml"), text, **kw)


CLASSIC = '''name = "c"
kind = "classic"
[parts.segments]
load = {users = [2, 4]}
[parts.clones]
path = 5
tiers = {axis = 2}
load = {users = [8]}
[[runs]]
part = "segments"
id = "s"
paths = [1, 5]
[[runs]]
part = "clones"
id = "k"
tiers = {clone = 2}
'''


def test_classic_runs_segments_first_then_clones_in_the_diagnosis_order_request_and_pool_last():
    exp = definition.load("classic")
    assert exp.kind == "classic"
    assert [r.entry for r in exp.runs] == SEGMENT_RUNS + CLONE_RUNS
    assert [r.kind for r in exp.runs] == ["segments"] * 5 + ["clones"] * 7
    assert [r.path for r in exp.runs] == [5, 1, 2, 3, 4] + [5] * 7
    seg, clo = exp.runs[:5], exp.runs[5:]
    # the five paths share one stack configuration: no restart between them
    assert len({str(r.stack_knobs()) + str(r.tiers) for r in seg}) == 1 and not seg[0].demands
    # /seg/5 first and primed: it loads every JVM of the stack, so the others run warm (the
    # runner primes a run only where it reaches a tier not loaded since its start); every path
    # ramps over the same steps, so their maxima are each the best of as many steps
    assert seg[0].load.steady and seg[0].load.prime_ceiling() >= 60      # primed until measurably warm
    assert len({r.load.users for r in seg}) == 1 and all(r.load.plateau_tolerance == 0 for r in seg)
    # the clone runs are clones.toml's: an unlocked service wait the runner scales to the host
    # (until then the file's unscaled wait); lifecycles change last
    assert all(r.auto_wait and r.demands == {"SERVICE": {"cpu_us": 0, "wait_us": 20000, "locked": False}}
               for r in clo)
    assert [r.client_mode for r in clo] == ["singleton"] * 5 + ["request", "pool"]
    assert [(r.tiers["clone"], r.tiers["axis"]) for r in clo[:5]] == [(1, 1), (1, 2), (1, 4), (2, 1), (4, 1)]
    assert clo[-1].pool_size == 8


def test_classic_runs_are_the_configurations_of_segments_and_clones():
    """So its figures can be held against the full experiments' (docs/experiments.md)."""
    exp = definition.load("classic")
    full = {r.entry: r.config() for name in ("segments", "clones") for r in definition.load(name).runs}
    for r in exp.runs:
        assert r.config() == full[r.entry], r.entry


def test_classic_steps_are_adaptive_and_the_plan_bounds_the_runner_deadline():
    exp = definition.load("classic")
    for r in exp.runs:
        assert r.load.target_ci > 0 and r.load.adaptive
        assert r.load.plateau_tolerance > 0 or r.kind == "segments"
        assert r.load.warmup_seconds + r.load.min_step_seconds <= r.load.step_seconds
        # the runner's deadline and estimate use the longest step: every step at step_seconds
        assert r.load.seconds() == r.load.prime_ceiling() + len(r.load.users) * r.load.step_seconds + r.load.hold_seconds
    assert exp.runs[5].load.plateau_tolerance == 0.05 == exp.settings["clones"]["tolerance"]
    assert Runner(definition.load("classic", quick=True), stack=None).estimate() <= 120


def test_adaptive_options_reach_locust_only_when_set(tmp_path):
    exp = definition.load("classic")
    argv = master_argv(exp.runs[0], tmp_path, "h", 2, 5599, primed=True)
    assert argv[argv.index("--step-target-ci") + 1] == "0.03"          # the segment part's
    assert argv[argv.index("--step-min-seconds") + 1] == "4"
    assert "--step-plateau-tolerance" not in argv                       # the segment part's: off
    clones = master_argv(exp.runs[5], tmp_path, "h", 2, 5599, primed=True)
    assert clones[clones.index("--step-plateau-tolerance") + 1] == "0.05"
    assert clones[clones.index("--step-plateau-steps") + 1] == "2"
    # segments --quick: fixed steps
    plain = master_argv(definition.load("segments", quick=True).runs[0], tmp_path, "h", 2, 5599, primed=True)
    assert not [a for a in plain if a.startswith(("--step-target", "--step-min", "--step-plateau"))]


def test_a_part_table_sits_between_the_defaults_and_the_run():
    exp = parse(CLASSIC)
    s1, s5, k = exp.runs
    assert (s1.kind, s1.load.users, s1.tiers["axis"]) == ("segments", (2, 4), 1)
    assert (k.kind, k.path, k.load.users) == ("clones", 5, (8,))
    assert k.tiers == {"front": 1, "clone": 2, "axis": 2, "gsoap": 0}     # merged key by key
    assert k.config()["kind"] == "clones"                                 # run.json says its part


@pytest.mark.parametrize("text, named", [
    (CLASSIC.replace('part = "clones"\n', ""), "part"),
    (CLASSIC.replace('part = "clones"', 'part = "clone"'), "part"),
    ('name = "m"\nkind = "segments"\n[[runs]]\nid = "a"\npath = 1\npart = "segments"\n', "part"),
    ('name = "m"\nkind = "segments"\n[parts.segments]\nn = 1\n[[runs]]\nid = "a"\npath = 1\n', "parts"),
    (CLASSIC + "[parts.calibration]\nn = 1\n", "calibration"),
    (CLASSIC.replace("path = 5\n", "path = 5\npaht = 1\n"), "paht"),
    ('name = "m"\nkind = "segments"\n[settings.clones]\ntolerance = 0.1\n[[runs]]\nid = "a"\npath = 1\n',
     "settings.clones"),
    (CLASSIC + "[load]\ntarget_ci = 0.05\nmin_step_seconds = 10\nstep_seconds = 8\n", "min_step_seconds"),
    (CLASSIC + "[load]\ntarget_ci = 5\n", "target_ci"),
    (CLASSIC + "[load]\nplateau_steps = 0\n", "plateau_steps"),
])
def test_a_mistake_in_the_new_keys_is_an_error_naming_it(text, named):
    with pytest.raises(DefinitionError, match=named):
        parse(text)


def test_every_key_of_an_experiment_file_is_documented():
    from testbed import ROOT
    doc = (ROOT / "docs" / "experiments.md").read_text()
    rows = [line.split("|")[1] for line in doc.splitlines() if line.startswith("| `")]   # key columns
    for key in definition.LOAD_KEYS + definition.RUN_KEYS:
        assert any(f"`{key}`" in r for r in rows), f"{key} is not in docs/experiments.md's key tables"
    assert "`[parts.segments]`" in doc and "`[settings.segments]`" in doc
