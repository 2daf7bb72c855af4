"""Service throughput against this machine's HTTP bound.

For `ping` and `sendInts` n=1000, on each service (gSOAP in the `pool` model), with wrk
holding C keep-alive connections: through HAProxy and direct to the replica — and, in
the same run, wrk against HAProxy's `bound` frontend, which answers by itself: the most
requests/s this machine carries through HAProxy. Each figure is reported as requests/s and
as a ratio to that bound. Measurements are interleaved (every target once per round) so a
noisy neighbour affects all alike; medians of the rounds are reported.
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
        stack.up({"axis": 1, "gsoap": 1})
        started_here = True
    elif stack.cfg.knobs.get("GSOAP_SERVER_MODEL", "pool") != "pool":
        print("bench: note: GSOAP_SERVER_MODEL is not 'pool' in this stack")
    out = Path(args.output or ROOT / "results" / f"bench-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    try:
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
        samples: dict[str, list[dict]] = {}
        for rnd in range(1, args.repeat + 1):
            for svc, route, op, url, script in plan:
                key = f"{svc}/{route}/{op}"
                res = wrk(url, args.connections, args.duration, script)
                samples.setdefault(key, []).append(res)
                print(f"bench: round {rnd}/{args.repeat} {key:24s} {res['rps']:10.0f} req/s"
                      + (f"  ({res['non_2xx']} non-2xx, {res['socket_errors']} socket errors)"
                         if res["non_2xx"] or res["socket_errors"] else ""), flush=True)
                _write(out, args, samples)
        table = _write(out, args, samples)
        print("\n" + table)
        print(f"bench: results in {out}")
    finally:
        if started_here:
            stack.down()
    return 0


def _write(out: Path, args, samples: dict[str, list[dict]]) -> str:
    med = {k: statistics.median(s["rps"] for s in v) for k, v in samples.items()}
    bound = med.get("bound/haproxy/GET")
    rows = []
    for key, v in samples.items():
        rows.append({"target": key, "runs": len(v), "median_rps": round(med[key], 1),
                     "min_rps": round(min(s["rps"] for s in v), 1), "max_rps": round(max(s["rps"] for s in v), 1),
                     "ratio_to_bound": round(med[key] / bound, 4) if bound else None,
                     "errors": sum(s["non_2xx"] + s["socket_errors"] for s in v)})
    meta = {"connections": args.connections, "duration_s": args.duration, "repeat": args.repeat,
            "driver": "wrk -t 2 (same machine as the stack)", "cores": _cores(), "rows": rows}
    (out / "bench.json").write_text(json.dumps(meta, indent=1))
    lines = [f"| target | runs | median req/s | min | max | ratio to bound | errors |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio_to_bound']:.3f}" if r["ratio_to_bound"] is not None else "-"
        lines.append(f"| {r['target']} | {r['runs']} | {r['median_rps']:.0f} | {r['min_rps']:.0f} | "
                     f"{r['max_rps']:.0f} | {ratio} | {r['errors']} |")
    table = "\n".join(lines)
    (out / "bench.md").write_text(f"# Service throughput vs HTTP bound\n\n{meta['driver']}, "
                                  f"{args.connections} connections, {args.duration} s each, medians of "
                                  f"{args.repeat} interleaved rounds, {meta['cores']} cores shared by "
                                  f"driver and stack.\n\n{table}\n")
    return table


def _cores() -> int:
    import os
    return os.cpu_count() or 0
