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
import threading
from collections import OrderedDict
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


@dataclass(frozen=True)
class _Structure:
    """What a chain's states and transitions are, apart from its rates: the states (requests per
    phase) and every transition in the order the generator lists them — state by state, phase by
    phase — with the requests it moves from, and those on that phase's pool (CPU phases)."""

    counts: np.ndarray          # states x phases, float
    rows: np.ndarray            # the generator's entries: the transitions, then the diagonal
    cols: np.ndarray
    slot: np.ndarray            # transition -> state x phases + phase (its place in a states x phases table)
    cpu: np.ndarray             # the CPU phases' transitions: their indices, phases, requests, pool's requests
    cpu_phase: np.ndarray
    cpu_count: np.ndarray
    cpu_on: np.ndarray
    delay: np.ndarray           # the delays' transitions: their indices, phases, requests
    delay_phase: np.ndarray
    delay_count: np.ndarray
    done: np.ndarray            # the transitions that complete a request (releasing the lock, or the last phase's)
    done_state: np.ndarray      # the state each of them leaves
    moves: tuple[bool, ...]     # per phase: has it any transition
    waiting: np.ndarray         # per state: requests waiting for the lock
    on_pool: dict[str, np.ndarray]   # pool -> per state: requests on its CPU phases

    @property
    def n(self) -> int:
        return self.counts.shape[0]


CACHE_ENTRIES = 64                 # structures kept (the least recently used goes first) ...
CACHE_STATES = MAX_STATES          # ... and their states in all (~340 bytes a state with 6 phases);
                                   # the newest is always kept
_cache: OrderedDict[tuple, _Structure] = OrderedDict()
_cache_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


def cache_info() -> dict[str, int]:
    """hits, misses, entries and states of the structures cached."""
    with _cache_lock:
        return {**_stats, "entries": len(_cache), "states": sum(s.n for s in _cache.values())}


def cache_clear() -> None:
    with _cache_lock:
        _cache.clear()
        _stats.update(hits=0, misses=0)


def _structure(key: tuple) -> _Structure:
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            _stats["hits"] += 1
            return found
    built = _build(*key)
    with _cache_lock:
        _stats["misses"] += 1
        _cache[key] = built
        total = sum(s.n for s in _cache.values())
        while len(_cache) > 1 and (len(_cache) > CACHE_ENTRIES or total > CACHE_STATES):
            total -= _cache.popitem(last=False)[1].n
    return built


def _build(shape: tuple[tuple[bool, str | None, bool], ...], users: int, cap: int) -> _Structure:
    """The structure of the chain of phases `shape` ((CPU?, its pool, locked?) each), `users`
    requests and `cap` lock servers usable."""
    k = len(shape)
    locked = [i for i, (_, _, lk) in enumerate(shape) if lk]
    first_l, last_l = (locked[0], locked[-1]) if locked else (None, None)
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
        top = left if not shape[i][2] else min(left, cap - held)
        for c in range(top + 1):
            acc.append(c)
            gen(i + 1, left - c, held + (c if shape[i][2] else 0), acc)
            acc.pop()

    gen(0, users, 0, [])
    rows, cols, phase, count, on, done = [], [], [], [], [], []
    for s_i, s in enumerate(states):
        held = sum(s[i] for i in locked)
        waiting = users - sum(s)
        on_pool: dict[str, int] = {}
        for i, (cpu, pool, _) in enumerate(shape):
            if cpu:
                on_pool[pool] = on_pool.get(pool, 0) + s[i]
        for i, (cpu, pool, in_lock) in enumerate(shape):
            if s[i] == 0:
                continue
            nxt = list(s)
            nxt[i] -= 1
            j = (i + 1) % k
            if locked and j == first_l and not in_lock:                  # asks for the lock
                if held < cap:
                    nxt[j] += 1
                # else: it joins the queue (the rest of the users)
            elif locked and i == last_l:                                  # releases it
                nxt[j] += 1
                if waiting > 0:
                    nxt[first_l] += 1
                done.append(len(rows))
            else:
                nxt[j] += 1
            if not locked and i == k - 1:
                done.append(len(rows))
            rows.append(s_i)
            cols.append(index[tuple(nxt)])
            phase.append(i)
            count.append(s[i])
            on.append(on_pool[pool] if cpu else 0)
    n = len(states)
    counts = np.array(states, dtype=float).reshape(n, k)
    phase_a, rows_a = np.array(phase, dtype=np.intp), np.array(rows, dtype=np.intp)
    count_a, on_a = np.array(count, dtype=float), np.array(on, dtype=float)
    is_cpu = np.array([shape[i][0] for i in phase], dtype=bool)
    cpu, delay = np.flatnonzero(is_cpu), np.flatnonzero(~is_cpu)
    done_a = np.array(done, dtype=np.intp)
    pools = {pool for cpu_, pool, _ in shape if cpu_}
    moving = set(phase)
    on_pool_a = {pool: counts[:, [i for i, (c, p, _) in enumerate(shape) if c and p == pool]].sum(axis=1)
                 for pool in pools}
    out = _Structure(
        counts=counts, rows=np.concatenate([rows_a, np.arange(n)]),
        cols=np.concatenate([np.array(cols, dtype=np.intp), np.arange(n)]), slot=rows_a * k + phase_a,
        cpu=cpu, cpu_phase=phase_a[cpu], cpu_count=count_a[cpu], cpu_on=on_a[cpu],
        delay=delay, delay_phase=phase_a[delay], delay_count=count_a[delay],
        done=done_a, done_state=rows_a[done_a], moves=tuple(i in moving for i in range(k)),
        waiting=users - counts.sum(axis=1), on_pool=on_pool_a)
    for a in (out.counts, out.rows, out.cols, out.slot, out.cpu, out.cpu_phase, out.cpu_count, out.cpu_on,
              out.delay, out.delay_phase, out.delay_count, out.done, out.done_state, out.waiting,
              *out.on_pool.values()):
        a.setflags(write=False)
    return out


