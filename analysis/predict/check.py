"""The simulation's check of the analytic solution: the model is solved both ways at every
predicted point, and a point is shown only when the two throughputs and response times agree
within AGREEMENT (the simulation's own 95 % interval is printed beside it)."""
from __future__ import annotations

from analysis.predict.model import Model
from analysis.predict.simulate import simulate

AGREEMENT = 0.02
REQUESTS = 40000              # simulated requests per point (about ±1 % on the throughput)


def check_point(m: Model, point: dict, requests: int = REQUESTS, seed: int = 1) -> dict:
    """Simulate point["users"] users; return {throughput, throughput_ci, response_time,
    response_time_ci, requests, deviation, agree}."""
    s = simulate(m, point["users"], seed=seed, min_requests=requests)
    dev_x = point["throughput"] / s.throughput - 1
    dev_r = point["response_time"] / s.response_time - 1 if s.response_time > 0 else 0.0
    worst = max(abs(dev_x), abs(dev_r))
    return {"throughput": s.throughput, "throughput_ci": s.throughput_ci, "response_time": s.response_time,
            "response_time_ci": s.response_time_ci, "requests": s.requests,
            "deviation": {"throughput": dev_x, "response_time": dev_r}, "agree": worst <= AGREEMENT}
