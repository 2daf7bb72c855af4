"""The model fitted to the baseline: from measured demands (analysis.predict.baseline_demands) and a
configuration to the model (analysis.predict.model) — the one place that says which measured
figure goes where.

Per request, CPU outside the lock: the load generator, two of HAProxy's three hops (Locust →
front, front → clone), the front, the clone's CPU that its thread did not spend holding the
lock, and the unattributed host CPU. Inside the lock: the clone thread's CPU while it held the
lock (its timer), HAProxy's SOAP hop (a third of its CPU: the three hops carry one request
each) and the service's CPU. Waiting inside the lock: the service's own wait plus a residual
latency (loopback hops, thread wake-ups), fitted so that the model's holding time at the
baseline's user counts equals the measured one; when the holding time measured is shorter
than the model's with no latency at all, the fit goes below zero instead: that much of
HAProxy's and the service's CPU is counted outside the lock (it is not on the call's path —
their JIT, GC, response writing), the total CPU per request unchanged. Waiting outside the lock: the latency left of
a step's cycle time N/X once the measured lock wait, holding time and the model's CPU
residence outside the lock are taken out (the second and last fitted figure). Lock servers: clones x 1
(singleton), clones x P (pool of P), none (client per request). Requests admitted at once: the
front's Tomcat threads x fronts (HAProxy queues the rest). Service replicas share the calls
and add nothing else but their background CPU.

Background CPU: where the baseline's steps resolve a tier's U = U0 + D·X (baseline_demands, cpufit), the
tier's CPU per request above is D, and U0 — per replica of the front, the clone and the service,
once for the others — is taken off its pool's cores before any request is served (a pool of c
cores serves requests with c − ΣU0). Where they do not, U0 = 0 and D = U / X, as before.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from scipy.optimize import brentq

from analysis.predict.baseline_demands import UNATTRIBUTED, Demands
from analysis.predict.model import Model, solve_model

INF = math.inf
MIN_SERVING = 0.1          # a pool's background never takes more than 90 % of its cores
HOPS = 3                   # HAProxy hops per request: web, clones, soap


@dataclass(frozen=True)
class Config:
    """A configuration to predict: replicas of the client tier and the service, the client
    lifecycle, users' think time and CPU cores (None: as measured)."""

    clones: int = 1
    service: int = 1
    fronts: int = 1
    client_mode: str = "singleton"
    pool_size: int | None = None
    think_time: float | None = None
    cores: float | None = None

    def text(self) -> str:
        mode = f"pool of {self.pool_size}" if self.client_mode == "pool" else self.client_mode
        return f"{mode} · clone {self.clones} · service {self.service}" + (
            f" · front {self.fronts}" if self.fronts != 1 else "")

    def replicas(self, tier: str) -> int:
        """Replicas of a tier in this configuration ("service": the backend's); 1 for the
        single processes (HAProxy, the load generator, the unattributed)."""
        return {"front": self.fronts, "clone": self.clones, "service": self.service}.get(tier, 1)

    def lock_servers(self) -> float:
        if self.client_mode == "request":
            return INF
        return self.clones * (self.pool_size or 1 if self.client_mode == "pool" else 1)


