"""The classic-system profile (`--profile classic-system`, or `profile = "classic-system"` in a
classic experiment): emulated demands that give the stack the shape of the classic deployment,
so that every normalized figure of "the classic report beside this run" can be held against the
published one. The default profile ("stack") keeps the stack's own costs.

What the classic system had, and how it is emulated (docs/experiments.md, "The classic
system's shape"):
- one machine per tier: the front and each clone get a CPU quota (tiers_cpus);
- the front's segments cost what the published path maxima say, relative to the static page:
  with the front's quota the bottleneck of paths ①-④, its CPU per request on path k must be
  F(1..k) = F(1)·T(1)/T(1..k) (published T: 812, 795, 520, 430), so the profile adds CPU to the
  JSP, the access bean and the session bean (DEMAND_SEG2..4_CPU_US): the difference between
  that target and what this stack's front costs on path k (measured); segment ① itself gets CPU
  (DEMAND_SEG1_CPU_US) until no later segment costs more than the shape allows, and at least
  SEGMENT_ONE_EMULATED of its cost;
- segment ⑤ is the singleton client's lock: T(1..5) is the singleton's rate 1/(W + r), so the
  service wait W (unlocked) is chosen for T(1..5)/T(1) = 7.4/812;
- the eventual fix (published about 100 tps, 13.5× the singleton) is a pool of clients large
  enough not to bind (POOL_SIZE), held back by the front's quota: the Invoker's CPU
  (DEMAND_INVOKER_CPU_US) brings the front's CPU per /seg/5 request to F(1)·812/100; the
  clone's quota leaves the pool room (the pool at CLONE_SHARE of it);
- a client per request (22 tps, 2.97× the singleton) builds its client from the WSDL on every
  call, on the clone's machine: here that costs about 3-4 pooled calls of clone CPU, there it
  cost more (100/22 = 4.5 calls of the fix, on a machine the fix did not fill), so the request
  run alone adds the difference as clone CPU per call (DEMAND_CLONE_CPU_US, that run only): the
  clone's quota then holds it at 2.97 singletons.
The singleton's lock stays the real synchronized client: no demand is locked, and the clone
runs' scaling comes from the clones' own monitors. T(1) itself — the scale of everything — is
chosen like the scaled wait of fit/scaling.py: the heaviest configuration (path ① at T(1), or
the pool at 13.5 singletons, or the client per request) needs at most `share` of the host.

A tier under a CPU quota does not cost what the calibration measured without one, so five
settings are chosen again during the run, each from a measurement under the quotas:
retune_paths (the segments, from path ①'s front CPU), retune_segment (③ and ④ each, from a
first pass of its path, and a second where the first moved it by more than SECOND_PASS_US), retune (the wait, from T(①) and a singleton probe), retune_request (the build, from a probe of that run) and retune_pool (the pool
run's Invoker CPU, from a probe of it); fit/tohost.py runs them.

design() is the rule (data in, profile out: unit-tested); apply() puts a profile into the runs.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

POOL_SIZE = 32                 # pre-built clients: more than the front lets through at once
# users of the segment paths ①-④: a tier under a CPU quota runs a share of every 100 ms period
# and then waits for the next, so a request's time there grows by tens of ms and the front's
# quota is only reached with some hundreds of requests in flight (Little's law: N = X·R)
SEGMENT_USERS = (16, 32, 64, 128, 256, 512)
SEGMENT_USERS_QUICK = (64, 512)
SEGMENT_PROBED = (3, 4)        # the segments whose emulated CPU a first pass of their path chooses again (retune_segment)
SEGMENT_PLATEAU = 0.9          # a path's steps at this share of its best or above: its plateau, the front at its quota
# a first pass that moves its segment's demand by more than this is run again with the new demand
# and the demand chosen once more from it: a µs of spin taken out of path ③ lowered its front CPU
# a request by 1.06-1.55 µs in five runs (the rule assumes 1; T(③) read 2.30 and 2.34 against
# 1.85 where it was largest), so each pass leaves (1 − slope) of the error; one pass's noise is
# about ±30 µs (path ④'s first passes against their paths), below which a second pass would
# only add its own
SECOND_PASS_US = 30
NAME = "classic-system"
MIN_QUOTA = 0.1                # cores: below this a CFS quota (100 ms periods) throttles in coarse bursts
# the pool may use this share of the clone's quota, as the calibration measured its clone CPU
# (the front's quota holds it); under a quota the clone used 1.9 times that per call here
CLONE_SHARE = 0.35
# at least this share of segment ①'s cost is emulated CPU: this stack's own static page costs
# less per request the more requests are in flight (48 µs at 16 users, 39 µs at 512 under the
# front's quota here), and an emulated cost does not move, so T(①) and every path relative to
# it come out as planned
SEGMENT_ONE_EMULATED = 0.8
PROBE_PRIME_S = 30.0           # the probes' prime: /seg/5's JVMs are cold before them (docs/predict.md: 30 s)
REQUEST_PROBE_PRIME_S = 60.0   # a clone building a client per call under its quota kept speeding up for a
                               # minute: a probe 30 s after its restart read 94/s, the run with the same
                               # build and users 139/s at its last step, ~60 s after its own restart


def published() -> dict:
    from analysis.classic import PUBLISHED
    return PUBLISHED


@dataclass(frozen=True)
class Measured:
    """This stack's own costs on this host (a calibration without demands, wait or quotas).

    front_s -- path k -> the front's CPU-seconds per request on /seg/k (k = 1..5)
    total_s -- path k -> every process's CPU-seconds per request (stack and Locust), k = 1, 5
    clone_request_s, total_request_s -- the clone's and every process's CPU-seconds per /seg/5
        request with a client per request
    clone_pool_s, total_pool_s -- the same with a pool of clients
    round_trip_s -- one singleton call without a service wait at its plateau (1/X): the lock's
        own time beside the wait (an upper bound)
    host_cores, background_cores -- the host, and what other programs used meanwhile
    request_rate -- the client per request's calibration throughput (the first point of its
        clone CPU against its rate, retune_request)
    """
    front_s: dict[int, float]
    total_s: dict[int, float]
    clone_request_s: float
    total_request_s: float
    clone_pool_s: float
    total_pool_s: float
    round_trip_s: float
    host_cores: float
    background_cores: float = 0.0
    request_rate: float = 0.0       # the client per request's calibration throughput (/s)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Profile:
    t1: float                       # the T(①) the front's quota gives, /s
    singleton: float                # the singleton's rate it aims at, /s
    wait_us: int
    demands_cpu_us: dict[str, int]  # SEG1, SEG2, SEG3, SEG4, INVOKER -> µs of CPU per request
    request_cpu_us: int             # the client per request's emulated build cost (CLONE, that run only)
    quotas: dict[str, float]        # front, clone -> cores per replica
    pool_size: int
    share: float
    binding: str                    # which configuration set T(1)
    expected: dict[str, float] = field(default_factory=dict)   # normalized figures aimed at
    notes: list[str] = field(default_factory=list)             # what it cannot match, and why
    measured: Measured | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        d["name"] = NAME
        return d

    def sentence(self) -> str:
        d = self.demands_cpu_us
        return (f"profile {NAME} (emulated): front quota {self.quotas['front']:.2f} core (T(①) {self.t1:,.0f}/s), "
                f"clone quota {self.quotas['clone']:.2f} core per replica, CPU per request added: every path "
                f"{d.get('SEG1', 0)} µs, JSP {d['SEG2']} µs, access bean {d['SEG3']} µs, session bean {d['SEG4']} µs, Invoker {d['INVOKER']} µs, "
                f"a client per request's build {self.request_cpu_us} µs on the clone; "
                f"service wait {self.wait_us / 1000:g} ms (singleton {self.singleton:.1f}/s); pool of {self.pool_size}; "
                f"T(①) set by {self.binding} at {self.share:.0%} of the host")


def design(m: Measured, share: float = 0.6) -> Profile:
    """The profile for this host (see the module docstring)."""
    pub = published()
    paths, fix = pub["paths"], pub["fix"]
    single, request = pub["singleton_clones"][1], pub["request"][1]
    f1 = m.front_s[1]
    # segment ①'s cost F(1): path k adds front_s[k] - front_s[1] to it, where the shape allows
    # F(1)·(T(1)/T(1..k) - 1): the JSP 2 % of the static page (812/795), the front's side of
    # ⑤ 7.12 static pages (812/100). Where this stack's segment costs more than that (its
    # Invoker's HTTP call does), F(1) is raised (SEG1) until no later segment costs more than it may
    f1_shape = max([f1 / (1.0 - SEGMENT_ONE_EMULATED)]
                   + [(m.front_s[k] - f1) / (r - 1.0) for k, r in _ratios().items() if r > 1.0])
    seg1 = f1_shape - f1
    notes, demand = [], {"SEG1": max(int(round(seg1 * 1e6)), 0), **_segments(m.front_s, f1_shape)}
    added = sum(demand.values()) / 1e6
    ratio_fix, ratio_req = fix / single, request / single          # 13.5, 2.97 singletons
    per_t1 = single / paths[1]                                     # the singleton, in units of T(1)
    # the clone: the pool at CLONE_SHARE of its quota; a client per request held by the quota at
    # ratio_req singletons once its build costs (R + c) = ratio_fix/ratio_req · P / CLONE_SHARE
    build = ratio_fix / ratio_req * m.clone_pool_s / CLONE_SHARE - m.clone_request_s
    if build < 0:
        notes.append(f"a client per request already costs {m.clone_request_s * 1e3:.1f} ms of clone CPU, more than "
                     f"the {(build + m.clone_request_s) * 1e3:.1f} ms the shape asks; nothing added")
    build = max(build, 0.0)
    heavy = {"path ① at T(①)": m.total_s[1] + seg1,
             f"the pool at {ratio_fix:.1f} singletons": ratio_fix * per_t1 * (m.total_pool_s + added),
             f"a client per request at {ratio_req:.2f} singletons":
                 ratio_req * per_t1 * (m.total_request_s + added + build)}
    free = max(m.host_cores - m.background_cores, 0.25 * m.host_cores)
    binding = max(heavy, key=heavy.get)
    t1 = share * free / heavy[binding]
    s = per_t1 * t1
    wait = 1.0 / s - m.round_trip_s
    if wait <= 0:
        notes.append(f"the singleton's own round trip ({m.round_trip_s * 1e3:.1f} ms) is longer than the "
                     f"{1e3 / s:.1f} ms the shape asks: no service wait, T(1..5) will be low")
    wait_us = max(int(math.ceil(wait * 1e3 - 1e-9)) * 1000, 0)
    quotas = {"front": round(max(t1 * f1_shape, MIN_QUOTA), 3),
              "clone": round(max(ratio_fix * s * m.clone_pool_s / CLONE_SHARE, MIN_QUOTA), 3)}
    expected = {f"T(1..{k})/T(1)": paths[k] / paths[1] for k in (2, 3, 4, 5)}
    expected.update({"pool/singleton": ratio_fix, "request/singleton": ratio_req})
    return Profile(t1, s, wait_us, demand, int(round(build * 1e6)), quotas, POOL_SIZE, share, binding,
                   expected, notes, m)


def _ratios() -> dict[int, float]:
    """The front's cost of path k over the static page's, published: T(1)/T(1..k); ⑤: T(1)/fix."""
    pub = published()
    paths = pub["paths"]
    return {**{k: paths[1] / paths[k] for k in (2, 3, 4)}, 5: paths[1] / pub["fix"]}


def _segments(front_s: dict, f1_shape: float) -> dict[str, int]:
    """SEG2..SEG4 and INVOKER (µs) for a segment ① that costs the front f1_shape: the front's CPU
    per request each path must have is F(1)·T(1)/T(1..k) (⑤: F(1)·T(1)/fix), and this stack's
    own segments (front_s[k] - front_s[1]) are in it already; never below zero."""
    own, extra = 0.0, {1: 0.0}
    for k, r in _ratios().items():
        # this stack's own cost of segments ② .. k: a path with more segments costs no less (a
        # calibration that reads the JSP cheaper than the static page reads noise: ±7 µs here)
        own = max(own, front_s[k] - front_s[1])
        extra[k] = f1_shape * (r - 1.0) - own
    return {point: max(int(round((extra[k] - max(extra[k - 1], 0.0)) * 1e6)), 0)
            for k, point in ((2, "SEG2"), (3, "SEG3"), (4, "SEG4"), (5, "INVOKER"))}


def retune_paths(prof: dict, f1_measured: float) -> dict:
    """The segments' emulated CPU again, once path ① ran under the front's quota: segment ①
    cost the front f1_measured a request there (this stack's own part of it is not what the
    calibration measured without the quota), and paths ②-⑤ are set relative to that."""
    front_s = {int(k): v for k, v in prof["measured"]["front_s"].items()}      # JSON keys are text
    demands = {**prof["demands_cpu_us"], **_segments(front_s, f1_measured)}
    return {**prof, "demands_cpu_us": demands,
            "paths_retuned": {"f1_planned_s": front_s[1] + prof["demands_cpu_us"].get("SEG1", 0) / 1e6,
                              "f1_measured_s": f1_measured, "planned": prof["demands_cpu_us"]}}


def retune_segment(prof: dict, k: int, f1_s: float, previous_s: float, probe_s: float) -> dict:
    """Segment k's emulated CPU (③ the access bean, ④ the session bean) again, once a first pass
    of path k measured the front's CPU per request under its quota with the demand in force
    (probe_s): this stack's own part of a segment under the quota is not what the calibration
    read without one (the access bean's lookup and the container's dispatch cost the front
    about 60 µs a request more each at the plateau of classic-20261204-045804 than the
    calibration's 6 and 17 µs). Path k must cost the front what path k-1 did as it ran
    (previous_s, at its plateau) plus the segment's share of the shape, f1_s·(T(1)/T(1..k) −
    T(1)/T(1..k-1)) with f1_s path ①'s cost at its plateau; the demand moves by the difference.
    Returns the profile with it, the figures kept under "segments_retuned"[k]."""
    r = {1: 1.0, **_ratios()}
    point, planned = f"SEG{k}", prof["demands_cpu_us"].get(f"SEG{k}", 0)
    target = previous_s + f1_s * (r[k] - r[k - 1])
    cpu = planned + (target - probe_s) * 1e6
    notes = list(prof.get("notes") or [])
    if cpu < 0:
        notes.append(f"path {k} costs the front {(probe_s - planned / 1e6) * 1e6:.0f} µs a request under its quota "
                     f"without emulated CPU in segment {k}, more than the {target * 1e6:.0f} µs the shape asks; nothing added")
    cpu = max(int(round(cpu)), 0)
    retuned = {"probe_cpu_us": planned, "probe_front_s": probe_s, "previous_s": previous_s, "f1_s": f1_s,
               "target_s": target, "cpu_us": cpu}
    return {**prof, "demands_cpu_us": {**prof["demands_cpu_us"], point: cpu}, "notes": notes,
            "segments_retuned": {**(prof.get("segments_retuned") or {}), str(k): retuned}}


def with_demands(specs, demands: dict[str, int]) -> list:
    """The runs with the front's emulated CPU changed (retune_paths)."""
    for point in ("SEG2", "SEG3", "SEG4", "INVOKER"):
        specs = with_demand(specs, point, _cpu(demands[point]) if demands.get(point) else None)
    return specs


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
    """The run primed at least as long as a probe: its tier restarts for a new demand."""
    return replace(spec, load=replace(spec.load, prime_seconds=max(spec.load.prime_seconds, PROBE_PRIME_S)))


