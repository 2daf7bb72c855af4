"""Driving wrk: one run against a URL, its output read, a target warmed up before it is measured.

A run gives requests/s, requests, non-2xx responses and socket errors; with a Lua script whose
`done()` prints `p50_us N` and `p95_us N` lines, also those latencies (in ms); with a pid, the
CPU that process spent per request (cpu.clock, user + system of all its threads).

Warm-up (the JVM's JIT, connection and thread pools): short wrk runs, repeated until the target
has served WARMUP_MIN_REQUESTS and a run is no more than WARMUP_TOLERANCE faster than the one
before (at most WARMUP_MAX_RUNS, or STACK_WARMUP_MAX_RUNS for a whole stack of fresh JVMs).
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from testbed.cpu.clock import process_seconds

WARMUP_MAX_RUNS = 6        # warm-up runs of one target, at most
STACK_WARMUP_MAX_RUNS = 18  # the same for /seg/5 through three fresh JVMs (the overhead benchmarks):
                            # 6 runs of 5 s left it still 30 % faster each run (2026-11-25)
WARMUP_TOLERANCE = 0.10    # warm: a run at most 10 % faster than the one before ...
WARMUP_MIN_REQUESTS = 10_000   # ... and this many served: HotSpot compiles a method fully (C2)
                               # after 5,000 calls (Tier4InvocationThreshold), and every request
                               # calls its path's methods at least once; a rate held down by a busy
                               # machine stops rising before the JIT has run


def parse_wrk(out: str) -> dict:
    """wrk's output -> rps, requests, non_2xx, socket_errors, and p50_ms / p95_ms from a
    script's `p50_us N` / `p95_us N` lines (None without them)."""
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not rps:
        raise RuntimeError("wrk printed no Requests/sec:\n" + out)
    res = {"rps": float(rps.group(1)), "requests": int(total.group(1)) if total else None,
           "non_2xx": int(non2xx.group(1)) if non2xx else 0,
           "socket_errors": sum(map(int, sock.groups())) if sock else 0}
    for key in ("p50_us", "p95_us"):
        m = re.search(rf"^{key} (\d+)$", out, re.M)
        res[key.replace("_us", "_ms")] = int(m.group(1)) / 1000 if m else None
    return res


def wrk(url: str, connections: int, duration: int, script: Path | None, pid: int | None = None) -> dict:
    """One wrk run (parse_wrk's figures); with pid, also that process's CPU microseconds per
    request (cpu_us_per_req, None without)."""
    argv = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--timeout", "10s"]
    if script:
        argv += ["-s", str(script)]
    before = process_seconds(pid)
    r = subprocess.run(argv + [url], capture_output=True, text=True, timeout=duration + 60)
    after = process_seconds(pid)
    if r.returncode != 0:
        raise RuntimeError(f"wrk failed: {r.stderr.strip() or r.stdout.strip()}")
    res = parse_wrk(r.stdout)
    res["cpu_us_per_req"] = ((after - before) * 1e6 / res["requests"]
                             if before is not None and after is not None and res["requests"] else None)
    return res


def is_warm(rates: list[float], requests: int, tolerance: float = WARMUP_TOLERANCE,
            min_requests: int = WARMUP_MIN_REQUESTS) -> bool:
    """True once a target has served `min_requests` in its warm-up runs and the last of at
    least two runs was no more than `tolerance` faster than the one before: it stopped
    speeding up, and not merely because something else held it down before the JIT ran."""
    return requests >= min_requests and len(rates) >= 2 and rates[-1] <= rates[-2] * (1 + tolerance)


def warm_up(plan: list[tuple], connections: int, seconds: int, say=print,
            max_runs: int = WARMUP_MAX_RUNS) -> dict[str, dict]:
    """Load every target of the plan, (service, route, op, url, script, pid), with wrk runs of
    `seconds` until it is_warm (at most max_runs); nothing measured here is a result.
    {"service/route/op": {"rps": [...], "requests": n, "warm": bool}}"""
    say(f"bench: warming up every target before measuring (JIT, pools): wrk runs of {seconds} s "
        f"until it served {WARMUP_MIN_REQUESTS:,} requests and a run is at most {WARMUP_TOLERANCE:.0%} "
        f"faster than the one before (at most {max_runs} runs); not part of the results")
    out = {}
    for svc, route, op, url, script, _ in plan:
        key = f"{svc}/{route}/{op}"
        rates: list[float] = []
        served = 0
        while not is_warm(rates, served) and len(rates) < max_runs:
            res = wrk(url, connections, seconds, script)
            rates.append(res["rps"])
            served += res["requests"] if res["requests"] is not None else round(res["rps"] * seconds)
        warm = is_warm(rates, served)
        out[key] = {"rps": [round(r, 1) for r in rates], "requests": served, "warm": warm}
        say(f"bench: warm-up {key:24s} " + " → ".join(f"{r:,.0f}" for r in rates) + f" req/s, "
            f"{served:,} requests" + ("" if warm else f"  (NOT warm after {len(rates)} runs)"), flush=True)
    return out
