"""The scaling rule (cli/testbed/fit/scaling.py): measured costs, the host and the experiment's
lock-bound runs in, the service wait out; and the experiment keys that ask for it (no stack)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from analysis.steps import LOADGEN_SATURATED, StepSample
from testbed.experiment import definition
from testbed.fit import rewrite
from testbed.fit import scaling
from testbed.experiment.definition import DefinitionError
from testbed.fit.scaling import Capacity, Costs, LockedRun, choose_wait
from testbed.experiment.scale import ScaleSettings

# 2 ms of CPU per /seg/5 request over the whole stack and Locust (about this 2-core host's figure)
COSTS = Costs({"front": 0.0006, "clone": 0.0004, "axis": 0.0004, "haproxy": 0.0002, "loadgen": 0.0004},
              throughput=900.0, source="path 5")
FOUR = LockedRun("singleton-c4-a1", 4, {"front": 1, "clone": 4, "axis": 1}, "4 singleton clones")
POOL = LockedRun("pool-c1-a1", 8, {"front": 1, "clone": 1, "axis": 1}, "a pool of 8 on 1 clone")
ONE = LockedRun("singleton-c1-a1", 1, {"front": 1, "clone": 1, "axis": 1}, "the singleton on 1 clone")


def test_the_pool_of_eight_sets_the_wait_on_a_two_core_host():
    c = choose_wait(COSTS, Capacity(2.0), [ONE, FOUR, POOL], ScaleSettings())
    # 8 calls at once, each at most 1/W a second, 2 ms of CPU each, within 60 % of 2 cores:
    # W >= 8 × 0.002 / 1.2 = 13.3 ms -> 14 ms
    assert c.scaled and c.wait_us == 14_000
    assert (c.binding.run, c.binding.group) == ("pool-c1-a1", "host")
    assert "service wait 14 ms because a pool of 8 on 1 clone" in c.sentence()
    assert "60 %" in c.sentence() or "60%" in c.sentence()


def test_without_the_pool_four_clones_set_it():
    c = choose_wait(COSTS, Capacity(2.0), [ONE, FOUR], ScaleSettings())
    assert c.wait_us == 7_000 and c.binding.run == "singleton-c4-a1"     # 4 × 2 ms / 1.2 = 6.7 ms


def test_other_programs_load_leaves_less_of_the_host_and_a_longer_wait():
    busy = Costs(COSTS.per_request_s, 900.0, background_cores=1.0, source="path 5")
    c = choose_wait(busy, Capacity(2.0), [FOUR, POOL], ScaleSettings())
    assert c.wait_us == 27_000                                           # 8 × 2 ms / (0.6 × 1)
    # never plans with less than a quarter of the host, however busy it was
    swamped = Costs(COSTS.per_request_s, 900.0, background_cores=1.9, source="path 5")
    assert choose_wait(swamped, Capacity(2.0), [POOL], ScaleSettings()).wait_us == 54_000


def test_a_big_host_gets_the_least_wait_and_a_small_share_says_so():
    c = choose_wait(COSTS, Capacity(64.0), [FOUR, POOL], ScaleSettings())
    assert c.wait_us == 1_000 and "25%" in c.reason           # 0.42 ms, rounded up to a whole ms
    c = choose_wait(COSTS, Capacity(64.0), [FOUR, POOL], ScaleSettings(min_wait_us=2_000))
    assert c.wait_us == 2_000 and "min_wait_us" in c.reason
    assert choose_wait(COSTS, Capacity(64.0), [POOL], ScaleSettings(share=0.05)).wait_us == 5_000


def test_the_wait_is_held_at_its_maximum_and_the_reason_says_the_host_is_too_small():
    c = choose_wait(COSTS, Capacity(0.1), [POOL], ScaleSettings(max_wait_us=50_000))
    assert c.wait_us == 50_000 and "max_wait_us" in c.reason


def test_a_quota_per_replica_bounds_its_tier_with_its_own_capacity():
    q = {"clone": 0.5}
    four = LockedRun(FOUR.id, 4, FOUR.replicas, FOUR.what, q)
    pool = LockedRun(POOL.id, 8, POOL.replicas, POOL.what, q)
    c = choose_wait(COSTS, Capacity(64.0), [four, pool], ScaleSettings())
    # the pool's 8 calls on one clone of 0.5 core at 0.4 ms each: 8 × 0.0004 / 0.3 = 10.7 ms;
    # 4 clones have 4 × 0.5 cores: 4 × 0.0004 / 1.2 = 1.3 ms
    assert c.wait_us == 11_000 and c.binding.group.startswith("clone quota (1 × 0.5")
    by = {(b.run, b.group.split(" ")[0]): b.wait_us for b in c.bounds}
    assert by[("singleton-c4-a1", "clone")] == pytest.approx(4 * 0.0004 / (0.6 * 2.0) * 1e6)


def test_pinned_cpus_are_groups_of_their_own():
    c = choose_wait(COSTS, Capacity(8.0, stack_cores=1.0, loadgen_cores=1.0), [POOL], ScaleSettings())
    # the stack's 1.6 ms on its 1 CPU: 8 × 0.0016 / 0.6 = 21.3 ms
    assert c.wait_us == 22_000 and c.binding.group == "stack CPUs"


def test_nothing_to_bound_runs_the_unscaled_wait():
    c = choose_wait(COSTS, Capacity(2.0), [], ScaleSettings(unscaled_wait_us=20_000))
    assert not c.scaled and c.wait_us == 20_000 and "not scaled" in c.sentence()


def _spec(id_, mode, clones, auto=True, pool=None):
    return definition.RunSpec(id=id_, label=id_, kind="clones", repeat=0, path=5, backend="axis", op="ping",
                              n=0, tiers={"front": 1, "clone": clones, "axis": 1, "gsoap": 0},
                              client_mode=mode, pool_size=pool, regime=None,
                              demands={"SERVICE": {"cpu_us": 0, "wait_us": 20000, "locked": False}},
                              knobs={}, load=definition.LoadPlan(), auto_wait=auto)


def test_a_client_per_request_is_left_out_and_a_fixed_wait_is_not_touched():
    specs = [_spec("s1", "singleton", 1), _spec("s4", "singleton", 4), _spec("req", "request", 1),
             _spec("pool", "pool", 1, pool=8), _spec("fixed", "singleton", 4, auto=False)]
    runs = scaling.locked_runs(specs)
    assert [(r.id, r.locks) for r in runs] == [("s1", 1), ("s4", 4), ("pool", 8)]
    out = rewrite.with_wait(specs, 14_000)
    assert [s.demands["SERVICE"]["wait_us"] for s in out] == [14_000] * 4 + [20_000]
    assert out[0].stack_knobs()["DEMAND_SERVICE_WAIT_US"] == "14000"


def _step(index, x, cpu, host=None, flags=None):
    s = StepSample("r", index, 8, 0.0, 0.0, 1.0, 10.0, throughput=x, cpu=dict(cpu), host_cpu=host,
                   flags=dict(flags or {}))
    return s


def test_costs_come_from_the_busier_valid_steps_and_other_programs_from_the_host_less_ours():
    steps = [_step(0, 200.0, {"front": 20.0, "clone": 20.0}, host=60.0),          # below half the max
             _step(1, 1000.0, {"front": 60.0, "clone": 40.0, "loadgen": 20.0}, host=150.0),
             _step(2, 900.0, {"front": 54.0, "clone": 36.0, "loadgen": 18.0}, host=140.0),
             _step(3, 5000.0, {"front": 1.0}, flags={LOADGEN_SATURATED: "x"})]     # excluded
    c = scaling.costs_from_steps(steps, "test")
    assert c.steps == [1, 2]
    assert c.per_request_s["front"] == pytest.approx(1.14 / 1900)
    assert c.per_request_s["loadgen"] == pytest.approx(0.38 / 1900)
    assert c.background_cores == pytest.approx(((150 - 120) + (140 - 108)) / 2 / 100)
    assert scaling.costs_from_steps([_step(0, None, {})], "x") is None


# ------------------------------------------------------------------------------ the file keys
def parse(text: str, **kw):
    return definition.parse(tomllib.loads(text), Path("x.toml"), text, **kw)


AUTO = '''name = "c"
kind = "clones"
[defaults]
demands.SERVICE = { wait_us = "auto", locked = false }
[scale]
share = 0.5
unscaled_wait_us = 15000
[[runs]]
id = "a"
'''


def test_an_auto_wait_is_marked_and_runs_the_unscaled_value_until_chosen():
    exp = parse(AUTO)
    r = exp.runs[0]
    assert r.auto_wait and r.demands["SERVICE"]["wait_us"] == 15000
    assert exp.scale == ScaleSettings(share=0.5, unscaled_wait_us=15000) and exp.scaling
    assert exp.definition()["scale"]["auto_runs"] == ["a-r0"]
    assert "scaled to the host" in exp.settings["demand knobs"]
    assert not parse(AUTO, scaling=False).scaling
    fixed = parse(AUTO.replace('"auto"', "5000"))
    assert not fixed.runs[0].auto_wait and fixed.runs[0].demands["SERVICE"]["wait_us"] == 5000


def test_the_shipped_classic_and_clones_are_scaled_and_clones_quota_is_not():
    classic = definition.load("classic")
    assert [r.auto_wait for r in classic.runs] == [False] * 5 + [True] * 7
    assert all(r.auto_wait for r in definition.load("clones").runs)
    assert not any(r.auto_wait for r in definition.load("clones-quota").runs)


@pytest.mark.parametrize("text, named", [
    (AUTO.replace("demands.SERVICE", "demands.CLONE"), "only the remote service"),
    (AUTO.replace("locked = false", "locked = true"), "only the remote service"),
    (AUTO.replace('"auto"', '"automatic"'), "wait_us"),
    (AUTO.replace("share = 0.5", "share = 60"), "scale.share"),
    (AUTO.replace("share = 0.5", "share = true"), "scale.share"),
    (AUTO.replace("share = 0.5", "sharee = 0.5"), "sharee"),
    (AUTO.replace("unscaled_wait_us = 15000", "unscaled_wait_us = -1"), "unscaled_wait_us"),
    (AUTO + "min_wait_us = 9000\nmax_wait_us = 8000\n", "min_wait_us"),
    (AUTO.replace('kind = "clones"', 'kind = "clones"\nprofile = "classic"'), "profile"),
    (AUTO.replace('kind = "clones"', 'kind = "clones"\nprofile = "classic-system"'), "classic"),
])
def test_a_mistake_in_the_scaling_keys_is_an_error_naming_it(text, named):
    with pytest.raises(DefinitionError, match=named):
        parse(text)


def test_an_unknown_profile_on_the_command_line_is_an_error():
    with pytest.raises(DefinitionError, match="--profile"):
        parse(AUTO, profile="fast")


# ------------------------------------------------------------------------------ the runner's step
def _fake_cost_probe(cpu: dict, host: float, x: int = 1000, warm: dict | None = None):
    """A run_one that writes what a cost probe at x/s with this CPU would leave; with warm,
    two more steps at 1.45 and 1.5 x/s with that CPU (its JVMs warmed up)."""
    import sys as _sys
    _sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis" / "data"))
    from make_handmade import T0, plateau, run
    calls = []

    def run_one(spec, root):
        import shutil
        calls.append((spec.id, spec.path, dict(spec.demands)))
        steps = [dict(s, cpu=cpu, host=host, x=x) for s in plateau(x, users=(16,))]
        if warm:
            steps += [dict(s, cpu=warm, host=host, x=xx)
                      for s, xx in zip(plateau(x, users=(16, 16)), (int(x * 1.45), int(x * 1.5)))]
        run(root / "_made", spec.id, T0, {"kind": "clones", "path": 5, "label": spec.label}, steps)
        root.mkdir(parents=True, exist_ok=True)
        shutil.move(root / "_made" / "runs" / spec.id, root / spec.id)     # root/<id>/, as the runner
        shutil.rmtree(root / "_made")
    return run_one, calls


def test_clones_probes_its_costs_without_the_wait_then_puts_the_chosen_wait_into_every_scaled_run(tmp_path):
    from testbed.fit import tohost
    exp = definition.load("clones")
    # 2 ms per request over the tiers at 1000/s: 200 % of a core, on a host at 210 %
    run_one, calls = _fake_cost_probe({"front/1": 60.0, "clone/1": 40.0, "axis/1": 40.0, "haproxy/1": 20.0,
                                        "loadgen/master": 40.0}, host=210.0)
    failed: list[str] = []
    chosen, lines = tohost.scale(exp, 0, tmp_path, failed, run_one, 4.0)
    assert [c[0] for c in calls] == ["cost-probe"] and "SERVICE" not in calls[0][2]
    # 8 calls at once × 2 ms / (0.6 × (4 − 0.1 other programs' cores)) = 6.8 ms -> 7 ms
    assert chosen["wait_us"] == 7_000 and chosen["scaled"] and chosen["binding"]["run"] == "pool-c1-a1-r0"
    assert chosen["costs"]["background_cores"] == pytest.approx(0.1, abs=0.01)
    assert chosen["costs"]["source"] == "a cost probe of this experiment"
    assert lines[0].startswith("scaled to this host: service wait 7 ms because a pool of 8 on 1 clone")
    assert {r.demands["SERVICE"]["wait_us"] for r in exp.runs} == {7_000} and not failed
    assert (tmp_path / "probes" / "cost-probe" / "run.json").is_file()


def test_the_wait_is_chosen_from_the_cost_probes_first_step_and_the_fit_takes_its_last(tmp_path):
    """The cost probe goes on until its throughput settles: the wait is still chosen from
    its first step (what the rule was set by), the model's second point is its last, warm."""
    from analysis import steps as asteps
    from analysis.load.folder import load_run
    from analysis.load.settings import Settings
    from analysis.predict import baseline_demands as dmod
    from testbed.fit import costs
    from testbed.fit import tohost
    exp = definition.load("clones")
    assert costs.COST_PROBE_LOAD.users == (16,) * 9 and costs.COST_PROBE_LOAD.plateau_tolerance == 0.05
    assert costs.COST_PROBE_LOAD.seconds() == 15 + 9 * 9
    cold = {"front/1": 60.0, "clone/1": 40.0, "axis/1": 40.0, "haproxy/1": 20.0, "loadgen/master": 40.0}
    run_one, calls = _fake_cost_probe(cold, host=210.0, warm={k: v * 0.75 for k, v in cold.items()})
    chosen, _ = tohost.scale(exp, 0, tmp_path, [], run_one, 4.0)
    assert chosen["wait_us"] == 7_000 and chosen["costs"]["steps"] == [0]       # as from one step
    run = load_run(tmp_path / "probes" / "cost-probe")
    steps = {run.id: asteps.of_run(run, Settings())}
    assert [round(s.throughput) for s in steps[run.id] if s.valid] == [1000, 1450, 1500]
    assert [round(s.throughput) for s in dmod._fit_steps(run, steps)] == [1500]          # the last, warm


