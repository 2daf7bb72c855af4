"""The simulation's check of the analytic solution: the model is solved both ways at every
predicted point, and a point is shown only when the two throughputs and response times agree
within AGREEMENT (the simulation's own 95 % interval is printed beside it)."""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from analysis.predict.model import Model
from analysis.predict.simulate import simulate

AGREEMENT = 0.02
REQUESTS = 40000              # simulated requests per point (about ±1 % on the throughput)
DISPATCH = "shared"           # the lock servers' one queue, as the model has it (simulate.py)


def check_point(m: Model, point: dict, requests: int = REQUESTS, seed: int = 1) -> dict:
    """Simulate point["users"] users; return {throughput, throughput_ci, response_time,
    response_time_ci, requests, deviation, agree}."""
    s = simulate(m, point["users"], seed=seed, min_requests=requests, dispatch=DISPATCH)
    dev_x = point["throughput"] / s.throughput - 1
    dev_r = point["response_time"] / s.response_time - 1 if s.response_time > 0 else 0.0
    worst = max(abs(dev_x), abs(dev_r))
    return {"throughput": s.throughput, "throughput_ci": s.throughput_ci, "response_time": s.response_time,
            "response_time_ci": s.response_time_ci, "requests": s.requests,
            "deviation": {"throughput": dev_x, "response_time": dev_r}, "agree": worst <= AGREEMENT}


def _check_one(args: tuple) -> dict:
    return check_point(*args)


def check_all(points: list[tuple[Model, dict]], processes: int | None = None,
              requests: int = REQUESTS) -> list[dict]:
    """check_point of each (model, point), in order; side by side in up to `processes`
    processes (default: one per core this process may run on). Each point's simulation has its
    own fixed seed, so the answers are the same however many processes make them."""
    n = min(len(points), processes or len(os.sched_getaffinity(0)))
    if n <= 1:
        return [check_point(m, pt, requests) for m, pt in points]
    # spawned, not forked: the runner that calls this has threads of its own (the CPU sampler)
    with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(_check_one, [(m, pt, requests) for m, pt in points],
                             chunksize=max(1, len(points) // (4 * n))))