def _cpu(us: int) -> dict:
    """An emulated CPU demand of us µs, outside any lock."""
    return {"cpu_us": us, "wait_us": 0, "locked": False}


def apply(specs, p: Profile, quick: bool = False) -> list:
    """The runs with the profile: every run gets the quotas, the front's demands and the service
    wait (unlocked, in the scaled wait's place); pool runs the profile's pool size; the segment
    paths ①-④, held by the front's quota, SEGMENT_USERS, and in path order (path ① first: the
    runner retunes the wait from T(①) before the first /seg/5 run, tohost.retune_profile; the
    profile's own calibration runs warmed the stack's JVMs before them)."""
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


def retune(prof: dict, t1: float, probe_rate: float) -> dict:
    """The service wait again, once path ① and a singleton probe ran under the profile
    (experiment.json's "profile", as design() made it): the front's quota gave T(①) = t1 (a
    tier under a quota does not cost exactly what it did without one), and the singleton, with
    the wait in force, ran at probe_rate, so its own round trip under the quotas is
    1/probe_rate - wait. The new wait puts the singleton at 7.4/812 of the measured T(①).
    Returns the profile with it, and with what was measured under "retuned"."""
    pub = published()
    target = pub["singleton_clones"][1] / pub["paths"][1] * t1
    round_trip = max(1.0 / probe_rate - prof["wait_us"] / 1e6, 0.0)
    wait = 1.0 / target - round_trip
    notes = list(prof.get("notes") or [])
    if wait <= 0:
        notes.append(f"the singleton's round trip under the quotas ({round_trip * 1e3:.1f} ms) is longer than the "
                     f"{1e3 / target:.1f} ms the measured T(①) asks: no service wait, T(1..5) will be low")
    wait_us = max(int(round(wait * 1e4)) * 100, 0)                  # a parked wait: 0.1 ms steps
    retuned = {"t1_planned": prof["t1"], "t1_measured": t1, "singleton_planned": prof["singleton"],
               "probe_wait_us": prof["wait_us"], "probe_rate": probe_rate, "round_trip_s": round_trip}
    return {**prof, "singleton": target, "wait_us": wait_us, "notes": notes, "retuned": retuned}


