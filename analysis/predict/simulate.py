"""A discrete-event simulation (simpy) of the model in analysis.predict.model, to check its
analytic solution: the same users, think time, CPU pools, locks and latencies, simulated
request by request.

What the simulation has that the analytic solution approximates: a request holds its lock
while its CPU work inside the lock queues on the shared CPU, and CPU
pools are processor-sharing with c cores (each request runs at min(1, c/n) of a core with n
requests in the pool). Times are exponential with the model's means (the analytic solution
assumes exponential service; `deterministic_delays=True` makes the pure waits constant, as the
service's wait really is, to show how much that matters). The lock servers form one queue, as
in the model (`dispatch="shared"`, what the check uses); `dispatch="leastconn"` gives each
clone its own queue instead and sends a request to the clone with the fewest requests in it, as
HAProxy's leastconn does — what the model's one queue leaves out (docs/predict.md). A crowded
demand (Model.crowded) is drawn with the factor of the requests in the system when its phase
starts (Model.factor), where the analytic solution takes the population's.

Throughput and response time are measured after a warm-up, over `batches` batches; the half
width of their 95 % interval (t over batch means) comes with them.
"""
from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass

import simpy
from scipy import stats as sps

from analysis.predict.model import Model

INF = math.inf


class PsPool:
    """Processor sharing on c cores: n jobs each progress at min(1, c/n) of a core. One timer
    is pending at a time, for the next completion; an arrival re-arms it (the old one, now
    stale, is ignored when it fires)."""

    def __init__(self, env: simpy.Environment, cores: float):
        self.env, self.cores = env, cores
        self.jobs: list[tuple[float, int, simpy.Event]] = []   # heap of (attained target, seq, done)
        self.attained = 0.0          # service each job present has had since time 0 (virtual time)
        self.last = 0.0
        self.seq = 0
        self.generation = 0
        self.busy_integral = 0.0     # core-seconds of work done (for utilisation)

    def _rate(self) -> float:
        n = len(self.jobs)
        return min(1.0, self.cores / n) if n else 0.0

    def _advance(self) -> None:
        now = self.env.now
        r = self._rate()
        self.attained += (now - self.last) * r
        self.busy_integral += (now - self.last) * r * len(self.jobs)
        self.last = now

    def work(self, amount: float) -> simpy.Event:
        done = self.env.event()
        self._advance()
        self.seq += 1
        heapq.heappush(self.jobs, (self.attained + amount, self.seq, done))
        self._arm()
        return done

    def _arm(self) -> None:
        self.generation += 1
        if not self.jobs:
            return
        gen = self.generation
        dt = max(self.jobs[0][0] - self.attained, 0.0) / self._rate()
        self.env.timeout(dt).callbacks.append(lambda _ev: self._fire(gen))

    def _fire(self, gen: int) -> None:
        if gen != self.generation:
            return                   # re-armed since: a stale timer
        self._advance()
        while self.jobs and self.jobs[0][0] <= self.attained + 1e-12:
            heapq.heappop(self.jobs)[2].succeed()
        self._arm()


@dataclass(frozen=True)
class SimResult:
    users: int
    throughput: float
    throughput_ci: float        # half-width, 95 %
    response_time: float
    response_time_ci: float
    requests: int
    utilisation: dict[str, float]


PILOT_REQUESTS = 200          # the pilot run sizes the simulation by the rate it saw
PILOT_MAX_S = 256.0


def simulate(m: Model, users: int, seed: int = 1, min_requests: int = 40000, batches: int = 20,
             deterministic_delays: bool = False, dispatch: str = "shared") -> SimResult:
    """Simulate `users` users cycling through the model's phases (Model.phases) until about
    `min_requests` requests have completed after a warm-up of a fifth of that; dispatch: the
    lock servers' queue ("shared": one, as the model; "leastconn": one per clone)."""
    if dispatch not in ("shared", "leastconn"):
        raise ValueError(f"dispatch: shared or leastconn, not {dispatch!r}")
    rng = random.Random(seed)
    env = simpy.Environment()
    pools = {p: PsPool(env, c) for p, c in m.pools.items()}
    phases = m.phases()
    locked = [i for i, p in enumerate(phases) if p.locked]
    first_l, last_l = (locked[0], locked[-1]) if locked else (-1, -1)
    queues = m.clones if dispatch == "leastconn" else 1
    per_queue = int(m.lock_servers // queues) if locked else 0
    locks = [simpy.Resource(env, capacity=per_queue) for _ in range(queues)] if locked else []
    in_clone = [0] * len(locks)
    admit = simpy.Resource(env, capacity=int(m.concurrency)) if m.concurrency != INF else None
    finished: list[tuple[float, float]] = []      # (when, response time)
    crowded = {i: m.crowded[p.pool] for i, p in enumerate(phases)
               if p.kind == "cpu" and p.name == f"cpu:{p.pool}:out" and m.crowded.get(p.pool) and m.crowding}
    present = [0]                                 # requests admitted and not finished

    def draw(mean: float, fixed: bool) -> float:
        return mean if fixed else rng.expovariate(1.0 / mean)

    def user():
        while True:
            start, slot, held, clone, counted = env.now, None, None, None, False
            for i, p in enumerate(phases):
                if p.name == "think":
                    yield env.timeout(draw(p.mean, False))
                    start = env.now
                    continue
                if admit is not None and slot is None:
                    slot = admit.request()
                    yield slot
                if not counted:
                    counted = True
                    present[0] += 1
                if i == first_l:                   # leastconn: the clone with the fewest requests (shared: the one queue)
                    clone = min(range(len(locks)), key=lambda k: (in_clone[k], rng.random()))
                    in_clone[clone] += 1
                    held = locks[clone].request()
                    yield held
                if p.kind == "cpu":
                    extra = crowded[i] * (m.factor(present[0]) - 1.0) if i in crowded else 0.0
                    yield pools[p.pool].work(draw(p.mean + extra, False))
                else:
                    yield env.timeout(draw(p.mean, deterministic_delays))
                if i == last_l:
                    locks[clone].release(held)
                    in_clone[clone] -= 1
            if slot is not None:
                admit.release(slot)
            present[0] -= counted
            finished.append((env.now, env.now - start))

    for _ in range(users):
        env.process(user())
    pilot = 1.0                                    # a pilot run tells the rate: at least
    env.run(until=pilot)                           # PILOT_REQUESTS done (the first second may see
    while len(finished) < PILOT_REQUESTS and pilot < PILOT_MAX_S:   # none: long waits, many users)
        pilot *= 2
        env.run(until=pilot)
    rate = max(len(finished), 1) / pilot
    total = max(min_requests / rate, 20 * (m.think_time + users / rate))
    warm = pilot + 0.2 * total
    env.run(until=warm)
    busy0 = {}
    for p, pool in pools.items():
        pool._advance()
        busy0[p] = pool.busy_integral
    env.run(until=warm + total)
    for pool in pools.values():
        pool._advance()
    counts, rsum = [0] * batches, [0.0] * batches
    for t, r in finished:
        if t >= warm:
            b = min(int((t - warm) / total * batches), batches - 1)
            counts[b] += 1
            rsum[b] += r
    x, x_ci = _mean_ci([c / (total / batches) for c in counts])
    r, r_ci = _mean_ci([s / c for s, c in zip(rsum, counts) if c])
    util = {f"cpu:{p}": (pool.busy_integral - busy0[p]) / total / m.pools[p] for p, pool in pools.items()}
    return SimResult(users, x, x_ci, r, r_ci, sum(counts), util)


def _mean_ci(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, float(sps.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
