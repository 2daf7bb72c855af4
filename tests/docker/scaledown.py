"""Scale a tier down under a request stream and count what failed: shared by the CI check
(check_stack.py, which asserts that nothing fails) and the benchmark (scale_down_bench.py).

The ways a tier is scaled down (WAYS):
  compose        plain `docker compose up -d --no-recreate --no-deps --scale TIER=N TIER`
  testbed        `./testbed scale TIER=N` (drains the removed replicas in HAProxy first)
  swarm          `docker service scale <stack>_TIER=N` (a stack deployed with docker stack deploy)

Each request stream goes through the tier being scaled (TIER_PATHS), only to 127.0.0.1.
"""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WAYS = ("compose", "testbed", "swarm")
# (entry port knob, path): a GET that passes through the tier (and only tiers at 1 replica)
TIER_PATHS = {"front": ("WEB_PORT", "/seg/3"),
              "clone": ("CLONES_PORT", "/invoke?backend=axis&op=ping"),
              "axis": ("WEB_PORT", "/seg/5?backend=axis&op=ping"),
              "gsoap": ("WEB_PORT", "/seg/5?backend=gsoap&op=ping")}
SETTLE_S = 2.0          # requests keep flowing this long after HAProxy shows the new count


def scale(tier: str, n: int, way: str, swarm_stack: str = "testbed", timeout: float = 400) -> None:
    if way == "compose":
        argv = ["docker", "compose", "up", "--detach", "--wait", "--no-recreate", "--no-deps",
                "--scale", f"{tier}={n}", tier]
    elif way == "testbed":
        argv = [str(ROOT / "testbed"), "scale", f"{tier}={n}"]
    elif way == "swarm":
        argv = ["docker", "service", "scale", "--detach=false", f"{swarm_stack}_{tier}={n}"]
    else:
        raise ValueError(f"way {way!r}: one of {', '.join(WAYS)}")
    r = subprocess.run(argv, cwd=ROOT, text=True, capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {r.returncode}: {(r.stdout + r.stderr)[-1500:]}")


def scale_down_round(stack, tier: str, way: str, clients: int = 4, high: int = 3, low: int = 1,
                     swarm_stack: str = "testbed", requests_per_client: int = 5000) -> dict:
    """stack: check_stack.Stack (urls, wait_servers). Scale the tier to `high` (the same way,
    so swarm stays swarm), start `clients` closed-loop clients through it, scale it to `low`,
    wait until HAProxy shows `low` UP, keep the stream SETTLE_S longer, stop it. Returns
    {"ok", "failed", "first_failures", "seconds"}."""
    from check_stack import Load
    up_way = "testbed" if way == "compose" else way
    scale(tier, high, up_way, swarm_stack)
    stack.wait_servers(tier, high, 120)
    knob, path = TIER_PATHS[tier]
    loads = [Load(stack.url(knob, path), requests_per_client) for _ in range(clients)]
    for load in loads:
        load.start()
    t0 = time.monotonic()
    try:
        time.sleep(1)
        scale(tier, low, way, swarm_stack)
        stack.wait_servers(tier, low, 120)
        time.sleep(SETTLE_S)
    finally:
        for load in loads:
            load.stop.set()
        for load in loads:
            load.join(60)
    return {"tier": tier, "way": way, "ok": sum(x.ok for x in loads), "failed": sum(x.failed for x in loads),
            "first_failures": [f for x in loads for f in x.failures][:3],
            "seconds": round(time.monotonic() - t0, 1)}