@dataclass(frozen=True)
class Fitted:
    """The figures the model takes from the baseline."""

    outside: dict[str, float]       # pool -> s of CPU per request outside the lock
    inside: dict[str, float]        # pool -> s inside
    service_wait: float             # s, the service's configured wait
    residual: float                 # s, fitted latency inside the lock
    pools: dict[str, float]
    threads_front: int
    think_time: float
    notes: tuple[str, ...] = ()
    residual_outside: float = 0.0   # s, fitted latency outside the lock
    inside_fixed: dict[str, float] = field(default_factory=dict)   # the clone thread's own, measured
    background: dict[str, float] = field(default_factory=dict)     # tier -> U0, cores per replica
    tier_pool: dict[str, str] = field(default_factory=dict)        # tier -> its CPU pool
    crowded: dict[str, float] = field(default_factory=dict)        # pool -> s per request by `crowding` (Model)
    crowding: tuple[tuple[float, float], ...] = ()

    def serving_cores(self, cfg: "Config", pools: dict[str, float] | None = None) -> dict[str, float]:
        """Each pool's cores left for requests in configuration cfg: its cores less the tiers'
        background (U0 x the tier's replicas in cfg), never below MIN_SERVING of them."""
        out = dict(pools if pools is not None else self.pools)
        for tier, u0 in self.background.items():
            p = self.tier_pool.get(tier, next(iter(out)))
            out[p] -= u0 * cfg.replicas(tier)
        full = pools if pools is not None else self.pools
        return {p: max(c, MIN_SERVING * full[p]) for p, c in out.items()}

    def around_lock(self) -> tuple[dict[str, float], dict[str, float]]:
        """(outside, inside) CPU per pool as the model uses it: a negative residual moves that
        much of the CPU counted inside the lock — HAProxy's SOAP hop and the service, never
        the clone thread's measured part — to outside it (the share of their CPU that is not
        on the call's path: their JIT, GC and response writing)."""
        if self.residual >= 0:
            return dict(self.outside), dict(self.inside)
        movable = {p: v - self.inside_fixed.get(p, 0.0) for p, v in self.inside.items()}
        total = sum(movable.values())
        share = min(-self.residual, total) / total if total > 0 else 0.0
        inside = {p: self.inside_fixed.get(p, 0.0) + m * (1 - share) for p, m in movable.items()}
        outside = dict(self.outside)
        for p, m in movable.items():
            outside[p] = outside.get(p, 0.0) + m * share
        return outside, inside

    def movable(self) -> float:
        return sum(v - self.inside_fixed.get(p, 0.0) for p, v in self.inside.items())

    def to_json(self) -> dict:
        out, ins = self.around_lock()
        return {"outside_cpu_s": out, "inside_cpu_s": ins, "service_wait_s": self.service_wait,
                "residual_latency_s": self.residual, "residual_outside_s": self.residual_outside, "pools": self.pools, "threads_front": self.threads_front,
                "think_time_s": self.think_time, "notes": list(self.notes), "background_cores": self.background,
                "serving_cores": self.serving_cores(Config())}


def _split(d: Demands) -> tuple[dict[str, float], dict[str, float], list[str], dict[str, float]]:
    cpu = {t: max(e.mean, 0.0) for t, e in d.cpu.items()}
    notes = [f"{t}'s CPU per request measured below zero ({e.mean * 1e3:.3g} ms: other programs' CPU "
             "taken off more than this tier used): counted as 0" for t, e in d.cpu.items() if e.mean < 0]
    clone = cpu.get("clone", 0.0)
    if d.lock_cpu is not None:
        in_clone = min(d.lock_cpu.mean, clone)
    else:
        in_clone = clone / 2
        notes.append("no lock timers: half the clone's CPU counted inside the lock")
    hap = cpu.get("haproxy", 0.0)
    out_t = {"loadgen": cpu.get("loadgen", 0.0), "haproxy": hap * (HOPS - 1) / HOPS, "front": cpu.get("front", 0.0),
             "clone": clone - in_clone, UNATTRIBUTED: cpu.get(UNATTRIBUTED, 0.0)}
    in_t = {"clone": in_clone, "haproxy": hap / HOPS, "service": cpu.get("service", 0.0)}
    outside, inside, fixed = {}, {}, {}
    for t, v in out_t.items():
        p = d.tier_pool.get(t, next(iter(d.pools)))
        outside[p] = outside.get(p, 0.0) + v
    for t, v in in_t.items():
        p = d.tier_pool.get(d.backend if t == "service" else t, next(iter(d.pools)))
        inside[p] = inside.get(p, 0.0) + v
        if t == "clone":
            fixed[p] = fixed.get(p, 0.0) + v
    return outside, inside, notes, fixed


def fit(d: Demands) -> Fitted:
    """The model fitted to the demands: the measured CPU split around the lock, and the residual
    latencies inside and outside it fitted."""
    outside, inside, notes, fixed = _split(d)
    tier_pool = {t: d.tier_pool.get(d.backend if t == "service" else t, next(iter(d.pools))) for t in d.background}
    base = Fitted(outside, inside, d.service_wait_s, 0.0, dict(d.pools), d.threads.get("front", 200),
                      d.think_time_s, tuple(notes), inside_fixed=fixed, background=dict(d.background),
                      tier_pool=tier_pool)
    targets = [(s.users, s.lock_hold) for s in d.steps if s.lock_hold]
    if not targets:                 # no timers: the singleton's plateau is 1 / holding time
        targets = [(s.users, 1.0 / s.throughput) for s in d.steps if s.throughput]
        notes.append("lock holding time taken as 1 / throughput (no lock timers)")
    fitted, inside_notes = base, []
    for _ in range(MAX_ROUNDS):     # the two latencies move each other's CPU queueing a little
        inside, inside_notes = _fit_inside(fitted, targets)
        outside = _fit_outside(replace(fitted, residual=inside), d)
        done = abs(inside - fitted.residual) < 1e-7 and abs(outside - fitted.residual_outside) < 1e-7
        fitted = replace(fitted, residual=inside, residual_outside=outside)
        if done:
            break
    return replace(fitted, notes=tuple(notes + inside_notes))


