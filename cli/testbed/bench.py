"""Service throughput against this machine's HTTP bound.

For `ping` and `sendInts` n=1000 (or the operations `--ops` names, e.g.
`--ops ping,sendInts:1000,sendDoubles:100000`), on each service (gSOAP in the `pool` model),
with wrk holding C keep-alive connections: through HAProxy and direct to the replica — and, in
the same run, wrk against HAProxy's `bound` frontend, which answers by itself: the most
requests/s this machine carries through HAProxy. Each figure is reported as requests/s and
as a ratio to that bound, and with the service process's own CPU time per request (user +
system, all its threads, from /proc): on a machine shared with other work, requests/s follow
whatever CPU share the service got, CPU per request does not. Measurements are interleaved
(every target once per round) so a noisy neighbour affects all alike; medians of the rounds
are reported.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import requests

from testbed import ROOT, contract
from testbed.local import Stack

WRK_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/xml; charset=utf-8"
wrk.headers["SOAPAction"] = '"urn:{op}"'
local f = assert(io.open("{body}", "rb"))
wrk.body = f:read("*a")
f:close()
"""
DEFAULT_OPS = "ping,sendInts:1000"


def parse_ops(text: str) -> list[tuple[str, int]]:
    """'ping,sendInts:1000,sendDoubles:100000' -> [(op, n)]; n defaults to 0."""
    out = []
    for part in (x.strip() for x in text.split(",") if x.strip()):
        op, _, n = part.partition(":")
        if op not in contract.OPERATIONS or op == "work":
            raise SystemExit(f"bench: --ops: {op!r} is not a contract operation bench can drive "
                             f"(one of {', '.join(o for o in contract.OPERATIONS if o != 'work')})")
        if n and not n.isdigit():
            raise SystemExit(f"bench: --ops: {part!r}: the item count after ':' must be a whole number")
        out.append((op, int(n or 0)))
    if not out:
        raise SystemExit("bench: --ops is empty; e.g. --ops ping,sendInts:1000")
    return out


def op_key(op: str, n: int) -> str:
    return op if op == "ping" else f"{op}:{n}"


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


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU of a process and all its threads so far; None when it is gone."""
    if not pid:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url: str, connections: int, duration: int, script: Path | None, pid: int | None = None) -> dict:
    """One wrk run; with pid, also that process's CPU microseconds per request."""
    argv = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--timeout", "10s"]
    if script:
        argv += ["-s", str(script)]
    before = cpu_seconds(pid)
    r = subprocess.run(argv + [url], capture_output=True, text=True, timeout=duration + 60)
    after = cpu_seconds(pid)
    if r.returncode != 0:
        raise RuntimeError(f"wrk failed: {r.stderr.strip() or r.stdout.strip()}")
    res = parse_wrk(r.stdout)
    res["cpu_us_per_req"] = ((after - before) * 1e6 / res["requests"]
                             if before is not None and after is not None and res["requests"] else None)
    return res


def check_answer(url: str, op: str, n: int) -> None:
    """One real call before measuring: the service answers this body correctly."""
    resp = requests.post(url, data=contract.envelope(op, n), headers=contract.soap_headers(op), timeout=10)
    if resp.status_code != 200:
        raise RuntimeError(f"{url} {op}: HTTP {resp.status_code}: {resp.text[:300]}")
    if op in contract.SEND_OPERATIONS:
        kind = contract.KIND_OF[op]
        want = contract.checksum(kind, contract.items(kind, n))
        m = re.search(r"checksum>(\d+)<", resp.text)
        if not m or int(m.group(1)) != want:
            raise RuntimeError(f"{url} {op}: wrong checksum in {resp.text[:300]}")


def targets(stack: Stack) -> list[tuple[str, str, str, int | None]]:
    """(service, route, url, pid of the replica) for each service, through HAProxy and direct.
    Through HAProxy the pid is the one replica's when the tier has exactly one."""
    st = stack.status()
    urls = stack.urls()
    out = []
    for svc in ("gsoap", "axis"):
        reps = [r for r in st["replicas"] if r["tier"] == svc and r["healthy"]]
        if not reps:
            raise RuntimeError(f"no healthy {svc} replica; ./testbed up first")
        out.append((svc, "haproxy", urls[svc], reps[0]["pid"] if len(reps) == 1 else None))
        out.append((svc, "direct", f"http://127.0.0.1:{reps[0]['port']}/{svc}", reps[0]["pid"]))
    return out


