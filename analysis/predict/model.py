"""The queueing model of the stack that decides clone scaling, and how it is solved.

    N users ─► think Z ─► CPU outside the lock ─► [ one of L lock servers:      ] ─► latency ─┐
        ▲                                         [ CPU inside + waits inside   ]             │
        └─────────────────────────────────────────────────────────────────────────────────────┘

A closed network: N users, each thinking Z seconds between requests. A request spends CPU on
processor pools (the host's cores, shared by every tier and the load generator; or a tier's own
quota x replicas) outside any lock — Locust, HAProxy, the front, the clone's servlet — then
takes one of the client tier's lock servers: L = clones x 1 for a singleton client, clones x P
for pools of P, none for a client per request. While holding it the request spends CPU inside
the lock (the clone's stub, HAProxy's SOAP hop, the service) and waits (`delay_inside`: the
service's own wait, loopback hops). Requests beyond `concurrency` (the front's threads; the
excess waits in HAProxy's queue) wait before entering. CPU pools are processor sharing: n
requests on c cores each get min(1, c/n) of a core.

Solution, the first that applies (each point says which it used):
1. no lock, or at least as many lock servers as users: a product-form network, solved exactly
   (analysis.predict.network, the convolution algorithm);
2. the lock binds: the Markov chain of the phases (analysis.predict.chain), exact for the
   model, while it has at most chain.MAX_STATES states;
3. otherwise the method of surrogate delays (analysis.predict.surrogate), approximate.
With think time Z > 0 the network without the users' think time is solved for 1 ... N users at
Z = 0, and the users see it as one flow-equivalent station (Norton's theorem) in front of the
think-time delay; with `concurrency` C its rate stays X(C) from C requests on.

Crowding: part of a pool's demand (`crowded`, the per-request clone's build and first call) can
cost more the more requests a clone holds at once: `crowding` gives the factor at some numbers
of requests per clone (the client-build probe's rounds at 2 and 64 threads: 1 and its ratio),
linear between them, held at the first below it and at the last beyond it. With n requests in
the system (the users at zero think time, or the flow-equivalent station's population) each
clone is taken to hold n / clones of them — at zero think time a clone holds nearly all (thread
dumps at 64 users: 60 on the compose stack, 37 on the local one), so this is the upper end — and
the model at n is solved with the crowded demand times that factor (`Model.at`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.special import gammaln, logsumexp

from analysis.predict import chain, network, surrogate
from analysis.predict.chain import Phase

INF = math.inf
EXACT_PF, EXACT_CHAIN, SURROGATE = "product form (exact)", "Markov chain (exact)", "surrogate delays"
FLAT = 1e-6          # X(n) counts as saturated when it moves less than this (relative) per user


@dataclass(frozen=True)
class Model:
    """pools -- CPU pool -> cores; outside / inside -- pool -> seconds of CPU per request
    outside / inside the lock; delay_inside / delay_outside -- seconds of pure waiting per
    request inside / outside the lock; lock_servers -- holders of the client tier's locks in
    all (inf: no lock), in one queue; clones -- the client tier's replicas they are on (the
    simulation can give each its own queue, as HAProxy's leastconn does: simulate.py);
    think_time -- Z, s; concurrency -- requests admitted at once (inf: no cap); crowded -- pool ->
    the part of its outside demand that grows with the requests a clone holds, by `crowding`'s
    ((requests per clone, factor), ...) points (the module docstring)."""

    pools: dict[str, float]
    outside: dict[str, float]
    inside: dict[str, float] = field(default_factory=dict)
    delay_inside: float = 0.0
    delay_outside: float = 0.0
    lock_servers: float = INF
    clones: int = 1
    think_time: float = 0.0
    concurrency: float = INF
    crowded: dict[str, float] = field(default_factory=dict)
    crowding: tuple[tuple[float, float], ...] = ()

    def __post_init__(self):
        for name, d in (*self.outside.items(), *self.inside.items()):
            if name not in self.pools:
                raise ValueError(f"CPU demand on pool {name!r}, which the model does not have")
            if not d >= 0:
                raise ValueError(f"CPU demand on {name} must be >= 0 (got {d})")
        for name, c in self.pools.items():
            if not c > 0:
                raise ValueError(f"pool {name}: cores must be > 0 (got {c})")
        if not (self.lock_servers >= 1 and self.concurrency >= 1 and self.think_time >= 0
                and self.delay_inside >= 0 and self.delay_outside >= 0 and self.clones >= 1):
            raise ValueError("lock servers, clones and concurrency must be >= 1, times >= 0")
        object.__setattr__(self, "crowding", tuple(sorted((float(q), float(f)) for q, f in self.crowding)))
        for name, d in self.crowded.items():
            if not 0 <= d <= self.outside.get(name, 0.0):
                raise ValueError(f"crowded demand on {name} must be within its outside demand (got {d})")
        if any(q < 0 or f <= 0 for q, f in self.crowding):
            raise ValueError(f"crowding points must be (requests >= 0, factor > 0), not {self.crowding}")

    def factor(self, n: float) -> float:
        """The crowded demand's factor with n requests in the system (n / clones per clone)."""
        return crowding_factor(self.crowding, n / self.clones)

    def at(self, n: float) -> "Model":
        """The model with n requests in the system: its crowded demand at their factor."""
        if not self.crowded or not self.crowding:
            return self
        f = self.factor(n)
        outside = {p: d + self.crowded.get(p, 0.0) * (f - 1.0) for p, d in self.outside.items()}
        return replace(self, outside=outside, crowded={}, crowding=())

    def demand(self, pool: str) -> float:
        return self.outside.get(pool, 0.0) + self.inside.get(pool, 0.0)

    def phases(self) -> list[Phase]:
        """The cycle of one request, think time first (zero-length phases left out)."""
        locked = self.lock_servers != INF
        ph = [Phase("think", "delay", self.think_time)]
        ph += [Phase(f"cpu:{p}:out", "cpu", d, p) for p, d in self.outside.items()]
        ph += [Phase(f"cpu:{p}:in", "cpu", d, p, locked) for p, d in self.inside.items()]
        ph += [Phase("wait:in", "delay", self.delay_inside, None, locked),
               Phase("latency:out", "delay", self.delay_outside)]
        return [p for p in ph if p.mean > 0]

    def hold_time_alone(self) -> float:
        """The lock's holding time with no queueing for the CPU: waits + CPU inside."""
        return self.delay_inside + sum(self.inside.values())