def with_wait(specs, wait_us: int) -> list:
    """The runs with the profile's service wait changed (retune)."""
    return with_demand(specs, "SERVICE", {"cpu_us": 0, "wait_us": wait_us, "locked": False},
                       lambda s: "SERVICE" in s.demands)


def probe_spec(run, quick: bool = False, suffix: str = ""):
    """A probe before `run` (path ⑤'s singleton, the client per request, the pool): that run's
    configuration (quotas, demands, wait) and its largest user count (a tier's CPU per request
    under a quota moves with the requests in flight), a calibration's short load after a longer
    prime (longer still for a client per request: see REQUEST_PROBE_PRIME_S). Before paths ③
    and ④ it is a first pass of the path itself: its user steps after a probe's prime, read at
    its plateau like the path it stands for (a one-step probe at the largest load read the front
    cold and at another point: 770/s against the path's 1,120/s in classic-20261204-100321)."""
    from testbed.fit.costs import COST_PROBE_LOAD_QUICK, COST_PROBE_STEP
    if run.kind == "segments" and run.path in SEGMENT_PROBED:        # a first pass of a segment path (retune_segment)
        name = f"calibration-path{run.path}-probe{suffix}"
        return replace(with_prime(run), id=name, entry=name,
                       label=f"calibration: a {'second' if suffix == '-2' else 'first'} pass of /seg/{run.path} under "
                             "the profile's quotas and demands")
    what = {"request": "the client per request", "pool": "the pool"}.get(run.client_mode, "the singleton")
    name = f"calibration-{run.client_mode}-probe{suffix}"
    prime = REQUEST_PROBE_PRIME_S if run.client_mode == "request" else PROBE_PRIME_S   # its JVM as old as at the run's max
    return replace(run, id=name, entry=name,
                   label=f"calibration: /seg/5, {what} under the profile's quotas, demands and wait",
                   load=replace(COST_PROBE_LOAD_QUICK if quick else replace(COST_PROBE_STEP, prime_seconds=prime),
                                users=(max(run.load.users),)))


