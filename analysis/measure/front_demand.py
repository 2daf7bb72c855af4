"""The front's demand on each segment path — its CPU per request, in units of HAProxy's: the
segment law's second reading, for a host whose speed drifts (docs/experiments.md, "Segments by demand").

With think time 0 the host is the bottleneck of paths ① … ④ on a small machine, and a shared
host's speed drifts: in six classic runs (2026-12-03, 2 cores) the path maxima moved by −51 % to
+43 % between paths whose code differs by microseconds, and every process's CPU per request moved
with them (the front's, HAProxy's and Locust's, by up to 2× between the steps of one run). HAProxy
does the same work for a request of every path (one request in, one response out), so the front's
CPU per request divided by HAProxy's, step by step, cancels the host's speed: what is left is the
front's own demand of the path, in "HAProxy requests".

Paths ① … ④ pass HAProxy once a request (⑤ three times: to the front, the client tier and the
service), so only they are read, and with them segments ② … ④.
A path's reading: the median of that ratio over its valid steps at LOADED of the path's best
throughput or more (all runs of the path), with the lowest and highest step. A segment k of the front (③, ④) costs measurably where every step of
path k reads above every step of path k − 1 (`separated`); its cost is the difference of the
medians at HAProxy's CPU per request (the mean of both paths' medians), in µs, and 1 / cost is its
throughput by demand, T(k) in the segment law's units. `resolution_us` is the widest path's range
in µs: a cost of about that size or more would have separated the paths. `path_host_us` is path
k − 1's CPU per request on the whole host (every process's: the demand its throughput measures
when the host is the bottleneck), at the same unit: the JSP (②) is "next to nothing" against it.
"""
from __future__ import annotations

import statistics

from analysis.measure.bottleneck import Capacities
from analysis.steps import StepSample

FRONT, REFERENCE = "front", "haproxy"
FRONT_PATHS = (1, 2, 3, 4)      # one pass through HAProxy a request
MIN_STEPS = 2           # a range needs two steps
LOADED = 0.5            # steps at half the path's best throughput or more: a lightly loaded step's
                        # CPU per request carries the processes' idle work (GC, JIT, health checks)


def front_quota(caps: Capacities, meta: dict) -> float | None:
    """The front's CPU quota (cores) a run ran with (Capacities.for_run: the run's recorded quotas,
    else the experiment's; else its knobs), None without one. Under a quota the path maxima measure
    the front's own capacity, not the host's: they decide, and the front's demand is not read
    (measured: at 256 and 512 users HAProxy, queueing for the quota'd front, cost 2.5-4x more CPU a
    request, results/classic-20261203-154549)."""
    q = caps.for_run(meta).quotas.get(FRONT)
    if q is None:
        try:
            q = float((meta.get("knobs") or {}).get("CPUS_FRONT") or 0) or None
        except ValueError:
            q = None
    return q


def path_reading(steps: list[StepSample]) -> dict | None:
    """{ratio, low, high, steps, haproxy_us, host_ratio} over the valid steps that sampled both
    processes, None with fewer than MIN_STEPS of them; host_ratio is the whole host's CPU per
    request in HAProxy's units (the median; None where the steps did not sample the host)."""
    valid = [s for s in steps if s.valid and s.throughput and s.cpu.get(FRONT) and s.cpu.get(REFERENCE)]
    best = max((s.throughput for s in valid), default=0.0)
    loaded = [s for s in valid if s.throughput >= LOADED * best]
    if len(loaded) < MIN_STEPS:
        return None
    ratios = [s.cpu[FRONT] / s.cpu[REFERENCE] for s in loaded]
    hosts = [s.host_cpu / s.cpu[REFERENCE] for s in loaded if s.host_cpu]
    return {"ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios), "steps": len(loaded),
            "haproxy_us": statistics.median(s.cpu[REFERENCE] / 100 / s.throughput * 1e6 for s in loaded),
            "host_ratio": statistics.median(hosts) if hosts else None}


def path_readings(run_ids: dict[int, list[str]], steps_of: dict[str, list[StepSample]],
                  metas: dict[str, dict], caps: Capacities) -> dict[int, dict | None]:
    """Each of paths ① … ④ (path -> its runs' ids): its reading over the steps of all its runs, or
    None where one of them ran with a front quota (front_quota)."""
    return {k: None if any(front_quota(caps, metas.get(rid) or {}) for rid in ids)
            else path_reading([x for rid in ids for x in steps_of.get(rid, [])])
            for k, ids in run_ids.items() if k in FRONT_PATHS}


def segment_reading(previous: dict | None, current: dict | None) -> dict | None:
    """Segment k from the readings of paths k − 1 and k (module docstring), None without both."""
    if not previous or not current:
        return None
    unit = (previous["haproxy_us"] + current["haproxy_us"]) / 2
    cost = (current["ratio"] - previous["ratio"]) * unit
    host = previous.get("host_ratio")
    return {"front_us": cost, "unit_us": unit, "path_front_us": previous["ratio"] * unit,
            "path_host_us": host * unit if host else None,
            "separated": current["low"] > previous["high"], "reversed": current["high"] < previous["low"],
            "resolution_us": max(current["high"] - current["low"], previous["high"] - previous["low"]) * unit,
            "throughput": 1e6 / cost if cost > 0 else None}
