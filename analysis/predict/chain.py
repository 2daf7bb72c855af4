"""The model's exact solution as a continuous-time Markov chain, where it is small enough.

A request cycles through phases — pure delays (think time, latencies: every request served at
once) and CPU work on processor-sharing pools of c cores — and holds one of L lock servers over
a contiguous block of them. With exponential phase times the state is the number of requests
in each phase (the requests waiting for the lock are the rest), and the chain's stationary
distribution gives throughput, response time, lock holding and waiting, and utilisations
exactly: no approximation beyond the model's own (exponential times, one queue for all L lock
servers). The state count grows like N x L^2 for one CPU phase per side of the lock; above
`MAX_STATES` the caller falls back to the surrogate-delay solution (analysis.predict.model).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, identity
from scipy.sparse.linalg import splu

MAX_STATES = 150_000
INF = math.inf


@dataclass(frozen=True)
class Phase:
    """kind -- "delay" or "cpu"; mean -- seconds (CPU: of one core); pool -- the CPU pool;
    locked -- inside the lock (the locked phases form one contiguous block of the cycle)."""

    name: str
    kind: str
    mean: float
    pool: str | None = None
    locked: bool = False


class TooLarge(ValueError):
    """The chain would have more than MAX_STATES states."""


def count_states(n_phases: int, locked: int, users: int, lock_servers: float) -> int:
    """States of the chain: compositions of at most `users` over the phases, at most
    `lock_servers` of them in the locked phases (estimate used before building it)."""
    free = n_phases - locked
    total = 0
    top = int(min(users, lock_servers))
    for h in range(top + 1):
        in_lock = math.comb(h + locked - 1, locked - 1) if locked else (1 if h == 0 else 0)
        rest = users - h
        outside = math.comb(rest + free, free) if free else 1
        total += in_lock * outside
    return total


def _stationary(q) -> np.ndarray:
    """pi with pi Q = 0, sum 1: inverse iteration with Q^T shifted a hair off its zero
    eigenvalue (one sparse LU, no dense normalising row to fill it; a few solves)."""
    n = q.shape[0]
    if n == 1:
        return np.ones(1)
    shift = 1e-10 * float(abs(q.diagonal()).max())
    lu = splu((q.T - shift * identity(n, format="csc")).tocsc(), permc_spec="COLAMD")
    pi = np.full(n, 1.0 / n)
    for _ in range(4):
        nxt = np.abs(lu.solve(pi))
        nxt /= nxt.sum()
        if np.abs(nxt - pi).max() < 1e-13:
            pi = nxt
            break
        pi = nxt
    return pi


def solve_chain(phases: list[Phase], pools: dict[str, float], users: int, lock_servers: float):
    """(throughput, mean count per phase, mean waiting for the lock, busy cores per pool)."""
    phases = [p for p in phases if p.mean > 0]
    locked = [i for i, p in enumerate(phases) if p.locked]
    if locked != list(range(locked[0], locked[-1] + 1)) if locked else False:
        raise ValueError("the locked phases must be contiguous")
    k = len(phases)
    n_states = count_states(k, len(locked), users, lock_servers)
    if n_states > MAX_STATES:
        raise TooLarge(f"{n_states} states (more than {MAX_STATES})")
    first_l, last_l = (locked[0], locked[-1]) if locked else (None, None)
    cap = int(min(lock_servers, users))
    states: list[tuple[int, ...]] = []
    index: dict[tuple[int, ...], int] = {}

    def gen(i: int, left: int, held: int, acc: list[int]):
        if i == k:
            waiting = left
            if waiting > 0 and held < cap:
                return
            if waiting > 0 and not locked:
                return
            t = tuple(acc)
            index[t] = len(states)
            states.append(t)
            return
        top = left if not phases[i].locked else min(left, cap - held)
        for c in range(top + 1):
            acc.append(c)
            gen(i + 1, left - c, held + (c if phases[i].locked else 0), acc)
            acc.pop()

    gen(0, users, 0, [])
    rows, cols, vals = [], [], []
    out_rate = np.zeros(len(states))
    thr = np.zeros(len(states))
    for s_i, s in enumerate(states):
        held = sum(s[i] for i in locked)
        waiting = users - sum(s)
        on_pool: dict[str, int] = {}
        for i, p in enumerate(phases):
            if p.kind == "cpu":
                on_pool[p.pool] = on_pool.get(p.pool, 0) + s[i]
        for i, p in enumerate(phases):
            if s[i] == 0:
                continue
            if p.kind == "cpu":
                rate = s[i] * min(1.0, pools[p.pool] / on_pool[p.pool]) / p.mean
            else:
                rate = s[i] / p.mean
            nxt = list(s)
            nxt[i] -= 1
            j = (i + 1) % k
            if locked and j == first_l and not phases[i].locked:      # asks for the lock
                if held < cap:
                    nxt[j] += 1
                # else: it joins the queue (the rest of the users)
            elif locked and i == last_l:                                # releases it
                nxt[j] += 1
                if waiting > 0:
                    nxt[first_l] += 1
                thr[s_i] += rate
            else:
                nxt[j] += 1
            if not locked and i == k - 1:
                thr[s_i] += rate
            t = index[tuple(nxt)]
            rows.append(s_i)
            cols.append(t)
            vals.append(rate)
            out_rate[s_i] += rate
    n = len(states)
    q = csr_matrix((vals + list(-out_rate), (rows + list(range(n)), cols + list(range(n)))), shape=(n, n))
    pi = _stationary(q)
    pi /= pi.sum()
    arr = np.array(states, dtype=float)
    mean_counts = pi @ arr
    mean_waiting = float(pi @ (users - arr.sum(axis=1)))
    busy = {}
    for pool, cores in pools.items():
        idx = [i for i, p in enumerate(phases) if p.kind == "cpu" and p.pool == pool]
        if idx:
            busy[pool] = float(pi @ np.minimum(arr[:, idx].sum(axis=1), cores))
    x = float(pi @ thr)
    return x, {p.name: float(c) for p, c in zip(phases, mean_counts)}, mean_waiting, busy, n