def main(args) -> int:
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk not found; install it: sudo apt-get install -y wrk")
    stack = Stack()
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
        ops = parse_ops(getattr(args, "ops", None) or DEFAULT_OPS)
        scripts = {}
        for op, n in ops:
            name = op_key(op, n).replace(":", "-")
            body = out / f"{name}.xml"
            body.write_bytes(contract.envelope(op, n))
            scripts[(op, n)] = out / f"{name}.lua"
            scripts[(op, n)].write_text(WRK_LUA.format(op=op, body=body))
        tgts = targets(stack)
        for svc, route, url, _ in tgts:
            for op, n in ops:
                check_answer(url, op, n)
        bound_url = stack.urls()["bound"]
        haproxy_pid = (stack.status().get("haproxy") or {}).get("pid")
        plan = [("bound", "haproxy", "GET", bound_url, None, haproxy_pid)] + [
            (svc, route, op_key(op, n), url, scripts[(op, n)], pid)
            for svc, route, url, pid in tgts for op, n in ops]
        samples: dict[str, list[dict]] = {}
        for rnd in range(1, args.repeat + 1):
            for svc, route, op, url, script, pid in plan:
                key = f"{svc}/{route}/{op}"
                res = wrk(url, args.connections, args.duration, script, pid)
                samples.setdefault(key, []).append(res)
                cpu = f"  {res['cpu_us_per_req']:8.0f} µs CPU/req" if res["cpu_us_per_req"] else ""
                print(f"bench: round {rnd}/{args.repeat} {key:24s} {res['rps']:10.0f} req/s{cpu}"
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
        cpu = [s["cpu_us_per_req"] for s in v if s.get("cpu_us_per_req")]
        rows.append({"target": key, "runs": len(v), "median_rps": round(med[key], 1),
                     "min_rps": round(min(s["rps"] for s in v), 1), "max_rps": round(max(s["rps"] for s in v), 1),
                     "ratio_to_bound": round(med[key] / bound, 4) if bound else None,
                     "cpu_us_per_req": round(statistics.median(cpu), 1) if cpu else None,
                     "errors": sum(s["non_2xx"] + s["socket_errors"] for s in v)})
    meta = {"connections": args.connections, "duration_s": args.duration, "repeat": args.repeat,
            "driver": "wrk -t 2 (same machine as the stack)", "cores": _cores(), "rows": rows,
            "gsoap_over_axis": gsoap_over_axis(med, {r["target"]: r["cpu_us_per_req"] for r in rows})}
    (out / "bench.json").write_text(json.dumps(meta, indent=1))
    lines = [f"| target | runs | median req/s | min | max | ratio to bound | CPU µs/req | errors |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio_to_bound']:.3f}" if r["ratio_to_bound"] is not None else "-"
        cpu = f"{r['cpu_us_per_req']:.0f}" if r["cpu_us_per_req"] else "-"
        lines.append(f"| {r['target']} | {r['runs']} | {r['median_rps']:.0f} | {r['min_rps']:.0f} | "
                     f"{r['max_rps']:.0f} | {ratio} | {cpu} | {r['errors']} |")
    versus = meta["gsoap_over_axis"]
    if versus:
        lines += ["", "| operation | route | gSOAP / Axis2 req/s | Axis2 / gSOAP CPU per request |",
                  "|---|---|---|---|"]
        lines += [f"| {v['op']} | {v['route']} | {v['ratio']:.2f} | "
                  + (f"{v['cpu_ratio']:.2f}" if v.get("cpu_ratio") else "-") + " |" for v in versus]
    table = "\n".join(lines)
    (out / "bench.md").write_text(f"# Service throughput vs HTTP bound\n\n{meta['driver']}, "
                                  f"{args.connections} connections, {args.duration} s each, medians of "
                                  f"{args.repeat} interleaved rounds, {meta['cores']} cores shared by "
                                  f"driver and stack.\n\n{table}\n")
    return table


def gsoap_over_axis(med: dict[str, float], cpu: dict[str, float] | None = None) -> list[dict]:
    """gSOAP's median req/s over Axis2's, and Axis2's CPU per request over gSOAP's (both: how
    many times gSOAP does better), for every operation and route both were measured on."""
    out = []
    cpu = cpu or {}
    for key, rps in med.items():
        svc, route, op = key.split("/", 2)
        other = med.get(f"axis/{route}/{op}")
        if svc == "gsoap" and other:
            g, a = cpu.get(key), cpu.get(f"axis/{route}/{op}")
            out.append({"op": op, "route": route, "ratio": round(rps / other, 3),
                        "cpu_ratio": round(a / g, 3) if g and a else None})
    return out


def _cores() -> int:
    import os
    return os.cpu_count() or 0
