"""The Markov chain's solver builds a chain's structure once and computes each call's rates from
it (analysis/predict/chain.py): its answers must stay those of the loop it replaced, bit for bit
(the simulation-check cache is keyed by them), and the structure cache must be hit and bounded."""
import math
import random

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from analysis.predict import chain
from analysis.predict.chain import INF, Phase, solve_chain
from analysis.predict.model import Model, solve_model


def _reference_solve_chain(phases, pools, users, lock_servers):
    """solve_chain as it was before the structure cache: the states enumerated and the
    generator built by a Python loop on every call (kept verbatim as the reference)."""
    phases = [p for p in phases if p.mean > 0]
    locked = [i for i, p in enumerate(phases) if p.locked]
    if locked != list(range(locked[0], locked[-1] + 1)) if locked else False:
        raise ValueError("the locked phases must be contiguous")
    k = len(phases)
    n_states = chain.count_states(k, len(locked), users, lock_servers)
    if n_states > chain.MAX_STATES:
        raise chain.TooLarge(f"{n_states} states (more than {chain.MAX_STATES})")
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
    pi = chain._stationary(q)
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


def _same(got, want):
    """Equal, and equal bit for bit: repr tells -0.0 from 0.0 and prints every float exactly."""
    assert got == want
    assert repr(got) == repr(want)


def _cycle(means: dict[str, float], locked: set[str]) -> list[Phase]:
    """Phases named kind:pool:tag (CPU) or delay:tag, in the order given."""
    out = []
    for name, mean in means.items():
        kind, *rest = name.split(":")
        pool = rest[0] if kind == "cpu" else None
        out.append(Phase(name, kind, mean, pool, name in locked))
    return out


# (phases' means in cycle order, locked ones, pools' cores, users, lock servers)
SHAPES = [
    ({"delay:think": 0.05, "cpu:host:out": 0.004, "delay:lat": 0.002}, set(), {"host": 2.0}, range(1, 7), [INF]),
    ({"cpu:host:out": 0.0108, "cpu:host:in": 0.0032, "delay:wait": 0.0068}, {"cpu:host:in", "delay:wait"},
     {"host": 2.0}, [1, 2, 4, 8, 16], [1]),
    ({"cpu:host:out": 0.0108, "cpu:host:in": 0.0032, "delay:wait": 0.0068, "delay:lat": 0.003},
     {"cpu:host:in", "delay:wait"}, {"host": 2.0}, [1, 3, 8, 12], [1, 2, 3, 5, INF]),
    ({"cpu:host:out": 0.006, "cpu:svc:out": 0.002, "cpu:host:in": 0.001, "cpu:svc:in": 0.003, "delay:wait": 0.004},
     {"cpu:host:in", "cpu:svc:in", "delay:wait"}, {"host": 1.5, "svc": 0.7, "idle": 4.0}, [1, 2, 5, 7], [1, 2, 4]),
    ({"cpu:a:in": 0.002, "delay:wait": 0.001, "cpu:a:out": 0.003, "cpu:b:out": 0.001},     # the lock first
     {"cpu:a:in", "delay:wait"}, {"a": 1.0, "b": 3.0}, [1, 4, 9], [1, 2]),
    ({"delay:think": 0.02, "cpu:a:out": 0.003, "cpu:a:in": 0.002, "delay:wait": 0.001},    # the lock last
     {"cpu:a:in", "delay:wait"}, {"a": 2}, [2, 6], [1, 3]),
    ({"cpu:host:only": 0.01}, set(), {"host": 2.0}, [1, 2, 5], [INF]),      # one phase: its own next state
    ({"delay:only": 0.01}, set(), {}, [1, 4], [INF]),
    ({"delay:think": 1, "cpu:host:out": 0.0, "cpu:host:in": 3, "delay:lat": 2},            # integers, a zero mean
     {"cpu:host:in"}, {"host": 2}, [1, 3, 6], [1, 2]),
]


def _cases():
    rng = random.Random(20261126)
    for means, locked, pools, users_list, servers in SHAPES:
        for users in users_list:
            for ls in servers:
                for rep in range(3):            # the second and third calls hit the cache
                    m = {name: (v if rep == 0 or not v else v * rng.uniform(0.2, 5.0)) for name, v in means.items()}
                    yield _cycle(m, locked), pools, users, ls


