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

A tier under a CPU quota does not cost what the cost probes measured without one, so five
settings are chosen again during the run, each from a measurement under the quotas: next_paths
(the segments, from path ①'s front CPU), next_segment (③ and ④ each, from a pass of its path),
next_wait (the wait, from T(①) and a singleton probe), next_build (a client per request's build,
from a probe of that run) and next_invoker (the pool run's Invoker CPU, from a probe of it).

This module is the arithmetic: design() and the next_* functions take figures and return
settings (no I/O; unit-tested). fit/rewrite.py puts them into the runs, fit/probes.py plans and
reads the runs that measure, and fit/tohost.py, the runner's side, runs those and retunes.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

POOL_SIZE = 32                 # pre-built clients: more than the front lets through at once
NAME = "classic-system"
MIN_QUOTA = 0.1                # cores: below this a CFS quota (100 ms periods) throttles in coarse bursts
# the pool may use this share of the clone's quota, as the cost probes measured its clone CPU
# (the front's quota holds it); under a quota the clone used 1.9 times that per call here
CLONE_SHARE = 0.35
# at least this share of segment ①'s cost is emulated CPU: this stack's own static page costs
# less per request the more requests are in flight (48 µs at 16 users, 39 µs at 512 under the
# front's quota here), and an emulated cost does not move, so T(①) and every path relative to
# it come out as planned
SEGMENT_ONE_EMULATED = 0.8


def published() -> dict:
    from analysis.judge.classic import PUBLISHED
    return PUBLISHED


@dataclass(frozen=True)
class Measured:
    """This stack's own costs on this host (its cost probes: no demands, wait or quotas).

    front_s -- path k -> the front's CPU-seconds per request on /seg/k (k = 1..5)
    total_s -- path k -> every process's CPU-seconds per request (stack and Locust), k = 1, 5
    clone_request_s, total_request_s -- the clone's and every process's CPU-seconds per /seg/5
        request with a client per request
    clone_pool_s, total_pool_s -- the same with a pool of clients
    round_trip_s -- one singleton call without a service wait at its plateau (1/X): the lock's
        own time beside the wait (an upper bound)
    host_cores, background_cores -- the host, and what other programs used meanwhile
    request_rate -- the client per request's throughput in its cost probe (the first point of
        its clone CPU against its rate, next_build)
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
    request_rate: float = 0.0       # the client per request's throughput in its cost probe (/s)

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
        # cost probe that reads the JSP cheaper than the static page reads noise: ±7 µs here)
        own = max(own, front_s[k] - front_s[1])
        extra[k] = f1_shape * (r - 1.0) - own
    return {point: max(int(round((extra[k] - max(extra[k - 1], 0.0)) * 1e6)), 0)
            for k, point in ((2, "SEG2"), (3, "SEG3"), (4, "SEG4"), (5, "INVOKER"))}


def next_paths(prof: dict, f1_measured: float) -> dict:
    """The segments' emulated CPU again, once path ① ran under the front's quota: segment ①
    cost the front f1_measured a request there (this stack's own part of it is not what the
    cost probes measured without the quota), and paths ②-⑤ are set relative to that.
    Returns the profile with them, the figures kept under "paths_retuned"."""
    front_s = {int(k): v for k, v in prof["measured"]["front_s"].items()}      # JSON keys are text
    demands = {**prof["demands_cpu_us"], **_segments(front_s, f1_measured)}
    return {**prof, "demands_cpu_us": demands,
            "paths_retuned": {"f1_planned_s": front_s[1] + prof["demands_cpu_us"].get("SEG1", 0) / 1e6,
                              "f1_measured_s": f1_measured, "planned": prof["demands_cpu_us"]}}


def next_segment(prof: dict, k: int, f1_s: float, previous_s: float, probe_s: float) -> dict:
    """Segment k's emulated CPU (③ the access bean, ④ the session bean) again, once a first pass
    of path k measured the front's CPU per request under its quota with the demand in force
    (probe_s): this stack's own part of a segment under the quota is not what the cost probes
    read without one (the access bean's lookup and the container's dispatch cost the front
    about 60 µs a request more each at the plateau of classic-20261204-045804 than the cost
    probes' 6 and 17 µs). Path k must cost the front what path k-1 did as it ran
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


def next_wait(prof: dict, t1: float, probe_rate: float) -> dict:
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


def next_build(prof: dict, clone_per_request_s: float, rate: float = 0.0, other: tuple | None = None) -> dict:
    """A client per request's emulated build again, once a probe of that run measured the
    clone's CPU per call under its quota (clone_per_request_s, the build included, at `rate`
    calls/s): the build that holds it, under the clone's quota, at 22/7.4 of the singleton
    aimed at. A JVM that builds a client per call spends CPU beside the calls (its collector
    above all), so its CPU is a line against its rate, U = a + b·X, through the probe's point and
    `other` ((rate, CPU per call besides the build) measured elsewhere: by default the cost
    probes'); the probe's own CPU per call where the two do not give a line (rates within
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


def next_invoker(prof: dict, front_per_request_s: float, invoker_us: int) -> tuple[dict, int]:
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