def test_classic_takes_its_costs_from_path_five_and_no_scale_runs_the_unscaled_wait(tmp_path):
    from testbed.fit import tohost
    exp = definition.load("classic")
    first = next(i for i, r in enumerate(exp.runs) if r.auto_wait)
    run_one, calls = _fake_cost_probe({"front/1": 60.0, "clone/1": 40.0, "axis/1": 40.0, "haproxy/1": 20.0,
                                        "loadgen/master": 40.0}, host=200.0)
    path5 = next(r for r in exp.runs[:first] if r.path == 5)     # the segment part's, run first
    run_one(path5, tmp_path / "runs")                             # as run
    chosen, _ = tohost.scale(exp, first, tmp_path, [], run_one, 2.0)
    assert len(calls) == 1 and calls[0][0] == "axis-path5-r0" and chosen["costs"]["source"] == "run axis-path5-r0 of this experiment"
    assert chosen["wait_us"] == 14_000                             # 8 × 2 ms / (0.6 × 2)
    assert path5.demands == {}                                     # the segment part keeps its own costs
    off = definition.load("classic", scaling=False)
    chosen, lines = tohost.scale(off, first, tmp_path, [], run_one, 2.0)
    assert not chosen["scaled"] and chosen["wait_us"] == 20_000 and "--no-scale" in lines[0]
    assert len(calls) == 1