def solve_chain(phases: list[Phase], pools: dict[str, float], users: int, lock_servers: float):
    """(throughput, mean count per phase, mean waiting for the lock, busy cores per pool, states).

    The states and transitions depend only on the phases' kinds, pools and locks, the users and
    the lock servers: they are built once per such structure (`_structure`, cached) and each
    call computes its rates from them with the same floating-point operations, in the same
    order, as a loop over the states would: rate = requests x min(1, cores / requests on the
    pool) / mean for a CPU phase, requests / mean for a delay; a state's total rate out summed
    phase by phase."""
    phases = [p for p in phases if p.mean > 0]
    locked = [i for i, p in enumerate(phases) if p.locked]
    if locked != list(range(locked[0], locked[-1] + 1)) if locked else False:
        raise ValueError("the locked phases must be contiguous")
    k = len(phases)
    n_states = count_states(k, len(locked), users, lock_servers)
    if n_states > MAX_STATES:
        raise TooLarge(f"{n_states} states (more than {MAX_STATES})")
    cap = int(min(lock_servers, users))
    shape = tuple((p.kind == "cpu", p.pool if p.kind == "cpu" else None, bool(p.locked)) for p in phases)
    st = _structure((shape, users, cap))
    n = st.n
    means = np.array([p.mean for p in phases], dtype=float)
    cores = np.array([pools[p.pool] if p.kind == "cpu" and st.moves[i] else 1.0
                      for i, p in enumerate(phases)], dtype=float)
    rate = np.empty(len(st.slot))
    rate[st.cpu] = st.cpu_count * np.minimum(1.0, cores[st.cpu_phase] / st.cpu_on) / means[st.cpu_phase]
    rate[st.delay] = st.delay_count / means[st.delay_phase]
    table = np.zeros(n * k)
    table[st.slot] = rate
    table = table.reshape(n, k)
    out_rate = np.zeros(n)
    for i in range(k):              # each state's rates out added phase by phase (a zero adds nothing)
        out_rate += table[:, i]
    thr = np.zeros(n)
    thr[st.done_state] = rate[st.done]
    q = csr_matrix((np.concatenate([rate, -out_rate]), (st.rows, st.cols)), shape=(n, n))
    pi = _stationary(q)
    pi /= pi.sum()
    mean_counts = pi @ st.counts
    mean_waiting = float(pi @ st.waiting)
    busy = {}
    for pool, c in pools.items():
        if pool in st.on_pool:
            busy[pool] = float(pi @ np.minimum(st.on_pool[pool], c))
    x = float(pi @ thr)
    return x, {p.name: float(c) for p, c in zip(phases, mean_counts)}, mean_waiting, busy, n