def probe_specs(runs, quick: bool = False) -> list:
    """The probes the retunes may run for these runs (tohost.retune_before): paths ③ and ④'s
    first and second passes (not with --quick), the singleton's before the first /seg/5 run, the client per request's
    two (one with --quick), the pool's."""
    first = lambda pick: next((r for r in runs if pick(r)), None)      # noqa: E731
    paths = [] if quick else [run for k in SEGMENT_PROBED
                              if (run := first(lambda r, k=k: r.kind == "segments" and r.path == k))]
    out = [probe_spec(run) for run in paths] + [probe_spec(run, suffix="-2") for run in paths]   # at most two passes
    for run, n in ((first(lambda r: r.path == 5), 1), (first(lambda r: r.client_mode == "request"), 1 if quick else 2),
                   (first(lambda r: r.client_mode == "pool"), 1)):
        out += [probe_spec(run, quick, f"-{k}" if k > 1 else "") for k in range(1, n + 1)] if run else []
    return out


def retune_request(prof: dict, clone_per_request_s: float, rate: float = 0.0, other: tuple | None = None) -> dict:
    """A client per request's emulated build again, once a probe of that run measured the
    clone's CPU per call under its quota (clone_per_request_s, the build included, at `rate`
    calls/s): the build that holds it, under the clone's quota, at 22/7.4 of the singleton
    aimed at. A JVM that builds a client per call spends CPU beside the calls (its collector
    above all), so its CPU is a line against its rate, U = a + b·X, through the probe's point and
    `other` ((rate, CPU per call besides the build) measured elsewhere: by default the
    calibration's); the probe's own CPU per call where the two do not give a line (rates within
    20 % of each other, or a line that does not rise). The probe's figures and the line are
    kept under "request_retuned"."""
    pub = published()
    target = pub["request"][1] / pub["singleton_clones"][1] * prof["singleton"]
    own = max(clone_per_request_s - prof["request_cpu_us"] / 1e6, 0.0)
    m = prof.get("measured") or {}
    x_o, own_o = other or (m.get("request_rate") or 0.0, m.get("clone_request_s") or 0.0)
    per_call, line, x_p = own, None, rate
    if x_p > 0 and x_o > 0 and max(x_o, x_p) > 1.2 * min(x_o, x_p):
        u_o, u_p = own_o * x_o, own * x_p
        b = (u_o - u_p) / (x_o - x_p)
        a = u_p - b * x_p
        if a >= 0 and b > 0:
            per_call, line = a / target + b, {"a_cores": a, "b_s": b}
    build = prof["quotas"]["clone"] / target - per_call
    notes = list(prof.get("notes") or [])
    if build < 0:
        notes.append(f"a client per request costs {per_call * 1e3:.2f} ms of clone CPU under the clone's quota, more "
                     f"than the {(build + per_call) * 1e3:.2f} ms the shape asks; nothing added")
    retuned = {"probe_build_us": prof["request_cpu_us"], "clone_per_request_s": clone_per_request_s,
               "probe_rate": rate, "own_s": own, "per_call_at_target_s": per_call, "line": line, "target": target}
    if other:
        retuned["other"] = {"rate": x_o, "own_s": own_o}
    return {**prof, "request_cpu_us": max(int(round(build * 1e6)), 0), "notes": notes, "request_retuned": retuned}