def crowding_factor(points, q: float) -> float:
    """The factor at q requests per clone from ((requests, factor), ...) sorted: linear between
    two points, the first one's below it, the last one's beyond it; 1 without points."""
    if not points:
        return 1.0
    if q <= points[0][0]:
        return points[0][1]
    for (q0, f0), (q1, f1) in zip(points, points[1:]):
        if q <= q1:
            return f0 + (f1 - f0) * (q - q0) / (q1 - q0) if q1 > q0 else f1
    return points[-1][1]


@dataclass(frozen=True)
class Point:
    """The model's answer at one population."""

    users: int
    throughput: float
    response_time: float                 # s, think time excluded
    utilisation: dict[str, float]        # "cpu:<pool>" and "lock" -> fraction of capacity
    lock_hold: float | None              # s per request holding the lock (None: no lock)
    lock_wait: float | None              # s per request waiting for it
    bottleneck: str                      # the resource with the highest demand utilisation
    method: str

    def to_json(self) -> dict:
        return {"users": self.users, "throughput": self.throughput, "response_time": self.response_time,
                "utilisation": dict(self.utilisation), "lock_hold": self.lock_hold,
                "lock_wait": self.lock_wait, "bottleneck": self.bottleneck, "method": self.method}


def _bottleneck(m: Model, x: float) -> tuple[dict[str, float], str]:
    """Utilisations, and the resource whose demand (no queueing counted) uses most of it."""
    util = {f"cpu:{p}": x * m.demand(p) / c for p, c in m.pools.items()}
    own = dict(util)
    if m.lock_servers != INF:
        own["lock"] = x * m.hold_time_alone() / m.lock_servers
    best = max(own, key=own.get) if own else "none"
    return util, best


