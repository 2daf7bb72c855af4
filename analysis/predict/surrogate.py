"""The method of surrogate delays (Jacobson & Lazowska 1982) for the model of
analysis.predict.model: the fallback when its Markov chain is too large. Approximate: against
the simulation it is within a few per cent where the lock and the CPU are both loaded (see
docs/predict.md), so a point solved this way is marked.

Two product-form networks are solved exactly (analysis.predict.network) and iterated to a
fixed point:
  CPU model: think time + outside latencies + [lock wait + inside waits] as one delay, and each
    CPU pool with its whole demand; gives each pool's residence per second of demand, hence
    the lock's holding time H = inside waits + CPU inside x that residence;
  lock model: think time + outside latencies + outside CPU residence as one delay, and the
    lock as a station of L servers with demand H; gives the wait for the lock, which goes
    back into the CPU model as a delay.
At the fixed point the two give the same throughput.
"""
from __future__ import annotations

from analysis.predict.network import INF, THINK, Station, solve as solve_network

TOLERANCE = 1e-9
MAX_ITERATIONS = 500


def solve(m, n: int) -> tuple[float, float, float]:
    """(throughput, lock holding time, lock waiting time) of model m with n users."""
    cpu_stations = [Station(f"cpu:{p}", m.demand(p), c) for p, c in m.pools.items()]
    wait, x, hold = 0.0, 0.0, m.hold_time_alone()
    for _ in range(MAX_ITERATIONS):
        cpu = solve_network([Station(THINK, m.think_time, INF),
                             Station("delays", m.delay_outside + wait + m.delay_inside, INF), *cpu_stations], n)
        r = {p: (cpu.residence[f"cpu:{p}"] / m.demand(p) if m.demand(p) > 0 else 1.0) for p in m.pools}
        hold = m.delay_inside + sum(d * r[p] for p, d in m.inside.items())
        outside = m.delay_outside + sum(d * r[p] for p, d in m.outside.items())
        lock = solve_network([Station(THINK, m.think_time, INF), Station("delays", outside, INF),
                              Station("lock", hold, m.lock_servers)], n)
        new_wait = max(lock.residence["lock"] - hold, 0.0)
        x = lock.throughput
        if abs(new_wait - wait) <= TOLERANCE:
            return x, hold, new_wait
        wait = 0.5 * (wait + new_wait)       # damped: the plain iteration can oscillate
    return x, hold, wait