def retune_pool(prof: dict, front_per_request_s: float, invoker_us: int) -> tuple[dict, int]:
    """The Invoker's emulated CPU for the pool run, once a probe of it measured the front's CPU
    per /seg/5 request under its quota (front_per_request_s, the demands included, with
    invoker_us of Invoker CPU): the Invoker CPU that holds the pool, under the front's quota,
    at 100/7.4 of the singleton aimed at. Returns the profile (with "pool_retuned") and it."""
    pub = published()
    target = pub["fix"] / pub["singleton_clones"][1] * prof["singleton"]
    own = max(front_per_request_s - invoker_us / 1e6, 0.0)
    invoker = prof["quotas"]["front"] / target - own
    notes = list(prof.get("notes") or [])
    if invoker < 0:
        notes.append(f"the pool's /seg/5 costs the front {own * 1e6:.0f} µs under its quota besides the Invoker's, "
                     f"more than the {(invoker + own) * 1e6:.0f} µs the fix asks; nothing added")
    new = max(int(round(invoker * 1e6)), 0)
    retuned = {"probe_invoker_us": invoker_us, "front_per_request_s": front_per_request_s, "own_s": own,
               "target": target, "invoker_us": new}
    return {**prof, "notes": notes, "pool_retuned": retuned}, new


