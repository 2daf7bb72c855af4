"""What a stall does to the latency a load generator reports (docs/latency.md, "The open loop"):
the finding of an experiment that pauses a replica once in an open-loop run and once in a
closed-loop one (loadgen/experiments/latency.toml).

Rule: take the first pause fault of each kind of run that began inside a step's measurement window
(summary.json faults[].step), D its length. In the open-loop run, the step's p99.9 timed from each
request's schedule (latency "intended"); in the closed-loop run, the step's p99.9.
- holds when the open loop's p99.9 is at least D/2 — the stall reached the percentile, as it
  reached every request due meanwhile — and the closed loop's is at most D/10: its users sent
  nothing while they waited, so one slow request per user is all it counted (coordinated
  omission);
- does not hold when the open loop's p99.9 stays under D/2 (the schedule did not see the stall)
  or the closed loop's reaches D/2 (its step was too short for its users' few slow requests to stay
  beyond its p99.9);
- else not measurable: the closed loop's p99.9 between D/10 and D/2.
"""
from __future__ import annotations

from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURABLE, Finding
from analysis.judge.method import LATENCY

CLAIM = "an open loop timed from its schedule shows a stall that a closed loop hides (coordinated omission)"
KEY = "stall_coordinated_omission"


def _pause_step(summary: dict, run: dict) -> tuple[dict, dict] | None:
    """(the fault, the run's latency step it began in) of the run's first pause inside a step."""
    steps = {s.get("step"): s for s in ((run.get("latency") or {}).get("steps") or [])}
    for f in summary.get("faults") or []:
        if f.get("run_id") == run["id"] and f.get("action") == "pause" and f.get("step") in steps \
                and f.get("from_s") is not None and f.get("to_s") is not None:
            return f, steps[f["step"]]
    return None


def findings(summary: dict) -> list[Finding]:
    """The stall finding where the experiment paused a replica in both kinds of run, else none."""
    open_, closed = None, None
    for run in summary.get("runs") or []:
        got = _pause_step(summary, run)
        if got is None or not got[1].get("valid", True):
            continue
        if got[1].get("intended") and open_ is None:
            open_ = (run, *got)
        elif not got[1].get("intended") and closed is None:
            closed = (run, *got)
    if open_ is None or closed is None:
        return []
    (orun, ofault, ostep), (crun, cfault, cstep) = open_, closed
    pause_ms = 1000.0 * (ofault["to_s"] - ofault["from_s"])
    o = (ostep["intended"] or {}).get("p99.9_ms")
    c = cstep.get("p99.9_ms")
    if o is None or c is None:
        return []
    measured = (f"a {pause_ms / 1000:.1f} s pause: p99.9 {o:,.0f} ms from the schedule at {ostep['users']} users of the "
                f"open loop ({orun['id']}, step {ostep['step']}); p99.9 {c:,.0f} ms in the closed loop "
                f"({crun['id']}, step {cstep['step']}, {cstep.get('count') or 0:,} requests)")
    rule = (f"holds when the open loop's p99.9 from the schedule ≥ half the pause ({pause_ms / 2:,.0f} ms) and the "
            f"closed loop's ≤ a tenth ({pause_ms / 10:,.0f} ms)")
    if o >= pause_ms / 2 and c <= pause_ms / 10:
        verdict = HOLDS
    elif o < pause_ms / 2 or c >= pause_ms / 2:
        verdict = DOES_NOT_HOLD
    else:
        verdict = NOT_MEASURABLE
    return [Finding(CLAIM, measured, "wrk2's reason to exist: a closed loop omits the requests due during a stall",
                    verdict, rule, KEY, method=LATENCY)]
