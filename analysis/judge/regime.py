"""Was a run in the regime its finding needs, or did the machine set its maximum?

A run is host-bound when, at its plateau (the step the bottleneck hint reads CPU at: of the
plateau's steps the one with the least host CPU, so a plateau that held while other programs'
load paused is not the host's), the host's CPU — or, with the stack pinned apart from the load
generator, the stack's CPUs — was at or above the utilisation threshold
(settings.utilisation_threshold, 80 %), or a
step there or later had the load generator as its limit (analysis/generator.py: a Locust process at
loadgen_cpu_saturation_pct of a core, its event loop late, or the open loop's sends behind their
schedule — the load generator, not the system, then stopped the ramp), or every step was. Such a run shows what this
machine can carry, not the mechanism a classic finding is about: a finding that depends on it
reads "not testable on this host" with the cause and the fix, never "does not hold".

The cause names how much of the host this experiment's own processes used (the sum of every
sampled tier and Locust process) and how much other programs did (host less that), since on a
shared machine the difference is someone else's load. In the container modes the kernel's
packet work on the bridge (softirq, charged to no container's cgroup: cpu.csv tier "kernel")
is this experiment's too — without it compose's own networking read as other programs' load.

A run is not warm when its prime by measurement reached its ceiling first (`not_warm`): the
findings that rest on it read "not testable" too, with that cause.

A run is shared when other programs used at least OTHERS_MAX (15 %) of the host at its plateau.
The segment law compares paths that each use the whole host (their maxima are CPU-bound by
design): a path measured while someone else took part of the host is not comparable, so a
segment finding resting on a shared path is not testable either.
"""
from __future__ import annotations

from analysis.steps import LOADGEN_BEHIND, LOADGEN_SATURATED

OTHERS_MAX = 0.15
SHARED_FIX = ("run on a quieter machine, or pin the stack and the load generator to CPUs of their own "
              "(STACK_CPUS, LOADGEN_CPUS)")
FIX = ("let the runner scale the service wait to this host (demands.SERVICE wait_us = \"auto\", without "
       "--no-scale), give the tiers CPU quotas (tiers_cpus), use fewer users, or run on a quieter or "
       "larger machine")
OWN_FIX = ("give the tiers CPU quotas (tiers_cpus), use fewer users, or run your service on another machine "
           "(here it shares the host with the stack)")
LOADGEN_FIX = ("give Locust more workers or CPUs of its own (LOADGEN_CPUS; a larger CPUS_LOCUST where it has a "
               "quota), or use fewer users or a lower rate")
WARM_FIX = ("raise the run's warm_max_seconds (docs/experiments.md, \"Warm by measurement\"), give the stack "
            "CPUs of its own (STACK_CPUS, LOADGEN_CPUS), or run on a quieter machine")


def not_warm(meta: dict) -> dict | None:
    """{cause, fix} when a run's prime by measurement reached its ceiling before the stack was
    measurably warm (run.json notes.warm, cli/testbed/run/record/warmth.py): its steps measured JVMs
    still compiling, so a finding resting on it is not testable, never "does not hold"."""
    warm = (meta.get("notes") or {}).get("warm") or {}
    if warm.get("verdict") != "not warm":
        return None
    return {"cause": str(warm.get("why") or "not warm"), "fix": WARM_FIX}


def shares(steps, hint, host_cores: float) -> dict | None:
    """At the step the hint read CPU at: {step, users, host, own, others} as fractions of the
    host's cores (host None without host samples); None without such a step."""
    top = next((s for s in steps if s.index == hint.step), None)
    if top is None:
        return None
    own = top.own_cpu / (100.0 * host_cores)
    host = hint.host_utilisation
    return {"step": top.index, "users": top.users, "host": host, "own": own,
            "others": None if host is None else max(host - own, 0.0)}


def shared(entry: dict) -> str | None:
    """"other programs used 39% of the host at its plateau (64 users)" when a run's entry
    (summary.json runs[]) says so (see the module rule), else None."""
    sh = entry.get("cpu_shares") or {}
    if sh.get("others") is None or sh["others"] < OTHERS_MAX:
        return None
    return (f"other programs used {sh['others']:.0%} of the host at its plateau ({sh['users']} users; "
            f"this experiment {sh['own']:.0%})")


