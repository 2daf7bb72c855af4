"""Settings into the runs: an experiment's run specs rewritten with what fit/ chose — the
classic-system profile's quotas, demands, wait and pool (apply), the profile's settings chosen
again during the run (with_demands, with_build, with_invoker), and the service wait, of the
scaled runs (fit/scaling.py) or the profile's (with_wait). Run specs in, run specs out: no I/O."""
from __future__ import annotations

from dataclasses import replace

from testbed.fit.profile import Profile
from testbed.experiment.scale import SCALED_POINT

# users of the segment paths ①-④ under the profile: a tier under a CPU quota runs a share of
# every 100 ms period and then waits for the next, so a request's time there grows by tens of ms
# and the front's quota is only reached with some hundreds of requests in flight (Little's law:
# N = X·R)
SEGMENT_USERS = (16, 32, 64, 128, 256, 512)
SEGMENT_USERS_QUICK = (64, 512)
# the profile probes' prime: /seg/5's JVMs are cold before them (docs/predict.md: 30 s); a run
# whose tier restarts for a new demand is primed at least as long (with_prime)
PROBE_PRIME_S = 30.0


def apply(specs, p: Profile, quick: bool = False) -> list:
    """The runs with the profile: every run gets the quotas, the front's demands and the service
    wait (unlocked, in the scaled wait's place); pool runs the profile's pool size; the segment
    paths ①-④, held by the front's quota, SEGMENT_USERS, and in path order (path ① first: the
    runner retunes the wait from T(①) before the first /seg/5 run, tohost.retune_wait; the
    profile's cost probes warmed the stack's JVMs before them)."""
    out = []
    seg = [k for k, s in enumerate(specs) if s.kind == "segments"]
    specs = list(specs)
    for k, s in zip(seg, sorted((specs[k] for k in seg), key=lambda s: s.path)):
        specs[k] = s
    for s in specs:
        demands = {k: v for k, v in s.demands.items() if k not in ("SEG1", "SEG2", "SEG3", "SEG4", "INVOKER", "SERVICE")}
        for point, cpu in p.demands_cpu_us.items():
            if cpu:
                demands[point] = _cpu(cpu)
        demands.pop("CLONE", None)
        if s.client_mode == "request" and p.request_cpu_us:     # the emulated build, that run only
            demands["CLONE"] = _cpu(p.request_cpu_us)
        # every run: only /seg/5 reaches the service, and one value spares the service a restart
        demands["SERVICE"] = {"cpu_us": 0, "wait_us": p.wait_us, "locked": False}
        knobs = {**s.knobs, **{f"CPUS_{t.upper()}": f"{q:g}" for t, q in p.quotas.items()}}
        users = SEGMENT_USERS_QUICK if quick else SEGMENT_USERS
        load = replace(s.load, users=users) if s.kind == "segments" and s.path < 5 else s.load
        out.append(replace(s, demands=demands, knobs=knobs, auto_wait=False, load=load,
                           pool_size=p.pool_size if s.client_mode == "pool" else s.pool_size))
    return out


def with_wait(specs, wait_us: int, which=lambda s: s.auto_wait) -> list:
    """The runs `which` picks with the service wait set to wait_us, the rest of that demand
    kept (none yet: no CPU, unlocked), the others unchanged. By default the runs whose wait is
    "auto" (the scaled wait, fit/scaling.py); the profile's wait goes into the runs that have one."""
    out = []
    for s in specs:
        if which(s):
            demands = {**s.demands, SCALED_POINT: {**s.demands.get(SCALED_POINT, {"cpu_us": 0, "locked": False}),
                                                   "wait_us": int(wait_us)}}
            s = replace(s, demands=demands)
        out.append(s)
    return out


def with_demands(specs, demands: dict[str, int]) -> list:
    """The runs with the front's emulated CPU changed (profile.next_paths, next_segment)."""
    for point in ("SEG2", "SEG3", "SEG4", "INVOKER"):
        specs = with_demand(specs, point, _cpu(demands[point]) if demands.get(point) else None)
    return specs


def with_build(specs, build_us: int, quick: bool = False) -> list:
    """The client-per-request runs with the emulated build changed (profile.next_build), primed
    as long as a probe (not with --quick): the clone restarts for it."""
    return with_demand(specs, "CLONE", _cpu(build_us), lambda s: s.client_mode == "request", primed=not quick)


def with_invoker(specs, invoker_us: int, quick: bool = False) -> list:
    """The pool runs with the Invoker's emulated CPU changed (profile.next_invoker), primed as
    long as a probe (not with --quick): the front restarts for it."""
    return with_demand(specs, "INVOKER", _cpu(invoker_us), lambda s: s.client_mode == "pool", primed=not quick)


def with_demand(specs, point: str, demand: dict | None, which=lambda s: True, primed: bool = False) -> list:
    """The runs `which` picks with one demand point set (None: removed). primed: their prime at
    least a probe's, for a tier restarted for the new value (a cold JVM's compiler shares the
    tier's quota: a pool run without a prime measured 25 % below its probe)."""
    out = []
    for s in specs:
        if which(s):
            d = {k: v for k, v in s.demands.items() if k != point}
            if demand is not None:
                d[point] = demand
            s = with_prime(replace(s, demands=d)) if primed else replace(s, demands=d)
        out.append(s)
    return out


def with_prime(spec):
    """The run primed at least as long as a probe: its tier restarts for a new demand (a prime by
    measurement, warm = "steady": its floor raised to that)."""
    load = spec.load
    if load.steady:
        floor = max(load.warm_min_seconds, PROBE_PRIME_S)
        return replace(spec, load=replace(load, warm_min_seconds=floor, warm_max_seconds=max(load.warm_max_seconds, floor)))
    return replace(spec, load=replace(load, prime_seconds=max(load.prime_seconds, PROBE_PRIME_S)))


def _cpu(us: int) -> dict:
    """An emulated CPU demand of us µs, outside any lock."""
    return {"cpu_us": us, "wait_us": 0, "locked": False}