def test_scale_from_an_earlier_folder_measures_nothing(tmp_path):
    import json

    from testbed.fit import tohost
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "experiment.json").write_text(json.dumps({"scaling": {"costs": COSTS.to_json()}}))
    run_one, calls = _fake_cost_probe({}, host=0.0)
    exp = definition.load("clones")
    chosen, _ = tohost.scale(exp, 0, tmp_path / "new", [], run_one, 2.0, scale_from=earlier)
    assert not calls and chosen["wait_us"] == 14_000 and "in earlier" in chosen["costs"]["source"]


@pytest.mark.parametrize("probes_dir, probe_id", [("probes", "cost-probe"), ("calibration", "calibration")],
                         ids=["probes", "written-before-probes-were-named-so"])
def test_scale_from_a_folder_without_saved_costs_reads_its_cost_probes_first_step(tmp_path, probes_dir, probe_id):
    """--scale-from a folder whose experiment.json kept no costs: its cost probe's (probes/cost-probe/,
    or calibration/calibration/ where an older runner wrote it), read at its first step as the wait was."""
    import json
    from types import SimpleNamespace

    from testbed.fit import costs
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "experiment.json").write_text(json.dumps({"settings": {}}))
    cold = {"front/1": 60.0, "clone/1": 40.0, "axis/1": 40.0, "haproxy/1": 20.0, "loadgen/master": 40.0}
    run_one, _ = _fake_cost_probe(cold, host=210.0, warm={k: v * 0.75 for k, v in cold.items()})
    run_one(SimpleNamespace(id=probe_id, path=5, demands={}, label="cost probe"), earlier / probes_dir)
    c, why = costs.of_folder(earlier)
    assert why == "" and c.source == f"run {probe_id} of earlier"
    assert c.throughput == pytest.approx(1000, rel=0.01)                # its first step, not its warm ones