def with_invoker(specs, invoker_us: int, quick: bool = False) -> list:
    """The pool runs with the Invoker's emulated CPU changed (retune_pool), primed as long as a
    probe (not with --quick): the front restarts for it."""
    return with_demand(specs, "INVOKER", _cpu(invoker_us), lambda s: s.client_mode == "pool", primed=not quick)


def with_build(specs, build_us: int, quick: bool = False) -> list:
    """The client-per-request runs with the emulated build changed (retune_request), primed as
    long as a probe (not with --quick): the clone restarts for it."""
    return with_demand(specs, "CLONE", _cpu(build_us), lambda s: s.client_mode == "request", primed=not quick)


def calibration_specs(first, quick: bool = False) -> list:
    """The runs that measure this stack's own costs: /seg/1 … /seg/5 with the singleton client,
    then /seg/5 with a pool and with a client per request; no demand, no wait, no quota."""
    from testbed.fit.costs import COST_PROBE_LOAD_QUICK, COST_PROBE_STEP
    load = COST_PROBE_LOAD_QUICK if quick else COST_PROBE_STEP
    knobs = {k: v for k, v in first.knobs.items() if not k.startswith("CPUS_")}
    base = replace(first, demands={}, knobs=knobs, auto_wait=False, load=load, client_mode="singleton",
                   pool_size=None, tiers={**first.tiers, "front": 1, "clone": 1, first.backend: 1})
    out = [replace(base, id=f"calibration-path{k}", entry=f"calibration-path{k}", path=k,
                   label=f"calibration: /seg/{k}, the stack's own cost") for k in (1, 2, 3, 4, 5)]
    out.append(replace(base, id="calibration-pool", entry="calibration-pool", path=5, client_mode="pool",
                       pool_size=POOL_SIZE, label="calibration: /seg/5, a pool of clients"))
    out.append(replace(base, id="calibration-request", entry="calibration-request", path=5, client_mode="request",
                       label="calibration: /seg/5, a client per request"))
    return out


