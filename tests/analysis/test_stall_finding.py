"""The stall finding (analysis/judge/stall.py): an open loop timed from its schedule shows a 2 s pause
in its p99.9, a closed loop's p99.9 hides it — holds; each way it can fail or not tell is judged so;
an experiment without a pause in both kinds of run has no such finding and keeps its clone findings."""
from __future__ import annotations

from analysis.judge import registry, stall
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURABLE


def _summary(open_p999: float, closed_p999: float, pause=(22.0, 24.0), closed_pause: bool = True) -> dict:
    def run(rid, p999, intended):
        steps = [{"step": 0, "users": 1, "valid": True, "count": 400, "p99.9_ms": 15.0},
                 {"step": 1, "users": 2, "valid": True, "count": 1600, "p99.9_ms": p999}]
        if intended:
            for s in steps:
                s["intended"] = {"p99.9_ms": s["p99.9_ms"]}
        return {"id": rid, "latency": {"source": "hdr", "steps": steps}}
    faults = [{"run_id": "open-r0", "action": "pause", "step": 1, "from_s": pause[0], "to_s": pause[1]}]
    if closed_pause:
        faults.append({"run_id": "closed-r0", "action": "pause", "step": 1, "from_s": 46.0, "to_s": 48.0})
    return {"experiment": {"kind": "clones"}, "runs": [run("closed-r0", closed_p999, False), run("open-r0", open_p999, True)],
            "faults": faults}


def test_the_schedule_shows_the_pause_and_the_closed_loop_hides_it():
    (f,) = stall.findings(_summary(2666.0, 34.0))
    assert f.verdict == HOLDS and f.key == stall.KEY
    assert "p99.9 2,666 ms from the schedule" in f.measured and "p99.9 34 ms in the closed loop" in f.measured
    assert "1,000 ms" in f.why and "200 ms" in f.why          # D/2 and D/10 of the 2 s pause


def test_each_way_to_fail_or_not_tell():
    assert stall.findings(_summary(600.0, 34.0))[0].verdict == DOES_NOT_HOLD      # the schedule missed it
    assert stall.findings(_summary(2666.0, 2006.0))[0].verdict == DOES_NOT_HOLD   # the closed loop saw it
    assert stall.findings(_summary(2666.0, 500.0))[0].verdict == NOT_MEASURABLE   # between D/10 and D/2


def test_without_a_pause_in_both_kinds_of_run_the_clone_findings_stay():
    s = _summary(2666.0, 34.0, closed_pause=False)
    assert stall.findings(s) == []
    assert all(f.key != stall.KEY for f in registry.findings(s))
