"""Every minute of an experiment accounted for (cli/testbed/run/ledger.py) and the time left
re-estimated from what was measured (cli/testbed/run/eta.py, progress.py): synthetic clocks and
run folders, no stack."""
from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from testbed.experiment import definition
from testbed.experiment.plan import LoadPlan
from testbed.run.eta import Eta
from testbed.run.ledger import PHASES, Ledger, split_run
from testbed.run.progress import Progress
from testbed.run.results import STEP_LOG

T0 = 1_700_000_000.0
SEG5 = definition.load("clones").runs[0]


class Clock:
    """A wall clock the test moves by hand."""
    def __init__(self, t: float = T0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def tick(self, s: float) -> None:
        self.t += s


def write_run(run_dir: Path, started: float, ended: float, records: list[dict], warm: dict | None = None) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    notes = {"warm": warm} if warm is not None else {}
    (run_dir / "run.json").write_text(json.dumps({"id": run_dir.name, "started": started, "ended": ended,
                                                  "steps": [], "notes": notes}))
    (run_dir / STEP_LOG).write_text("".join(json.dumps(r) + "\n" for r in records))


def step_log(t: float, prime: float, steps: list[float], hold: float) -> list[dict]:
    """Records of a Locust run from t: a prime phase, steps of the given lengths, a hold."""
    out = [{"phase": "prime", "users": 8, "start": t}, {"phase": "prime", "end": t + prime}]
    t += prime
    for i, s in enumerate(steps):
        out += [{"index": i, "users": 2 ** i, "start": t, "measure_from": t + 2},
                {"index": i, "end": t + s}]
        t += s
    return out + [{"phase": "hold", "users": 4, "start": t}, {"phase": "hold", "end": t + hold}]


def test_the_phases_and_the_unaccounted_rest_add_up_to_the_wall_time(tmp_path):
    clock = Clock()
    ledger = Ledger(clock)
    clock.tick(0.5)                                   # before any span: unaccounted
    with ledger.span("start-up"):
        clock.tick(20)
    with ledger.span("calibration"):
        clock.tick(30)
        with ledger.span("run", run="probe"):         # a probe inside calibration is calibration
            clock.tick(12)
    run_start = clock.t
    with ledger.span("run", run="r1"):
        clock.tick(100)
    write_run(tmp_path / "runs" / "r1", run_start + 9, clock.t - 1,
              step_log(run_start + 15, 30, [20, 20], 10), warm={"verdict": "steady", "seconds": 24.0, "why": "cv 2 %"})
    clock.tick(0.25)
    with ledger.span("prediction"):
        clock.tick(3)
    t = ledger.summary(T0, clock.t + 0.75, tmp_path / "runs")
    assert t["wall_s"] == pytest.approx(166.5)
    assert list(t["phases"]) == list(PHASES)
    assert t["phases"]["start-up"] == 20 and t["phases"]["calibration"] == 42 and t["phases"]["prediction"] == 3
    assert (t["phases"]["reconfiguration"], t["phases"]["priming"], t["phases"]["measuring"],
            t["phases"]["hold"], t["phases"]["load generator"]) == (9, 30, 40, 10, 11)
    assert t["unaccounted_s"] == pytest.approx(1.5)
    assert sum(t["phases"].values()) + t["unaccounted_s"] == pytest.approx(t["wall_s"], abs=1e-9)
    assert [r["id"] for r in t["runs"]] == ["r1"]
    assert t["runs"][0]["warm"] == {"verdict": "steady", "seconds": 24.0, "why": "cv 2 %"}
    assert t["runs"][0]["steps"] == 2


def test_a_span_inside_another_takes_its_time_from_the_outer_one():
    clock = Clock()
    ledger = Ledger(clock)
    with ledger.span("run", run="r"):
        clock.tick(5)
        with ledger.span("analysis"):
            clock.tick(2)
        clock.tick(1)
    assert ledger.seconds("run") == 6 and ledger.seconds("analysis") == 2
    with pytest.raises(ValueError):
        with ledger.span("lunch"):
            pass


def test_a_run_span_splits_into_restart_priming_measuring_hold_and_the_rest(tmp_path):
    run_dir = tmp_path / "r"
    start = T0
    write_run(run_dir, start + 12, start + 200, step_log(start + 30, 40, [25, 25, 25], 15))
    row = split_run("r", [{"kind": "run", "run": "r", "start": start, "end": start + 200}], run_dir)
    assert row == {"id": "r", "reconfiguration_s": 12, "priming_s": 40, "warm": None, "measuring_s": 75,
                   "hold_s": 15, "locust_s": 200 - 12 - 40 - 75 - 15, "steps": 3}


def test_an_interrupted_run_counts_its_open_phase_to_the_runs_end_and_never_past_its_span(tmp_path):
    run_dir = tmp_path / "r"
    records = step_log(T0 + 10, 20, [30], 0)[:3]              # prime, step 0 started, never ended
    write_run(run_dir, T0 + 5, T0 + 48, records)
    row = split_run("r", [{"kind": "run", "run": "r", "start": T0, "end": T0 + 50}], run_dir)
    assert (row["reconfiguration_s"], row["priming_s"], row["measuring_s"], row["hold_s"]) == (5, 20, 18, 0)
    assert row["locust_s"] == 7
    # a record past the span's end (a clock step) is clipped: the parts still add up to the span
    write_run(run_dir, T0 + 5, T0 + 90, records)
    row = split_run("r", [{"kind": "run", "run": "r", "start": T0, "end": T0 + 50}], run_dir)
    assert row["measuring_s"] == 20 and row["locust_s"] == 5


def _specs(n: int, prime: float = 60.0, hold: float = 10.0) -> list:
    load = LoadPlan(users=(1, 2, 4, 8), step_seconds=20.0, prime_seconds=prime, hold_seconds=hold)
    # run 0 (the first) and run 2 (a clone more) are cold: they prime; run 1 keeps the stack (warm)
    clones = [1, 1, 2][:n]
    return [replace(SEG5, id=f"r{i}", load=load, tiers={**SEG5.tiers, "clone": c}) for i, c in enumerate(clones)]


def test_the_estimate_uses_the_plan_until_a_run_measured_its_parts():
    eta = Eta(_specs(3), calibration_s=0.0, locust_s=4.0, restart_s=8.0)
    assert eta.cold == [True, False, True] and eta.changed == [False, False, True]
    assert eta.parts(2)["prime"] == 60 and eta.parts(1)["prime"] == 0
    assert eta.run_s(0) == 60 + 4 * 20 + 10 + 4
    eta.ran(0, {"reconfiguration_s": 1.0, "priming_s": 30.0, "measuring_s": 4 * 12.0, "hold_s": 6.0,
                "locust_s": 9.0, "steps": 4})
    p = eta.parts(2)                                   # the next cold run
    assert p["prime"] == 30 and p["step"] == 12 and p["hold"] == 6 and p["locust"] == 9
    assert p["restart"] == 8.0                         # no restart measured yet: the plan's
    assert eta.parts(1)["restart"] == 1.0              # as measured on a run that kept the stack
    assert eta.left(1, 0.0) == eta.run_s(1) + eta.run_s(2)


def test_the_run_going_on_counts_what_is_left_of_its_phase_and_the_phases_after_it():
    eta = Eta(_specs(2), calibration_s=100.0, locust_s=4.0, restart_s=8.0)
    records = step_log(T0, 60, [20, 20], 10)
    steps = [{"index": 0, "users": 1, "start": T0 + 60, "measure_from": T0 + 62, "end": T0 + 80},
             {"index": 1, "users": 2, "start": T0 + 80, "measure_from": T0 + 82, "end": None}]
    assert records[2]["start"] == steps[0]["start"]
    prime = [{"phase": "prime", "users": 8, "start": T0, "end": T0 + 60}]
    left = eta.current_left(0, steps, prime, now=T0 + 85)
    assert left == (20 - 5) + 2 * 20 + 10 + 2          # step 2 of 4 at 5 s, 2 steps, hold, Locust's stop
    assert eta.current_left(0, steps, prime, now=T0 + 500) == 2 * 20 + 10 + 2   # an overrun phase: 0, not less
    in_prime = [{"phase": "prime", "users": 8, "start": T0, "end": None}]
    assert eta.current_left(0, [], in_prime, now=T0 + 45) == 15 + 4 * 20 + 10 + 2
    assert eta.current_left(1, [], in_prime, now=T0 + 45) == 15 + 4 * 20 + 10 + 2   # warm by the plan, primes anyway
    # calibration still planned (100 s less the 40 spent) and the run after it
    assert eta.left(0, 40.0, (0, steps, prime, T0 + 85)) == 60 + left + eta.run_s(1)


def test_the_progress_line_counts_down_from_the_last_estimate_and_asks_for_a_new_one():
    out = io.StringIO()
    p = Progress(stream=out, every_s=0)
    p.status("run 1/2 r0 · step 1/4")
    assert "left" not in out.getvalue()                # no estimate yet: nothing claimed
    asked = []
    p.refresh = lambda: asked.append(1)
    p.set_left(600, at=1000.0)
    assert p.left(now=1060.0) == 540 and p.left(now=9999.0) == 0
    p.set_left(3600)
    p.status("run 1/2 r0 · step 2/4")
    assert asked and out.getvalue().splitlines()[-1].endswith("· ≈ 60 min left")
    p.set_left(45)
    p.status("x")
    assert out.getvalue().splitlines()[-1] == "x · ≈ 45 s left"


class FakeStack:
    mode = "local"

    class cfg:
        stack_cpus = loadgen_cpus = None
        knobs = {}

    def remote_workers(self, count):
        return None

    def describe(self):
        return {}


def _runner(tmp_path, monkeypatch, stop_at: int | None = None):
    """The runner on segments --quick with a fake stack; each run writes run.json and a step
    log (prime, two steps, hold) as Locust would; run stop_at is cut by a Ctrl-C mid-step."""
    from testbed.run import runner as rmod
    monkeypatch.setattr(rmod.stackuse, "ensure", lambda *a, **k: ({}, {}))
    monkeypatch.setattr(rmod.stackuse, "wrap_up", lambda *a, **k: None)
    monkeypatch.setattr(rmod.results, "versions", lambda: {})
    monkeypatch.setattr(rmod, "knobs_read", lambda knobs: {})
    r = rmod.Runner(definition.load("segments", quick=True), FakeStack(), results_dir=tmp_path, workers=1,
                    progress=Progress(stream=io.StringIO()))
    monkeypatch.setattr(r, "_report", lambda: [])

    def run(i, spec, run_dir, *a):
        import time
        run_dir.mkdir(parents=True)
        t = time.time()
        records = step_log(t, 0.001, [0.001, 0.001], 0.001)
        write_run(run_dir, t, None, records[:3] if i == stop_at else records)
        if i == stop_at:
            raise KeyboardInterrupt
        write_run(run_dir, t, time.time(), records)
    monkeypatch.setattr(r.runs, "run", run)
    return r


def _check_time(folder: Path, runs: int) -> dict:
    e = json.loads((folder / "experiment.json").read_text())
    t = e["time"]
    assert t["wall_s"] == pytest.approx(e["ended"] - e["started"], abs=1e-3)
    assert sum(t["phases"].values()) + t["unaccounted_s"] == pytest.approx(t["wall_s"], abs=1e-9)
    assert len(t["runs"]) == runs and all(r["warm"] is None for r in t["runs"])
    assert t["phases"]["start-up"] > 0 and "report_s" in t
    return e


def test_the_runner_writes_where_the_time_went_into_experiment_json(tmp_path, monkeypatch):
    r = _runner(tmp_path, monkeypatch)
    folder = r.run()
    e = _check_time(folder, len(r.exp.runs))
    assert e["status"] == "complete" and [x["id"] for x in e["time"]["runs"]] == [s.id for s in r.exp.runs]
    assert all(x["steps"] == 2 for x in e["time"]["runs"])
    assert r.eta.fig.steps == 2 * len(r.exp.runs)          # each finished run fed the estimate


def test_an_interrupted_experiment_accounts_for_what_ran(tmp_path, monkeypatch):
    r = _runner(tmp_path, monkeypatch, stop_at=1)
    with pytest.raises(KeyboardInterrupt):
        r.run()
    e = _check_time(r.folder, 2)
    assert e["status"] == "interrupted"


def test_a_prime_by_measurement_is_planned_at_its_earliest_end_until_one_was_measured():
    from testbed.run.eta import planned_prime
    steady = replace(LoadPlan(), warm="steady")                 # windows 6 × 5 s, floor 10 s
    assert planned_prime(steady) == 35.0                         # 7 windows: the rule held at two ends
    assert planned_prime(replace(steady, warm_max_seconds=20.0)) == 20.0
    assert planned_prime(replace(LoadPlan(), prime_seconds=8.0)) == 8.0


def test_a_prime_that_outlasts_its_estimate_is_expected_to_last_as_long_again_within_its_ceiling():
    load = replace(LoadPlan(users=(1, 2), step_seconds=20.0, hold_seconds=0.0), warm="steady", warm_max_seconds=240.0)
    eta = Eta([replace(SEG5, id="r0", load=load)], calibration_s=0.0, locust_s=4.0, restart_s=8.0)
    in_prime = [{"phase": "prime", "users": 2, "start": T0, "end": None}]
    assert eta.current_left(0, [], in_prime, now=T0 + 20) == (35 - 20) + 2 * 20 + 2      # the plan's earliest end
    assert eta.current_left(0, [], in_prime, now=T0 + 100) == 100 + 2 * 20 + 2           # as long again
    assert eta.current_left(0, [], in_prime, now=T0 + 200) == 40 + 2 * 20 + 2            # the ceiling bounds it