def test_the_bridges_packet_work_is_the_stacks_cost_not_other_programs_load():
    # container modes: softirq (cpu.csv tier "kernel") runs for the stack's traffic in no
    # container's cgroup; counted as other programs' load it lengthened the wait and made the
    # segment paths read "shared" on a quiet host
    steps = [_step(1, 1000.0, {"front": 60.0, "clone": 40.0, "loadgen": 20.0}, host=150.0),
             _step(2, 900.0, {"front": 54.0, "clone": 36.0, "loadgen": 18.0}, host=140.0)]
    steps[0].kernel_cpu, steps[1].kernel_cpu = 25.0, 23.0
    c = scaling.costs_from_steps(steps, "test")
    assert c.per_request_s["kernel"] == pytest.approx(0.48 / 1900)
    assert c.background_cores == pytest.approx(((150 - 145) + (140 - 131)) / 2 / 100)
    assert c.total_s == pytest.approx((1.14 + 0.76 + 0.38 + 0.48) / 1900)
    # local mode has no kernel row: nothing changes there
    assert "kernel" not in scaling.costs_from_steps([_step(1, 1000.0, {"front": 60.0}, host=80.0)], "x").per_request_s


def test_the_plateaus_shares_count_the_kernels_packet_work_as_this_experiments():
    from analysis.judge import regime
    class Hint:
        step, host_utilisation = 1, 0.99
    s = _step(1, 10000.0, {"front": 52.0, "haproxy": 30.0, "loadgen": 76.0}, host=198.0)
    assert regime.shares([s], Hint, 2.0)["others"] == pytest.approx(0.20)       # as compose-1 read
    s.kernel_cpu = 21.0
    sh = regime.shares([s], Hint, 2.0)
    assert sh["own"] == pytest.approx((158 + 21) / 200) and sh["others"] == pytest.approx(0.095)
    assert regime.shared({"cpu_shares": sh}) is None