def _inner(m: Model, n: int) -> tuple[float, float | None, float | None, str]:
    """(X, lock hold, lock wait, method) with n requests in the system and no think time."""
    m = m.at(n)
    lock = m.lock_servers != INF
    phases = m.phases()
    if not lock or m.lock_servers >= n:
        x, res = _product_form(m, phases, n)
        hold = sum(res[p.name] for p in phases if p.locked) if lock else None
        return x, hold, (0.0 if lock else None), EXACT_PF
    try:
        x, counts, waiting, _, _ = chain.solve_chain(phases, m.pools, n, m.lock_servers)
        hold = sum(counts[p.name] for p in phases if p.locked) / x
        return x, hold, waiting / x, EXACT_CHAIN
    except chain.TooLarge:
        x, hold, wait = surrogate.solve(m, n)
        return x, hold, wait, SURROGATE


def _product_form(m: Model, phases: list[Phase], n: int) -> tuple[float, dict[str, float]]:
    """X and the residence time of every phase (CPU phases share their pool's residence in
    proportion to their demand, as under processor sharing)."""
    stations = [network.Station(p.name, p.mean, INF) for p in phases if p.kind == "delay"]
    stations += [network.Station(f"pool:{pool}", m.demand(pool), c) for pool, c in m.pools.items()]
    sol = network.solve(stations, n)
    res = {}
    for p in phases:
        if p.kind == "delay":
            res[p.name] = sol.residence[p.name]
        else:
            res[p.name] = sol.residence[f"pool:{p.pool}"] * p.mean / m.demand(p.pool)
    return sol.throughput, res


def solve_model(m: Model, users: int) -> Point:
    """Throughput, response time, utilisations and the bottleneck at `users` users."""
    if users < 1:
        raise ValueError(f"users must be >= 1 (got {users})")
    inner = replace(m, think_time=0.0)
    cap = int(min(m.concurrency, users))
    if m.think_time == 0:
        x, hold, wait, method = _inner(inner, cap)
    else:
        rates, last = [], None
        for n in range(1, cap + 1):
            if last and len(rates) >= 3 and abs(rates[-1] - rates[-2]) <= FLAT * rates[-1]:
                break                              # saturated: X(n) stays where it is
            last = _inner(inner, n)
            rates.append(last[0])
        x = _fes_throughput(rates, m.think_time, users)
        _, hold, wait, method = last
        method += " + flow-equivalent think time"
        # requests at the lock scale with the load the think time lets through
        if hold is not None:
            hold, wait = _at_throughput(inner, x, cap)
    util, bottleneck = _bottleneck(m.at(cap), x)
    if m.lock_servers != INF and hold is not None:
        util["lock"] = x * hold / m.lock_servers
    return Point(users, x, users / x - m.think_time, util, hold, wait, bottleneck, method)


def _at_throughput(m: Model, x: float, cap: int) -> tuple[float | None, float | None]:
    """Lock hold and wait of the closed network without think time whose throughput is
    nearest x (the state the think-time network is in, on average)."""
    best = None
    for n in range(1, cap + 1):
        xn, hold, wait, _ = _inner(m, n)
        if best is None or abs(xn - x) < abs(best[0] - x):
            best = (xn, hold, wait)
        if xn >= x:
            break
    return best[1], best[2]


def _fes_throughput(rates: list[float], z: float, n: int) -> float:
    """Closed network of a think-time delay z and a station serving at rates[min(j, len) - 1]
    with j requests in it: X(n) = G(n-1)/G(n), in logarithms."""
    cap = len(rates)
    log_rates = np.log(np.array([rates[min(i, cap) - 1] for i in range(1, n + 1)]))
    log_fes = -np.concatenate(([0.0], np.cumsum(log_rates)))

    def log_g(pop: int) -> float:
        j = np.arange(pop + 1)
        return float(logsumexp(log_fes[j] + (pop - j) * math.log(z) - gammaln(pop - j + 1)))
    return math.exp(log_g(n - 1) - log_g(n))
