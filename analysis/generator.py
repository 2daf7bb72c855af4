"""The verdict on the load generator for every step: did Locust keep up, or was it the limit?

A load generator that runs short of CPU does not fail: it sends later, reads answers later, and
reports its own delay as the system's latency (and, in a closed loop, as less throughput). The
step's figures are then the generator's, and a finding resting on them would be about Locust. Per
step, from what the generator recorded of itself (loadgen/latency_record.py, latency.hlog):

  - its event loop: every process that runs users times how late its loop wakes a sleeping
    greenlet (tag "loop", every 50 ms) — at least that much later it reads each answer that has
    arrived. The generator was the limit when the loop's median lateness reached
    loadgen_loop_lag_ms AND loadgen_loop_share of the step's median latency: Locust was behind
    most of the time, and a measurable part of every response time was its own. A healthy
    generator's median is well under a millisecond (1.1 ms at most on this project's 2-core host
    with the host saturated by think-time-0 paths); one in a tenth of a core, 50 ms. A slow stack
    keeps the share small: a singleton's 400 ms answers are not Locust's because it lags 10 ms;
  - the open loop's schedule: the sends' median lag behind their intended start (tag "lag") at or
    above loadgen_loop_lag_ms — the schedule was not kept, so the rate sent was not the rate asked
    (intended and sent rates are given beside it; requests dropped at the outstanding limit are the
    stack's answer, not the generator's, and do not count here);
  - its CPU: a Locust process at loadgen_cpu_saturation_pct of one core (the step flag
    loadgen_saturated, analysis/steps.py) — kept as before, now named in the same verdict.

A step so judged is flagged loadgen_behind (or loadgen_saturated) and excluded from maxima like an
incomplete one; the findings that rest on its run read "not testable" with the cause
(analysis/judge/regime.py, generator_limited), never "does not hold".
"""
from __future__ import annotations

LOADGEN_BEHIND = "loadgen_behind"
LOADGEN_SATURATED = "loadgen_saturated"          # its CPU (analysis/steps.py sets it, from cpu.csv)


def verdict(s, settings, arrival_rate: float = 0.0) -> dict:
    """{"kept_up", "causes", "loop_p50_ms", "loop_p99_ms", "loop_max_ms", "cpu_max_pct",
    "cpu_process", "lag_p99_ms", "intended_rate", "sent_rate", "behind"} for one step
    (analysis.steps.StepSample with its latency and CPU already measured); "behind" the loop's or the
    schedule's causes (None when neither says so). Figures the step has not (a run recorded before the loop was timed) are None
    and judge nothing. Pure: judged() sets the step's flag."""
    lat = s.latency or {}
    loop, lag = lat.get("loop") or {}, lat.get("lag") or {}
    out: dict = {"kept_up": True, "causes": [],
                 "loop_p50_ms": loop.get("p50_ms"), "loop_p99_ms": loop.get("p99_ms"),
                 "loop_max_ms": loop.get("max_ms"), "cpu_max_pct": None, "cpu_process": None,
                 "lag_p99_ms": lag.get("p99_ms"), "intended_rate": None, "sent_rate": None}
    if s.loadgen:
        worst = max(s.loadgen, key=s.loadgen.get)
        out["cpu_max_pct"], out["cpu_process"] = round(s.loadgen[worst], 1), worst
    floor = settings.loadgen_loop_lag_ms
    own = lat.get("p50_ms")
    late = out["loop_p50_ms"]
    if loop_behind(late, own, settings):
        out["causes"].append(f"Locust's event loop woke its greenlets {late:.1f} ms late (median; ≥ {floor:g} ms and "
                             f"{late / own:.0%} of the step's median latency {own:.1f} ms): the answers waited in Locust")
    if arrival_rate > 0 and s.users:
        out["intended_rate"] = round(arrival_rate * s.users, 3)
        if s.throughput is not None and s.window_s:
            dropped = lat.get("dropped") or 0
            out["sent_rate"] = round(s.throughput + dropped / s.window_s, 3)
        behind = lag.get("p50_ms")
        if behind is not None and behind >= floor:
            sent = (f"; {out['sent_rate']:.0f} of the intended {out['intended_rate']:.0f}/s sent"
                    if out["sent_rate"] is not None else "")
            out["causes"].append(f"the sends lagged their schedule by {behind:.1f} ms (median; ≥ {floor:g} ms){sent}")
    out["behind"] = "; ".join(out["causes"]) or None
    if LOADGEN_SATURATED in s.flags:
        out["causes"].append(s.flags[LOADGEN_SATURATED])
    out["kept_up"] = not out["causes"]
    return out


def judged(s, settings, arrival_rate: float = 0.0) -> dict:
    """The step's verdict kept in s.generator, and the step flagged LOADGEN_BEHIND when the loop
    or the schedule says so (what the analysis does with every step)."""
    s.generator = verdict(s, settings, arrival_rate)
    if s.generator["behind"]:
        s.flags[LOADGEN_BEHIND] = s.generator["behind"]
    return s.generator


def loop_behind(late_ms: float | None, latency_ms: float | None, settings) -> bool:
    """The event loop's rule (module doc): its median lateness at least loadgen_loop_lag_ms and at
    least loadgen_loop_share of the median latency measured meanwhile."""
    return (late_ms is not None and bool(latency_ms) and late_ms >= settings.loadgen_loop_lag_ms
            and late_ms >= settings.loadgen_loop_share * latency_ms)


def live(loop: dict | None, latency_ms: float | None, settings) -> str:
    """The Testbed tab's words for the generator's loop now (loadgen/latency_record.py, loop_now)."""
    if not loop:
        return ""
    late = f"event loop {loop['p50_ms']:.1f} ms late (median of its last 5 s, {loop['process']})"
    if loop_behind(loop["p50_ms"], latency_ms, settings):
        return f"BEHIND: {late}, {loop['p50_ms'] / latency_ms:.0%} of the median response — the answers wait in Locust"
    return f"kept up: {late}"


def cause(steps) -> str | None:
    """The first step's reason, where a step of the run was the generator's limit, else None."""
    for s in steps:
        why = (s.generator or {}).get("causes") if getattr(s, "generator", None) else None
        if why:
            return f"the load generator was the limit at {s.users} users: {why[0]}"
    return None
