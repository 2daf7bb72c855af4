"""Service throughput against this machine's HTTP bound.

For `ping` and `sendInts` n=1000, on each service (gSOAP in the `pool` model), with wrk
holding C keep-alive connections: through HAProxy and direct to the replica — and, in
the same run, wrk against HAProxy's `bound` frontend, which answers by itself: the most
requests/s this machine carries through HAProxy. Each figure is reported as requests/s and
as a ratio to that bound. Measurements are interleaved (every target once per round) so a
noisy neighbour affects all alike; medians of the rounds are reported.

Every target is warmed up first (the JVM's JIT, connection and thread pools): short wrk runs,
repeated until it has served WARMUP_MIN_REQUESTS and a run is no more than WARMUP_TOLERANCE
faster than the one before (at most WARMUP_MAX_RUNS). Warm-up runs are recorded apart
(bench.json "warmup") and never enter the results; a target not warm after the last warm-up
run is flagged in both files.
"""
from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import requests

from testbed import ROOT, contract
from testbed.procs import ProcError
from testbed.stack import Stack, StackError, select

WRK_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/xml; charset=utf-8"
wrk.headers["SOAPAction"] = '"urn:{op}"'
local f = assert(io.open("{body}", "rb"))
wrk.body = f:read("*a")
f:close()
"""
OPS = {"ping": 0, "sendInts": 1000}
WARMUP_MAX_RUNS = 6        # warm-up runs of one target, at most
WARMUP_TOLERANCE = 0.10    # warm: a run at most 10 % faster than the one before ...
WARMUP_MIN_REQUESTS = 10_000   # ... and this many served: HotSpot compiles a method fully (C2)
                               # after 5,000 calls (Tier4InvocationThreshold), and every request
                               # calls its path's methods at least once; a rate held down by a busy
                               # machine stops rising before the JIT has run


def parse_wrk(out: str) -> dict:
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not rps:
        raise RuntimeError("wrk printed no Requests/sec:\n" + out)
    return {"rps": float(rps.group(1)), "requests": int(total.group(1)) if total else None,
            "non_2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": sum(map(int, sock.groups())) if sock else 0}


def wrk(url: str, connections: int, duration: int, script: Path | None) -> dict:
    argv = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--timeout", "10s"]
    if script:
        argv += ["-s", str(script)]
    r = subprocess.run(argv + [url], capture_output=True, text=True, timeout=duration + 60)
    if r.returncode != 0:
        raise RuntimeError(f"wrk failed: {r.stderr.strip() or r.stdout.strip()}")
    return parse_wrk(r.stdout)


def is_warm(rates: list[float], requests: int, tolerance: float = WARMUP_TOLERANCE,
            min_requests: int = WARMUP_MIN_REQUESTS) -> bool:
    """True once a target has served `min_requests` in its warm-up runs and the last of at
    least two runs was no more than `tolerance` faster than the one before: it stopped
    speeding up, and not merely because something else held it down before the JIT ran."""
    return requests >= min_requests and len(rates) >= 2 and rates[-1] <= rates[-2] * (1 + tolerance)


def warm_up(plan: list[tuple], connections: int, seconds: int, say=print) -> dict[str, dict]:
    """Load every target of the plan with wrk runs of `seconds` until it is_warm (at most
    WARMUP_MAX_RUNS); nothing measured here is a result. {target: {"rps": [...], "warm": bool}}"""
    say(f"bench: warming up every target before measuring (JIT, pools): wrk runs of {seconds} s "
        f"until it served {WARMUP_MIN_REQUESTS:,} requests and a run is at most {WARMUP_TOLERANCE:.0%} "
        f"faster than the one before (at most {WARMUP_MAX_RUNS} runs); not part of the results")
    out = {}
    for svc, route, op, url, script in plan:
        key = f"{svc}/{route}/{op}"
        rates: list[float] = []
        served = 0
        while not is_warm(rates, served) and len(rates) < WARMUP_MAX_RUNS:
            res = wrk(url, connections, seconds, script)
            rates.append(res["rps"])
            served += res["requests"] if res["requests"] is not None else round(res["rps"] * seconds)
        warm = is_warm(rates, served)
        out[key] = {"rps": [round(r, 1) for r in rates], "requests": served, "warm": warm}
        say(f"bench: warm-up {key:24s} " + " → ".join(f"{r:,.0f}" for r in rates) + f" req/s, "
            f"{served:,} requests" + ("" if warm else f"  (NOT warm after {len(rates)} runs)"), flush=True)
    return out


def check_answer(url: str, op: str, n: int) -> None:
    """One real call before measuring: the service answers this body correctly."""
    resp = requests.post(url, data=contract.envelope(op, n), headers=contract.soap_headers(op), timeout=10)
    if resp.status_code != 200:
        raise RuntimeError(f"{url} {op}: HTTP {resp.status_code}: {resp.text[:300]}")
    if op == "sendInts":
        want = contract.checksum("int", contract.items("int", n))
        m = re.search(r"checksum>(\d+)<", resp.text)
        if not m or int(m.group(1)) != want:
            raise RuntimeError(f"{url} sendInts: wrong checksum in {resp.text[:300]}")


def targets(stack: Stack) -> list[tuple[str, str, str]]:
    """(service, route, url) for each service, through HAProxy and direct."""
    st = stack.status()
    out = []
    for svc in ("gsoap", "axis"):
        reps = [r for r in st["replicas"] if r["tier"] == svc and r["healthy"]]
        if not reps:
            raise RuntimeError(f"no healthy {svc} replica; ./testbed up first")
        out.append((svc, "haproxy", f"{stack.entry_url('soap')}/{svc}"))
        out.append((svc, "direct", f"{reps[0]['url']}/{svc}"))
    return out


def main(args) -> int:
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk not found; install it: sudo apt-get install -y wrk")
    try:
        stack = select()
    except StackError as e:
        raise SystemExit(f"bench: {e}") from None
    started_here = False
    if not stack.running():
        print("bench: the stack is not up; starting axis ×1, gsoap ×1 (pool model) for the benchmark")
        try:
            stack.up({"axis": 1, "gsoap": 1})
        except (StackError, ProcError) as e:
            raise SystemExit(f"bench: {e}") from None
        started_here = True
    elif stack.cfg.knobs.get("GSOAP_SERVER_MODEL", "pool") != "pool":
        print("bench: note: GSOAP_SERVER_MODEL is not 'pool' in this stack")
    out = Path(args.output or ROOT / "results" / f"bench-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        table = measure(stack, out, args)
        print("\n" + table)
        print(f"bench: results in {out}")
    finally:
        if started_here:
            stack.down()
    return 0


def measure(stack: Stack, out: Path, args, say=print) -> str:
    """Warm every target up, then the interleaved rounds; writes bench.json and bench.md into
    `out` after every run (partial results survive) and returns the table."""
    out.mkdir(parents=True, exist_ok=True)
    scripts = {}
    for op, n in OPS.items():
        body = out / f"{op}.xml"
        body.write_bytes(contract.envelope(op, n))
        scripts[op] = out / f"{op}.lua"
        scripts[op].write_text(WRK_LUA.format(op=op, body=body))
    tgts = targets(stack)
    for svc, route, url in tgts:
        for op, n in OPS.items():
            check_answer(url, op, n)
    bound_url = stack.entry_url("bound") + "/"
    plan = [("bound", "haproxy", "GET", bound_url, None)] + [
        (svc, route, op, url, scripts[op]) for svc, route, url in tgts for op in OPS]
    warm = warm_up(plan, args.connections, args.warmup, say)
    samples: dict[str, list[dict]] = {}
    _write(out, args, samples, warm)
    for rnd in range(1, args.repeat + 1):
        for svc, route, op, url, script in plan:
            key = f"{svc}/{route}/{op}"
            res = wrk(url, args.connections, args.duration, script)
            samples.setdefault(key, []).append(res)
            say(f"bench: round {rnd}/{args.repeat} {key:24s} {res['rps']:10.0f} req/s"
                + (f"  ({res['non_2xx']} non-2xx, {res['socket_errors']} socket errors)"
                   if res["non_2xx"] or res["socket_errors"] else ""), flush=True)
            _write(out, args, samples, warm)
    return _write(out, args, samples, warm)


def _write(out: Path, args, samples: dict[str, list[dict]], warm: dict[str, dict]) -> str:
    med = {k: statistics.median(s["rps"] for s in v) for k, v in samples.items()}
    bound = med.get("bound/haproxy/GET")
    rows = []
    for key, v in samples.items():
        rows.append({"target": key, "runs": len(v), "median_rps": round(med[key], 1),
                     "min_rps": round(min(s["rps"] for s in v), 1), "max_rps": round(max(s["rps"] for s in v), 1),
                     "ratio_to_bound": round(med[key] / bound, 4) if bound else None,
                     "errors": sum(s["non_2xx"] + s["socket_errors"] for s in v),
                     "warm": warm[key]["warm"]})
    cold = [k for k, w in warm.items() if not w["warm"]]
    meta = {"connections": args.connections, "duration_s": args.duration, "repeat": args.repeat,
            "driver": "wrk -t 2 (same machine as the stack)", "cores": _cores(),
            "warmup": {"run_s": args.warmup, "max_runs": WARMUP_MAX_RUNS, "tolerance": WARMUP_TOLERANCE,
                       "min_requests": WARMUP_MIN_REQUESTS,
                       "note": "runs before the rounds, until a target stops speeding up; not in rows",
                       "targets": warm},
            "rows": rows}
    (out / "bench.json").write_text(json.dumps(meta, indent=1))
    lines = ["| target | runs | median req/s | min | max | ratio to bound | errors |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio_to_bound']:.3f}" if r["ratio_to_bound"] is not None else "-"
        flag = " (not warm)" if not r["warm"] else ""
        lines.append(f"| {r['target']}{flag} | {r['runs']} | {r['median_rps']:.0f} | {r['min_rps']:.0f} | "
                     f"{r['max_rps']:.0f} | {ratio} | {r['errors']} |")
    table = "\n".join(lines)
    warm_lines = ["| target | warm-up runs, req/s | requests | warm |", "|---|---|---|---|"] + [
        f"| {k} | {' → '.join(f'{x:.0f}' for x in w['rps'])} | {w['requests']} | {'yes' if w['warm'] else 'no'} |"
        for k, w in warm.items()]
    (out / "bench.md").write_text(
        f"# Service throughput vs HTTP bound\n\n{meta['driver']}, {args.connections} connections, "
        f"{args.duration} s each, medians of {args.repeat} interleaved rounds, {meta['cores']} cores shared "
        f"by driver and stack.\n\nEvery target was warmed up before the rounds (JIT, pools): wrk runs of "
        f"{args.warmup} s until it had served {WARMUP_MIN_REQUESTS:,} requests and a run was at most "
        f"{WARMUP_TOLERANCE:.0%} faster than the one before (at most {WARMUP_MAX_RUNS} runs). Those runs "
        f"are not in the table" + (f"; NOT warm after them (figures may be low): {', '.join(cold)}"
                                   if cold else "") + ".\n\n"
        f"{table}\n\n## Warm-up\n\n" + "\n".join(warm_lines) + "\n")
    return table


def _cores() -> int:
    import os
    return os.cpu_count() or 0
