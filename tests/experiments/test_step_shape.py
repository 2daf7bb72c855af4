"""loadgen/shapes.py StepLoadShape, driven with a fake runner and a fake clock (shapedriver.py,
in a subprocess so Locust never patches the test process)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.load.steplog import from_step_log
from testbed.run.results import read_step_log

DRIVER = Path(__file__).resolve().parent / "shapedriver.py"


def drive(**spec) -> dict:
    r = subprocess.run([sys.executable, str(DRIVER), json.dumps(spec)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_stages_are_a_table_of_prime_steps_and_hold():
    calls = drive(calls=[["stages", [[1, 4], 10, 5, 3]], ["phase_at", [[{"from": 0, "to": 10}], 9.99]],
                         ["phase_at", [[{"from": 0, "to": 10}], 10]]])["calls"]
    assert calls[0] == [
        {"phase": "prime", "index": None, "users": 4, "from": 0.0, "to": 5.0},
        {"phase": "step", "index": 0, "users": 1, "from": 5.0, "to": 15.0},
        {"phase": "step", "index": 1, "users": 4, "from": 15.0, "to": 25.0},
        {"phase": "hold", "index": None, "users": 4, "from": 25.0, "to": 28.0}]
    assert calls[1:] == [0, None]                  # 10 s is past the only phase


def test_each_step_runs_its_users_then_the_shape_ends():
    ticks = drive(ticks=[0, 9, 10.5, 20.5])["ticks"]
    assert [t[0] if t else None for t in ticks] == [1, 1, 4, None]


def test_the_step_log_records_starts_warmups_and_ends_that_the_analysis_reads(tmp_path):
    log = tmp_path / "steps.jsonl"
    drive(options={"step_prime_seconds": 5.0, "step_hold_seconds": 3.0, "step_log": str(log)},
          ticks=[0, 5.5, 15.5, 25.5, 28.5])
    steps, phases = read_step_log(log)
    assert [(s["index"], s["users"]) for s in steps] == [(0, 1), (1, 4)]
    for s in steps:
        assert s["measure_from"] == pytest.approx(s["start"] + 3.0) and s["end"] >= s["start"]
    assert steps[0]["end"] == steps[1]["start"]
    assert [(p["phase"], p["users"]) for p in phases] == [("prime", 4), ("hold", 4)]
    with open(log) as f:                                   # prime/hold are not steps
        assert [(s["index"], s["users"]) for s in from_step_log(f)] == [(0, 1), (1, 4)]


def test_a_release_file_ends_the_hold_early(tmp_path):
    log, release = tmp_path / "steps.jsonl", tmp_path / "hold.release"
    ticks = drive(options={"step_hold_seconds": 30.0, "step_hold_release": str(release), "step_log": str(log)},
                  ticks=[0, 10.5, 21, 22], release_at=22)["ticks"]
    assert ticks[2][0] == 4 and ticks[3] is None          # held the last step's users, then ended
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["phase"] == "hold" and "end" in last


def test_a_prime_release_file_ends_the_prime_early_and_moves_every_later_phase(tmp_path):
    log, release = tmp_path / "steps.jsonl", tmp_path / "prime.release"
    ticks = drive(options={"step_prime_seconds": 100.0, "step_prime_release": str(release), "step_log": str(log)},
                  ticks=[0, 5, 7, 8, 17.5, 27.5], prime_release_at=7)["ticks"]
    assert [t[0] if t else None for t in ticks] == [4, 4, 1, 1, 4, None]   # step 1 at 7 s, not at 100 s
    steps, phases = read_step_log(log)
    assert phases[0]["phase"] == "prime" and phases[0]["end"] - phases[0]["start"] == pytest.approx(7.0)
    ended = [json.loads(ln) for ln in log.read_text().splitlines() if '"phase"' in ln and '"end"' in ln]
    assert ended[0]["ended_by"] == "released"
    assert steps[0]["start"] == phases[0]["end"] and steps[1]["start"] == pytest.approx(steps[0]["start"] + 10.5)


def test_without_a_release_the_prime_lasts_its_ceiling(tmp_path):
    log, release = tmp_path / "steps.jsonl", tmp_path / "prime.release"
    ticks = drive(options={"step_prime_seconds": 20.0, "step_prime_release": str(release), "step_log": str(log)},
                  ticks=[0, 19.5, 20.5])["ticks"]
    assert [t[0] for t in ticks] == [4, 4, 1]
    assert not release.exists()
    _, phases = read_step_log(log)
    assert phases[0]["end"] - phases[0]["start"] == pytest.approx(20.5)


def test_a_new_run_from_the_web_ui_starts_the_table_afresh():
    ticks = drive(ticks=[0, 0.5], reset_at=[[0.5, {"step_users": "7"}]])["ticks"]
    assert [t[0] for t in ticks] == [1, 7]


def test_spawn_rate_starts_a_step_at_once_but_stays_within_locusts_limit_per_worker():
    ticks = drive(options={"step_users": "4,64"}, ticks=[0, 10.5], workers=2)["ticks"]
    assert [t[1] for t in ticks] == [40.0, 200.0]           # 2 workers × 100


def test_bad_step_users_are_refused_with_the_option_named():
    calls = drive(calls=[["parse_users", [t]] for t in ("", "0,1", "a,b")])["calls"]
    assert all("--step-users" in c["ValueError"] for c in calls)


def _log_records(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_an_adaptive_step_ends_once_its_interval_is_narrow_and_its_minimum_measured(tmp_path):
    log = tmp_path / "steps.jsonl"
    ticks = drive(options={"step_users": "4,8", "step_seconds": 20.0, "step_warmup_seconds": 2.0,
                           "step_target_ci": 0.03, "step_min_seconds": 5.0, "step_log": str(log)},
                  per_second=[[0, 60, [100, 101, 99]]], ticks=list(range(0, 16)))["ticks"]
    # seconds 2..6 after the warm-up are 5 samples; the count of second s is used from s + 2 on
    assert [t[0] for t in ticks[:8]] == [4] * 8 and ticks[8][0] == 8
    steps, _ = read_step_log(log)
    first = steps[0]
    assert first["end"] - first["start"] == pytest.approx(8.0)
    assert (first["ended_by"], first["shape_samples"]) == ("ci", 5)
    assert first["shape_throughput"] == pytest.approx(99.8) and first["shape_ci"] <= 0.03
    assert steps[1]["start"] == first["end"]                   # the next step starts at once


def test_a_noisy_step_runs_to_the_longest_step_length_and_says_so(tmp_path):
    log = tmp_path / "steps.jsonl"
    ticks = drive(options={"step_users": "4,8", "step_seconds": 20.0, "step_warmup_seconds": 2.0,
                           "step_target_ci": 0.03, "step_min_seconds": 5.0, "step_log": str(log)},
                  per_second=[[0, 60, [70, 130]]], ticks=list(range(0, 22)))["ticks"]
    assert ticks[19][0] == 4 and ticks[20][0] == 8
    first = read_step_log(log)[0][0]
    assert first["ended_by"] == "max" and first["shape_ci"] > 0.03
    assert first["end"] - first["start"] == pytest.approx(20.0)


def test_the_ramp_stops_after_two_steps_without_a_rise_and_the_hold_keeps_the_last_users(tmp_path):
    log = tmp_path / "steps.jsonl"
    per_second = [[0, 10, [100]], [10, 20, [200]], [20, 30, [205]], [30, 40, [203]], [40, 80, [400]]]
    ticks = drive(options={"step_users": "2,4,8,16,32", "step_seconds": 10.0, "step_warmup_seconds": 2.0,
                           "step_plateau_tolerance": 0.03, "step_hold_seconds": 5.0, "step_log": str(log)},
                  per_second=per_second, ticks=[0, 10, 20, 30, 39, 40, 44, 45.5])["ticks"]
    assert [t[0] if t else None for t in ticks] == [2, 4, 8, 16, 16, 16, 16, None]
    steps, phases = read_step_log(log)
    assert [s["users"] for s in steps] == [2, 4, 8, 16]            # 32 users never ran
    assert all(s["ended_by"] == "max" for s in steps)               # fixed lengths, no interval
    assert "plateau" in steps[3]["ramp_stopped"] and "32" in steps[3]["ramp_stopped"]
    assert "ramp_stopped" not in steps[2]
    assert [(p["phase"], p["users"]) for p in phases] == [("hold", 16)]


def test_a_step_that_raises_throughput_beyond_the_band_keeps_the_ramp_going(tmp_path):
    log = tmp_path / "steps.jsonl"
    per_second = [[0, 10, [100]], [10, 20, [102]], [20, 30, [110]], [30, 40, [111]]]
    ticks = drive(options={"step_users": "2,4,8,16", "step_seconds": 10.0, "step_warmup_seconds": 2.0,
                           "step_plateau_tolerance": 0.03, "step_log": str(log)},
                  per_second=per_second, ticks=[0, 10, 20, 30, 40])["ticks"]
    # 102 is within the band of 100, 110 is not: no two flat steps in a row until the end
    assert [t[0] if t else None for t in ticks] == [2, 4, 8, 16, None]
    assert not any("ramp_stopped" in s for s in read_step_log(log)[0])


def test_noisy_steps_do_not_stop_the_ramp_even_when_their_means_are_flat(tmp_path):
    log = tmp_path / "steps.jsonl"
    # the last two steps average 201 and 203 (within 3 % of 200) but swing ±20 % each second
    per_second = [[0, 10, [100]], [10, 20, [200]], [20, 30, [161, 241]], [30, 40, [163, 243]]]
    ticks = drive(options={"step_users": "2,4,8,16,32", "step_seconds": 10.0, "step_warmup_seconds": 2.0,
                           "step_plateau_tolerance": 0.03, "step_log": str(log)},
                  per_second=per_second, ticks=[0, 10, 20, 30, 40])["ticks"]
    assert [t[0] for t in ticks] == [2, 4, 8, 16, 32]
    steps, _ = read_step_log(log)
    assert not any("ramp_stopped" in s for s in steps) and steps[2]["shape_ci"] > 0.03


def test_without_adaptive_options_the_step_log_is_as_before(tmp_path):
    log = tmp_path / "steps.jsonl"
    drive(options={"step_log": str(log)}, per_second=[[0, 30, [50, 150]]], ticks=[0, 10.5, 20.5])
    ends = [r for r in _log_records(log) if "end" in r]
    assert ends and all(set(r) == {"index", "end"} for r in ends)


def test_the_shapes_t_table_gives_scipys_t_quantiles():
    from scipy.stats import t
    dfs = [1, 2, 4, 5, 10, 26, 29, 30, 35, 50, 100, 500, 10_000, 10**9]
    calls = drive(calls=[["t975", [d]] for d in dfs])["calls"]
    assert calls == pytest.approx([t.ppf(0.975, d) for d in dfs], abs=5e-4)