MAX_ROUNDS = 8


def _fit_inside(c: Fitted, targets: list[tuple[int, float]]) -> tuple[float, list[str]]:
    """The latency inside the lock for which the model's holding time is the measured one
    (median over the steps)."""
    fits, notes = [], []
    floor = -c.movable()
    for users, hold in targets:
        def gap(r: float) -> float:
            return solve_model(model(replace(c, residual=r), Config(), think_time=0.0), users).lock_hold - hold
        lo = gap(floor)
        if lo >= 0:
            fits.append(floor)
            if lo > 0.02 * hold:
                notes.append(f"at {users} users the model's holding time exceeds the measured one "
                             f"({hold * 1e3:.2f} ms) by {lo * 1e3:.2f} ms even with only the clone thread's "
                             "CPU inside the lock")
            continue
        fits.append(brentq(gap, floor, hold, xtol=1e-8))
    fits.sort()
    return fits[len(fits) // 2], notes


def _fit_outside(c: Fitted, d: Demands) -> float:
    """The latency outside the lock: a step's cycle time N/X less the measured wait for the
    lock and holding time is the time outside it; the model's CPU residence there leaves the
    rest. Each step's figure is a small difference of two times that grow with its users (at
    64 users on a singleton a cycle of 2.5 s, whose 1 % is 25 ms), so the steps are weighted
    by 1 / cycle²: their errors grow with the cycle (weighted mean over the steps with timers;
    0 without them)."""
    fits, weights = [], []
    for s in d.steps:
        if not (s.lock_hold and s.lock_wait is not None and s.throughput):
            continue
        cycle = s.users / s.throughput
        weights.append(1.0 / cycle ** 2)
        target = cycle - s.lock_wait - s.lock_hold

        def gap(r: float) -> float:
            p = solve_model(model(replace(c, residual_outside=r), Config(), think_time=0.0), s.users)
            return (p.response_time - p.lock_wait - p.lock_hold) - target
        if target <= 0 or gap(0.0) >= 0:
            fits.append(0.0)
            continue
        hi = target
        while gap(hi) < 0 and hi < 10:
            hi *= 2
        fits.append(brentq(gap, 0.0, hi, xtol=1e-7))
    return sum(f * w for f, w in zip(fits, weights)) / sum(weights) if fits else 0.0


def model(c: Fitted, cfg: Config, think_time: float | None = None, request: Fitted | None = None) -> Model:
    """The model of configuration cfg; a client per request takes its CPU from `request` (its
    own fit: the per-call build cannot be seen in a singleton run)."""
    z = think_time if think_time is not None else (cfg.think_time if cfg.think_time is not None else c.think_time)
    out_cpu, in_cpu = c.around_lock()
    pools = dict(c.pools)
    if cfg.cores is not None:
        pools = {p: cfg.cores if p in ("host", "stack") else v for p, v in pools.items()}
    pools = c.serving_cores(cfg, pools)
    if cfg.client_mode == "request":
        src = request or c
        outside = {p: src.outside.get(p, 0.0) + src.inside.get(p, 0.0) for p in pools}
        return Model(pools, outside, {}, delay_inside=src.service_wait + max(src.residual, 0.0),
                     delay_outside=src.residual_outside, lock_servers=INF, clones=cfg.clones, think_time=z,
                     concurrency=cfg.fronts * c.threads_front, crowded=dict(src.crowded), crowding=src.crowding)
    return Model(pools, out_cpu, in_cpu, delay_inside=c.service_wait + max(c.residual, 0.0),
                 delay_outside=c.residual_outside, lock_servers=cfg.lock_servers(), clones=cfg.clones,
                 think_time=z, concurrency=cfg.fronts * c.threads_front)