def test_the_solver_answers_what_the_loop_it_replaced_answered_bit_for_bit():
    chain.cache_clear()
    n = 0
    for phases, pools, users, ls in _cases():
        _same(solve_chain(phases, pools, users, ls), _reference_solve_chain(phases, pools, users, ls))
        n += 1
    assert n > 150 and chain.cache_info()["hits"] > n / 2


def test_the_models_answers_with_a_think_time_are_unchanged(monkeypatch):
    """solve_model at many populations and servers (each its own structure) with the reference."""
    m = Model({"host": 2.0, "svc": 1.0}, {"host": 0.0108, "svc": 0.001}, {"host": 0.0032, "svc": 0.0015},
              delay_inside=0.0068, delay_outside=0.003, lock_servers=2, clones=2, think_time=0.05)
    new = [solve_model(m, n).to_json() for n in (3, 9, 12)]
    monkeypatch.setattr(chain, "solve_chain", _reference_solve_chain)
    old = [solve_model(m, n).to_json() for n in (3, 9, 12)]
    _same(new, old)
    assert all(p["method"].startswith("Markov chain (exact)") for p in new)


def test_the_refusals_stay():
    with pytest.raises(ValueError, match="contiguous"):
        solve_chain(_cycle({"cpu:a:in": 1.0, "delay:x": 1.0, "delay:wait": 1.0}, {"cpu:a:in", "delay:wait"}),
                    {"a": 1.0}, 3, 1)
    big = _cycle({"cpu:a:out": 1.0, "cpu:b:out": 1.0, "delay:x": 1.0, "cpu:a:in": 1.0, "delay:wait": 1.0},
                 {"cpu:a:in", "delay:wait"})
    with pytest.raises(chain.TooLarge):
        solve_chain(big, {"a": 1.0, "b": 1.0}, 400, 8)


def test_a_second_call_with_the_same_structure_is_a_cache_hit_whatever_its_means():
    chain.cache_clear()
    locked = {"cpu:host:in", "delay:wait"}
    first = solve_chain(_cycle({"cpu:host:out": 0.01, "cpu:host:in": 0.003, "delay:wait": 0.007}, locked),
                        {"host": 2.0}, 6, 1)
    assert chain.cache_info() == {"hits": 0, "misses": 1, "entries": 1, "states": first[-1]}
    second = solve_chain(_cycle({"cpu:host:out": 0.02, "cpu:host:in": 0.001, "delay:wait": 0.004}, locked),
                         {"host": 1.0}, 6, 1)
    assert chain.cache_info()["hits"] == 1 and chain.cache_info()["entries"] == 1
    assert second[0] != first[0]                       # its own rates, not the first call's
    solve_chain(_cycle({"cpu:host:out": 0.02, "cpu:host:in": 0.001, "delay:wait": 0.004}, locked),
                {"host": 1.0}, 7, 1)                   # other users: another structure
    assert chain.cache_info()["misses"] == 2 and chain.cache_info()["entries"] == 2


def test_the_cache_keeps_the_most_recent_structures_and_stays_within_its_bounds(monkeypatch):
    chain.cache_clear()
    monkeypatch.setattr(chain, "CACHE_ENTRIES", 3)
    phases = _cycle({"cpu:host:out": 0.01, "cpu:host:in": 0.003, "delay:wait": 0.007, "delay:lat": 0.002},
                    {"cpu:host:in", "delay:wait"})
    for users in range(1, 11):
        solve_chain(phases, {"host": 2.0}, users, 1)
        assert chain.cache_info()["entries"] <= 3
    assert chain.cache_info()["misses"] == 10
    solve_chain(phases, {"host": 2.0}, 10, 1)          # the newest is kept ...
    assert chain.cache_info()["hits"] == 1
    solve_chain(phases, {"host": 2.0}, 1, 1)           # ... the oldest went
    assert chain.cache_info()["misses"] == 11
    monkeypatch.setattr(chain, "CACHE_STATES", 100)    # 64 and 81 states: not both
    solve_chain(phases, {"host": 2.0}, 7, 1)
    solve_chain(phases, {"host": 2.0}, 8, 1)
    info = chain.cache_info()
    assert info["entries"] == 1 and info["states"] == 81
    monkeypatch.setattr(chain, "CACHE_STATES", 10)     # the newest stays even when it is over the bound
    solve_chain(phases, {"host": 2.0}, 9, 1)
    assert chain.cache_info()["entries"] == 1 and chain.cache_info()["states"] == 100
    chain.cache_clear()
    assert chain.cache_info() == {"hits": 0, "misses": 0, "entries": 0, "states": 0}
