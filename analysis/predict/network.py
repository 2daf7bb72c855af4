"""Exact solution of a closed, single-class, product-form queueing network: users cycling
through delay stations (think time, latencies) and queueing stations with one or more servers
(a CPU of c cores under processor sharing, a lock of m holders), by the convolution algorithm
(Buzen 1973) in logarithms.

A station with c servers and demand D (seconds of service per request) serves j requests at
rate min(j, c)/D; c = inf is a delay (every request served at once). The normalising constant
G(n) = sum over states of prod_k f_k(j_k), f_k(j) = D_k^j / prod_{i<=j} min(i, c_k), is built
by convolving the stations' f_k; throughput X(n) = G(n-1)/G(n), and the marginal queue length
of station k is p_k(j) = f_k(j) G_-k(n-j) / G(n) (G_-k: the network without k). Working with
log f and log G keeps it finite for any population (think times of minutes, thousands of
users). The answers are those of exact MVA (Reiser & Lavenberg 1980) with load-dependent
stations; tests check it against published textbook cases.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp

INF = math.inf


@dataclass(frozen=True)
class Station:
    """name -- what it is; demand -- seconds of service per request (visits x service time);
    servers -- parallel servers (cores, lock holders); inf for a delay."""

    name: str
    demand: float
    servers: float = 1.0

    def __post_init__(self):
        if not self.demand >= 0 or not self.servers > 0:
            raise ValueError(f"station {self.name}: demand must be >= 0 and servers > 0 "
                             f"(got {self.demand}, {self.servers})")


@dataclass(frozen=True)
class Solution:
    users: int
    throughput: float                   # requests/s
    response_time: float                # s, think time excluded
    queue: dict[str, float]             # mean requests at each station (in service or waiting)
    residence: dict[str, float]         # s per request at each station (queue / throughput)
    busy: dict[str, float]              # mean busy servers: throughput x demand

    def utilisation(self, st: Station) -> float:
        return self.busy[st.name] / st.servers if st.servers != INF else 0.0


def log_f(st: Station, n: int) -> np.ndarray:
    """log f(j), j = 0..n, of one station."""
    j = np.arange(n + 1, dtype=float)
    if st.demand == 0:
        out = np.full(n + 1, -np.inf)
        out[0] = 0.0
        return out
    if st.servers == INF:
        return j * math.log(st.demand) - gammaln(j + 1)
    c = st.servers
    # log prod_{i=1..j} min(i, c): log j! below c, then log(c) for each step above it
    rates = np.log(np.minimum(np.arange(1, n + 1, dtype=float), c))
    return j * math.log(st.demand) - np.concatenate(([0.0], np.cumsum(rates)))


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log of the convolution of exp(a) and exp(b), both of length n + 1."""
    n = len(a) - 1
    idx = np.arange(n + 1)
    diff = idx[:, None] - idx[None, :]          # n - j
    terms = np.where(diff >= 0, a[None, :] + b[np.clip(diff, 0, n)], -np.inf)
    return logsumexp(terms, axis=1)


def solve(stations: list[Station], users: int) -> Solution:
    """The exact mean values at population `users` (>= 1)."""
    if users < 1:
        raise ValueError(f"users must be >= 1 (got {users})")
    active = [s for s in stations if s.demand > 0]
    if not active:
        raise ValueError("the network has no station with a demand")
    fs = [log_f(s, users) for s in active]
    prefix = [None] * len(fs)
    acc = None
    for i, f in enumerate(fs):
        prefix[i] = acc
        acc = f if acc is None else _conv(acc, f)
    log_g = acc
    x = math.exp(log_g[users - 1] - log_g[users])
    suffix = None
    queue, residence, busy = {}, {}, {}
    for i in range(len(fs) - 1, -1, -1):
        others = prefix[i] if suffix is None else (suffix if prefix[i] is None else _conv(prefix[i], suffix))
        st = active[i]
        if others is None:                       # the only station: it holds every request
            q = float(users)
        else:
            j = np.arange(users + 1)
            logp = fs[i] + others[users - j] - log_g[users]
            q = float(np.sum(j * np.exp(logp)))
        queue[st.name], residence[st.name], busy[st.name] = q, q / x, x * st.demand
        suffix = fs[i] if suffix is None else _conv(fs[i], suffix)
    for s in stations:
        if s.demand == 0:
            queue[s.name], residence[s.name], busy[s.name] = 0.0, 0.0, 0.0
    think = sum(residence[s.name] for s in stations if s.name == THINK)
    return Solution(users, x, users / x - think, queue, residence, busy)


THINK = "think"
