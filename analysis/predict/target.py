"""The smallest configuration the model says reaches a target throughput, and its critical
users — the capacity figure of the classic study (N = N* + X·Z), asked of the model.

Candidates: 1 ... MAX_REPLICAS clones with the singleton client, and pools of 2 ... 32 clients
per clone (a client per request too, when its per-call cost is known). "Smallest" = fewest
JVM replicas (clones + service replicas), then fewest clients; service replicas are never
added (the model gives them nothing: the calls' CPU is the same wherever they run). X_max of a
candidate is its throughput once more users no longer raise it; N* the fewest users (think
time 0) that reach X_max within the tolerance, and with think time Z the users it serves are
N = N* + X_max·Z (interactive response-time law).
"""
from __future__ import annotations

from dataclasses import replace

from analysis.predict.fit import Fitted, Config, model
from analysis.predict.model import solve_model

MAX_REPLICAS = 16
POOLS = (2, 4, 8, 16, 32)
FLAT = 0.002           # X(2n) within this of X(n): saturated


def saturation(c: Fitted, cfg: Config, request: Fitted | None = None, tolerance: float = 0.05,
               max_users: int = 4096) -> tuple[float, int, str]:
    """(X_max, N*, bottleneck at X_max) of cfg with think time 0."""
    m = model(c, cfg, think_time=0.0, request=request)
    n, prev = 1, solve_model(m, 1)
    while n < max_users:
        nxt = solve_model(m, 2 * n)
        if nxt.throughput <= prev.throughput * (1 + FLAT):
            prev = nxt if nxt.throughput > prev.throughput else prev
            break
        n, prev = 2 * n, nxt
    x_max, top = prev.throughput, prev
    lo, hi = 1, max(prev.users, 1)                       # first n with X(n) >= (1 - tol) X_max
    while lo < hi:
        mid = (lo + hi) // 2
        if solve_model(m, mid).throughput >= (1 - tolerance) * x_max:
            hi = mid
        else:
            lo = mid + 1
    return x_max, lo, top.bottleneck


def candidates(base: Config, modes: list[str], request_ok: bool) -> list[Config]:
    out = []
    for k in range(1, MAX_REPLICAS + 1):
        if "singleton" in modes:
            out.append(replace(base, clones=k, client_mode="singleton", pool_size=None))
        if "pool" in modes:
            sizes = [base.pool_size] if base.client_mode == "pool" and base.pool_size else POOLS
            out += [replace(base, clones=k, client_mode="pool", pool_size=p) for p in sizes]
        if "request" in modes and request_ok:
            out.append(replace(base, clones=k, client_mode="request", pool_size=None))
    return sorted(out, key=lambda c: (c.clones + c.service, c.lock_servers()))


def smallest(c: Fitted, target: float, base: Config, modes: list[str], request: Fitted | None = None,
             think_time: float = 0.0, tolerance: float = 0.05) -> dict:
    """The first candidate whose X_max reaches target, or the best one with why none does."""
    def bound(cfg: Config) -> float:
        m = model(c, cfg, think_time=0.0, request=request)
        return min(cores / m.demand(p) for p, cores in m.pools.items() if m.demand(p) > 0)
    cpu_bound = max([bound(replace(base, client_mode="singleton"))]
                    + ([bound(replace(base, client_mode="request"))] if request and "request" in modes else []))
    if target > cpu_bound:
        return {"reached": False, "target": target, "config": None, "text": None, "max_throughput": cpu_bound,
                "critical_users": None, "bottleneck": "cpu", "think_time_s": think_time, "users": None,
                "why": f"the CPU caps every configuration with these cores at {cpu_bound:.4g}/s "
                       "(cores / CPU per request): more clients cannot help, more cores can (--cores)"}
    best = None
    for cfg in candidates(base, modes, request is not None):
        x, n_star, where = saturation(c, cfg, request, tolerance)
        row = {"config": cfg, "text": cfg.text(), "max_throughput": x, "critical_users": n_star,
               "bottleneck": where, "think_time_s": think_time, "users": n_star + x * think_time}
        if x >= target:
            return {"reached": True, "target": target, **row}
        if best is None or x > best["max_throughput"] * (1 + FLAT):
            best = row
    return {"reached": False, "target": target, **best}