def host_bound(steps, hint, threshold: float, host_cores: float, pinned: bool = False,
               own_service: bool = False) -> dict | None:
    """{cause, fix, host, own, others, step} when the run was host-bound (see the module rule),
    else None. steps: the run's analysis.steps.StepSample list; hint: its bottleneck.Hint;
    own_service: the run calls the user's own service (no service wait of the testbed's to scale)."""
    fix = OWN_FIX if own_service else FIX
    out = shares(steps, hint, host_cores) if hint is not None else None
    if out is None:          # no step to read the plateau at: every one excluded — by the generator?
        return generator_limited(steps)
    top = next(s for s in steps if s.index == hint.step)
    host, own, others = out["host"], out["own"], out["others"]
    stack = hint.utilisation.get("stack") if pinned else None
    if stack is not None and stack >= threshold:
        return {**out, "fix": fix,
                "cause": f"the stack's pinned CPUs at {stack:.0%} at the plateau ({top.users} users)"}
    if not pinned and host is not None and host >= threshold:
        share = (f" (this experiment {own:.0%}, other programs {others:.0%})"
                 if others is not None and others >= 0.05 else "")
        return {**out, "fix": fix,
                "cause": f"host CPU {host:.0%} of {host_cores:g} cores at the plateau ({top.users} users){share}"}
    limited = generator_limited(steps, top.index)
    return {**out, **limited} if limited else None


def generator_limited(steps, from_index: int = 0) -> dict | None:
    """{cause, fix, step, users} when a step from from_index on had the load generator, not the stack,
    as its limit (analysis/generator.py: its CPU, its event loop, the open loop's schedule), else None."""
    for s in steps:
        if s.index < from_index:
            continue
        why = s.flags.get(LOADGEN_BEHIND) or s.flags.get(LOADGEN_SATURATED)
        if why:
            return {"fix": LOADGEN_FIX, "step": s.index, "users": s.users,
                    "cause": f"the load generator was the limit at {s.users} users ({why})"}
    return None


def sentence(bound: dict, run_id: str = "") -> str:
    """"run x: host CPU 97 % of 2 cores at the plateau (...)"."""
    return (f"{run_id}: " if run_id else "") + bound["cause"]


# ------------------------------------------------------------------------------ the scaling
def scaling_lines(summary: dict) -> list[str]:
    """The runner's choice of the service wait (experiment.json "scaling"), for a terminal."""
    sc = (summary.get("experiment") or {}).get("scaling")
    if not sc:
        return []
    out = [sc.get("sentence") or f"service wait {sc['wait_us'] / 1000:g} ms"]
    costs = sc.get("costs")
    if costs:
        per = ", ".join(f"{t} {v * 1e3:.2f}" for t, v in sorted(costs["per_request_s"].items()))
        out.append(f"  CPU per /seg/5 request (ms): {per}; total {sum(costs['per_request_s'].values()) * 1e3:.2f} "
                   f"at {costs['throughput']:.0f}/s; other programs {costs.get('background_cores') or 0:.2f} cores")
    return out


def scaling_rows(summary: dict) -> dict | None:
    """The report's section on the choice (experiment.json "scaling"): {sentence, rows [(input,
    value)]}; None when the runner chose nothing."""
    sc = (summary.get("experiment") or {}).get("scaling")
    if not sc:
        return None
    costs, cap, rows = sc.get("costs") or {}, sc.get("capacity") or {}, []
    rows += [(f"CPU per /seg/5 request, {t}", f"{v * 1e3:.3f} ms")
             for t, v in sorted((costs.get("per_request_s") or {}).items())]
    if costs:
        rows += [("measured at", f"{costs['throughput']:.0f}/s on {costs.get('source', '')}"),
                 ("other programs meanwhile", f"{costs.get('background_cores') or 0:.2f} cores")]
    if cap:
        rows.append(("host cores", f"{cap['host_cores']:g}"))
    if sc.get("share") is not None:
        rows.append(("share of each CPU group the largest run may need", f"{sc['share']:.0%}"))
    rows += [("runs with this wait", ", ".join(sc.get("runs") or []) or "—"), ("rule", sc.get("rule") or "")]
    return {"sentence": sc.get("sentence") or "", "rows": rows}