def measure(exp, first, folder, run_one, host_cores: float) -> tuple[Measured | None, str]:
    """Run the calibration (run_one(spec, root) as in fit/costs.py) and read what it measured."""
    from testbed.fit import costs
    root = folder / costs.CALIBRATION_DIR
    got = {}
    for spec in calibration_specs(first, exp.quick):
        run_one(spec, root)
        c = costs.of_run(root / spec.id, exp.settings, f"calibration run {spec.id}")
        if c is None or "front" not in c.per_request_s:
            return None, f"calibration run {spec.id} measured no valid step with CPU samples"
        got[spec.id] = c
    paths = {k: got[f"calibration-path{k}"] for k in (1, 2, 3, 4, 5)}
    req, pool = got["calibration-request"], got["calibration-pool"]
    return Measured(front_s={k: c.per_request_s["front"] for k, c in paths.items()},
                    total_s={1: paths[1].total_s, 5: paths[5].total_s},
                    clone_request_s=req.per_request_s.get("clone", 0.0), total_request_s=req.total_s,
                    clone_pool_s=pool.per_request_s.get("clone", 0.0), total_pool_s=pool.total_s,
                    round_trip_s=1.0 / paths[5].throughput, host_cores=host_cores, request_rate=req.throughput,
                    background_cores=sum(c.background_cores for c in got.values()) / len(got)), ""
