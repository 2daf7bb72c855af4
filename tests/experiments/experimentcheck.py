"""Checks that a result folder is complete (every file docs/results.md lists) and that its
numbers agree with each other: steps with their Locust CSVs, summary with steps, cpu.csv with
the processes that ran."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

RAW_RUN_FILES = ("run.json", "locust_stats.csv", "locust_stats_history.csv", "locust_failures.csv",
                 "locust_exceptions.csv", "cpu.csv", "steps.jsonl")


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(text: str) -> float | None:
    return float(text) if text not in ("", None) else None


def check_folder(folder: Path, runs_expected: int) -> dict:
    """Assert completeness and consistency; return summary.json."""
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete", exp.get("error")
    assert exp["format"] == 1 and exp["ended"] > exp["started"]
    assert exp["host"]["cores"] >= 1 and exp["versions"]["locust"]
    assert exp["definition"]["toml"] and (folder / "experiment.toml").is_file()
    assert len(exp["runs"]) == runs_expected
    for name in ("steps.csv", "summary.json", "report.html", "plots/throughput.png", "plots/throughput.svg"):
        assert (folder / name).is_file(), f"{name} missing"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["lost"] == [], summary["lost"]
    steps = read_csv(folder / "steps.csv")
    by_run = {r["id"]: r for r in summary["runs"]}
    assert sorted(by_run) == sorted(exp["runs"])
    report = (folder / "report.html").read_text()
    for run_id in exp["runs"]:
        check_run(folder / "runs" / run_id, [s for s in steps if s["run_id"] == run_id], by_run[run_id])
        assert (folder / "plots" / f"cpu-{run_id}.png").is_file()
        assert run_id in report
    return summary


def check_run(run_dir: Path, steps: list[dict], summary_run: dict) -> None:
    for name in RAW_RUN_FILES:
        assert (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0, f"{run_dir.name}/{name}"
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "complete", meta.get("error")
    assert meta["locust_csv_full_history"] is True
    load = meta["notes"]["load"]
    planned = load["users"]
    ran = [s["users"] for s in meta["steps"]]
    if load.get("plateau_tolerance"):       # the ramp may stop at the plateau: a prefix, said why
        assert ran == planned[:len(ran)] and ran
        assert len(ran) == len(planned) or "plateau" in (meta["steps"][-1].get("ramp_stopped") or "")
    else:
        assert ran == planned
    for s in meta["steps"]:
        assert s["start"] < s["measure_from"] < s["end"]
        if load.get("target_ci"):           # adaptive: how it ended, never past the longest step
            assert s["ended_by"] in ("ci", "max") and s["shape_samples"] >= 1
            assert s["end"] - s["start"] <= load["step_seconds"] + 1.5
            if s["ended_by"] == "ci":
                assert s["shape_ci"] <= load["target_ci"] and s["shape_samples"] >= load["min_step_seconds"]
    for a, b in zip(meta["steps"], meta["steps"][1:]):
        assert a["end"] <= b["start"] + 0.01
    # steps.csv against the Locust files
    assert len(steps) == len(ran)
    totals = next(r for r in read_csv(run_dir / "locust_stats.csv") if r["Name"] == "Aggregated")
    assert sum(int(s["requests"]) for s in steps) <= int(totals["Request Count"])
    valid = [s for s in steps if s["excluded"] == "0"]
    for s in steps:
        # a healthy stack and a finished run: only a busy load generator may exclude a step (its CPU,
        # or its event loop late: analysis/generator.py — a shared host's parallel tests do that)
        assert "incomplete" not in s["flags"] and "high_errors" not in s["flags"], s["flags"]
        assert s["excluded"] == "0" or "loadgen_saturated" in s["flags"] or "loadgen_behind" in s["flags"]
    if not valid:       # the verdict is a measurement of this host: on a saturated one, not testable here
        pytest.skip(f"shared host: the load generator was behind at every step of {run_dir.name} "
                    f"({steps[0]['flags'][:160]}): its numbers are this host's, not testable")
        tp, window, req = num(s["throughput"]), num(s["window_s"]), int(s["requests"])
        assert tp > 0 and abs(tp - req / window) < 1e-6 * max(tp, 1) + 1e-3
        assert num(s["error_rate"]) <= 0.01
        assert num(s["throughput_fit"]) == pytest.approx(tp, rel=0.25)
        assert num(s["cpu_front"]) is not None and num(s["cpu_host"]) is not None
        assert num(s["loadgen_max_process"]) is not None
    # the maximum is the best valid step
    assert summary_run["max_throughput"] == pytest.approx(max(num(s["throughput"]) for s in valid))
    # cpu.csv: every stack replica, HAProxy, every Locust process of the run, the host
    rows = read_csv(run_dir / "cpu.csv")
    seen = {(r["tier"], r["replica"]) for r in rows}
    for tier, n in meta["tiers"].items():
        for i in range(1, n + 1):
            assert (tier, str(i)) in seen, f"{run_dir.name}: no CPU samples of {tier}-{i}"
    assert ("haproxy", "1") in seen and ("host", "all") in seen
    workers = meta["locust_workers"]
    want = {("loadgen", "local")} if workers == 0 else {("loadgen", "master")} | {
        ("loadgen", f"worker-{i}") for i in range(1, workers + 1)}
    assert want <= seen, f"{run_dir.name}: Locust processes not sampled: {want - seen}"


def threaddump_monitors(summary_run: dict, tier: str) -> dict:
    """{monitor class: BLOCKED threads} of a tier's thread dumps, from the bottleneck hint."""
    out: dict = {}
    for d in summary_run["bottleneck"]["threaddumps"]:
        if d["tier"] == tier:
            for cls, n in d["blocked_by_monitor"].items():
                out[cls] = out.get(cls, 0) + n
    return out
