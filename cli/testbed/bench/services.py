"""Service throughput against this machine's HTTP bound.

For `ping` and `sendInts` n=1000 (or the operations `--ops` names, e.g.
`--ops ping,sendInts:1000,sendDoubles:100000`), on each service (gSOAP in the `pool` model),
with wrk holding C keep-alive connections: through HAProxy and direct to the replica — and, in
the same run, wrk against HAProxy's `bound` frontend, which answers by itself: the most
requests/s this machine carries through HAProxy. Each figure is reported as requests/s and
as a ratio to that bound, and with the service process's own CPU time per request (user +
system, all its threads, from /proc; local mode): on a machine shared with other work,
requests/s follow whatever CPU share the service got, CPU per request does not. Measurements
are interleaved (every target once per round) so a noisy neighbour affects all alike; medians
of the rounds are reported.

gSOAP is measured with both serializers of its arrays (GSOAP_SERIALIZERS, `--serializers`):
the stack's gSOAP replica runs the stack's (target `gsoap`), and for each other one bench
starts a gSOAP process of its own for the run (local mode; the stack's knobs, a free port,
target `gsoap-<serializers>`, direct only: HAProxy routes /gsoap to the stack's), so that
generated and tuned serializers are measured side by side in one run.

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
import time
from pathlib import Path

import requests

from testbed import ROOT, contract, procs, tiers
from testbed.bench.wrk import WARMUP_MAX_RUNS, WARMUP_MIN_REQUESTS, WARMUP_TOLERANCE, warm_up, wrk
from testbed.procs import ProcError
from testbed.stack import Stack, StackError
from testbed.stacks.factory import open_stack

WRK_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/xml; charset=utf-8"
wrk.headers["SOAPAction"] = '"urn:{op}"'
local f = assert(io.open("{body}", "rb"))
wrk.body = f:read("*a")
f:close()
"""

DEFAULT_OPS = "ping,sendInts:1000"
SERIALIZERS = ("generated", "tuned")
DEFAULT_SERIALIZERS = "generated,tuned"


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


def parse_serializers(text: str) -> list[str]:
    """'generated,tuned' -> the gSOAP serializers to measure."""
    out = [x.strip() for x in text.split(",") if x.strip()]
    bad = [x for x in out if x not in SERIALIZERS]
    if bad or not out:
        raise SystemExit(f"bench: --serializers: {', '.join(bad) or 'empty'}; give generated, tuned or both "
                         "(e.g. --serializers generated,tuned)")
    return out


def stack_serializers(stack: Stack) -> str:
    return stack.cfg.knobs.get("GSOAP_SERIALIZERS", "tuned")


def start_gsoap_variants(stack: Stack, wanted: list[str], logs: Path, say=print) -> list[tuple]:
    """A gSOAP process for each serializers the stack's gSOAP does not run (local mode only):
    the stack's knobs, a free loopback port. [(name, url, proc)]; the caller stops them."""
    others = [v for v in wanted if v != stack_serializers(stack)]
    if not others:
        return []
    if stack.mode != "local":
        say(f"bench: note: the {', '.join(others)} serializers are measured only with a local stack "
            f"(this one runs gSOAP with {stack_serializers(stack)} in containers)")
        return []
    tier = tiers.TIERS["gsoap"]
    started = []
    try:
        for variant in others:
            port = procs.free_port()
            env = tiers.process_env(tier, port, stack.cfg.knobs, extra={"GSOAP_SERIALIZERS": variant})
            proc = procs.start(f"bench-gsoap-{variant}", tier.argv(), logs / f"gsoap-{variant}.log", env=env,
                               port=port, cwd=ROOT, cpus=stack.cfg.stack_cpus)
            started.append((f"gsoap-{variant}", f"http://127.0.0.1:{port}/gsoap", proc))
            procs.wait_healthy(proc, f"http://127.0.0.1:{port}{tier.health_path}", tier.start_timeout)
            say(f"bench: gSOAP with the {variant} serializers on port {port} (pid {proc.pid}) for this run")
    except ProcError:
        for _, _, proc in started:
            procs.stop(proc)
        raise
    return started


def op_key(op: str, n: int) -> str:
    return op if op == "ping" else f"{op}:{n}"


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


def targets(stack: Stack, st: dict) -> list[tuple[str, str, str, int | None]]:
    """(service, route, url, pid of the replica) for each service, through HAProxy and direct,
    from the stack's status st. Through HAProxy the pid is the one replica's when the tier has
    exactly one; no pid where the replica is not a process of this host's namespace (containers)."""
    out = []
    for svc in ("gsoap", "axis"):
        reps = [r for r in st["replicas"] if r["tier"] == svc and r["healthy"]]
        if not reps:
            raise RuntimeError(f"no healthy {svc} replica; ./testbed up first")
        pid = reps[0].get("pid") if stack.mode == "local" else None
        out.append((svc, "haproxy", f"{stack.entry_url('soap')}/{svc}", pid if len(reps) == 1 else None))
        out.append((svc, "direct", f"{reps[0]['url']}/{svc}", pid))
    return out


def main(args) -> int:
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk not found; install it: sudo apt-get install -y wrk")
    try:
        stack = open_stack()
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
    ops = parse_ops(getattr(args, "ops", None) or DEFAULT_OPS)
    wanted = parse_serializers(getattr(args, "serializers", None) or DEFAULT_SERIALIZERS)
    scripts = {}
    for op, n in ops:
        name = op_key(op, n).replace(":", "-")
        body = out / f"{name}.xml"
        body.write_bytes(contract.envelope(op, n))
        scripts[(op, n)] = out / f"{name}.lua"
        scripts[(op, n)].write_text(WRK_LUA.format(op=op, body=body))
    st = stack.status()
    variants = start_gsoap_variants(stack, wanted, out / "logs", say)
    try:
        tgts = targets(stack, st) + [(name, "direct", url, proc.pid) for name, url, proc in variants]
        serializers = {"gsoap": stack_serializers(stack), **{name: name.split("-", 1)[1] for name, _, _ in variants}}
        for svc, route, url, _ in tgts:
            for op, n in ops:
                check_answer(url, op, n)
        bound_url = stack.entry_url("bound") + "/"
        haproxy_pid = (st.get("haproxy") or {}).get("pid") if stack.mode == "local" else None
        plan = [("bound", "haproxy", "GET", bound_url, None, haproxy_pid)] + [
            (svc, route, op_key(op, n), url, scripts[(op, n)], pid)
            for svc, route, url, pid in tgts for op, n in ops]
        return _rounds(out, args, plan, serializers, say)
    finally:
        for _, _, proc in variants:
            procs.stop(proc)


def _rounds(out: Path, args, plan: list[tuple], serializers: dict[str, str], say) -> str:
    warm = warm_up(plan, args.connections, args.warmup, say)
    samples: dict[str, list[dict]] = {}
    _write(out, args, samples, warm, serializers)
    for rnd in range(1, args.repeat + 1):
        for svc, route, op, url, script, pid in plan:
            key = f"{svc}/{route}/{op}"
            res = wrk(url, args.connections, args.duration, script, pid)
            samples.setdefault(key, []).append(res)
            cpu = f"  {res['cpu_us_per_req']:8.0f} µs CPU/req" if res["cpu_us_per_req"] else ""
            say(f"bench: round {rnd}/{args.repeat} {key:24s} {res['rps']:10.0f} req/s{cpu}"
                + (f"  ({res['non_2xx']} non-2xx, {res['socket_errors']} socket errors)"
                   if res["non_2xx"] or res["socket_errors"] else ""), flush=True)
            _write(out, args, samples, warm, serializers)
    return _write(out, args, samples, warm, serializers)


def _write(out: Path, args, samples: dict[str, list[dict]], warm: dict[str, dict],
           serializers: dict[str, str] | None = None) -> str:
    """bench.json and bench.md from the samples so far; serializers: gSOAP target -> its
    serializers (generated | tuned)."""
    serializers = serializers or {}
    med = {k: statistics.median(s["rps"] for s in v) for k, v in samples.items()}
    bound = med.get("bound/haproxy/GET")
    rows = []
    for key, v in samples.items():
        cpu = [s["cpu_us_per_req"] for s in v if s.get("cpu_us_per_req")]
        rows.append({"target": key, "runs": len(v), "median_rps": round(med[key], 1),
                     "min_rps": round(min(s["rps"] for s in v), 1), "max_rps": round(max(s["rps"] for s in v), 1),
                     "ratio_to_bound": round(med[key] / bound, 4) if bound else None,
                     "cpu_us_per_req": round(statistics.median(cpu), 1) if cpu else None,
                     "errors": sum(s["non_2xx"] + s["socket_errors"] for s in v),
                     "warm": warm[key]["warm"]})
    cold = [k for k, w in warm.items() if not w["warm"]]
    meta = {"connections": args.connections, "duration_s": args.duration, "repeat": args.repeat,
            "driver": "wrk -t 2 (same machine as the stack)", "cores": _cores(),
            "warmup": {"run_s": args.warmup, "max_runs": WARMUP_MAX_RUNS, "tolerance": WARMUP_TOLERANCE,
                       "min_requests": WARMUP_MIN_REQUESTS,
                       "note": "runs before the rounds, until a target stops speeding up; not in rows",
                       "targets": warm},
            "gsoap_serializers": serializers,
            "rows": rows,
            "gsoap_over_axis": gsoap_over_axis(med, {r["target"]: r["cpu_us_per_req"] for r in rows}),
            "tuned_over_generated": tuned_over_generated(
                med, {r["target"]: r["cpu_us_per_req"] for r in rows}, serializers)}
    (out / "bench.json").write_text(json.dumps(meta, indent=1))
    lines = ["| target | runs | median req/s | min | max | ratio to bound | CPU µs/req | errors |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio_to_bound']:.3f}" if r["ratio_to_bound"] is not None else "-"
        flag = " (not warm)" if not r["warm"] else ""
        cpu = f"{r['cpu_us_per_req']:.0f}" if r["cpu_us_per_req"] else "-"
        lines.append(f"| {r['target']}{flag} | {r['runs']} | {r['median_rps']:.0f} | {r['min_rps']:.0f} | "
                     f"{r['max_rps']:.0f} | {ratio} | {cpu} | {r['errors']} |")
    versus = meta["gsoap_over_axis"]
    names = meta["gsoap_serializers"]
    if versus:
        lines += ["", "| gSOAP | operation | route | gSOAP / Axis2 req/s | Axis2 / gSOAP CPU per request |",
                  "|---|---|---|---|---|"]
        lines += [f"| {v['service']} ({names.get(v['service'], '?')}) | {v['op']} | {v['route']} | {v['ratio']:.2f} | "
                  + (f"{v['cpu_ratio']:.2f}" if v.get("cpu_ratio") else "-") + " |" for v in versus]
    if meta["tuned_over_generated"]:
        lines += ["", "| operation | route | tuned / generated req/s | generated / tuned CPU per request |",
                  "|---|---|---|---|"]
        lines += [f"| {v['op']} | {v['route']} | {v['ratio']:.2f} | "
                  + (f"{v['cpu_ratio']:.2f}" if v.get("cpu_ratio") else "-") + " |" for v in meta["tuned_over_generated"]]
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


def gsoap_over_axis(med: dict[str, float], cpu: dict[str, float] | None = None) -> list[dict]:
    """Each gSOAP service's median req/s over Axis2's, and Axis2's CPU per request over
    gSOAP's (both: how many times gSOAP does better), for every operation and route both were
    measured on."""
    out = []
    cpu = cpu or {}
    for key, rps in med.items():
        svc, route, op = key.split("/", 2)
        other = med.get(f"axis/{route}/{op}")
        if svc.startswith("gsoap") and other:
            g, a = cpu.get(key), cpu.get(f"axis/{route}/{op}")
            out.append({"service": svc, "op": op, "route": route, "ratio": round(rps / other, 3),
                        "cpu_ratio": round(a / g, 3) if g and a else None})
    return out


def tuned_over_generated(med: dict[str, float], cpu: dict[str, float], serializers: dict[str, str]) -> list[dict]:
    """gSOAP with the tuned serializers over gSOAP with the generated ones, direct to each
    (measured side by side in one run): req/s ratio, and generated's CPU per request over tuned's."""
    by = {v: k for k, v in serializers.items()}
    tuned, generated = by.get("tuned"), by.get("generated")
    if not tuned or not generated:
        return []
    out = []
    for key, rps in med.items():
        svc, route, op = key.split("/", 2)
        other = med.get(f"{generated}/{route}/{op}")
        if svc == tuned and other:
            t, g = cpu.get(key), cpu.get(f"{generated}/{route}/{op}")
            out.append({"op": op, "route": route, "ratio": round(rps / other, 3),
                        "cpu_ratio": round(g / t, 3) if g and t else None})
    return out


def _cores() -> int:
    import os
    return os.cpu_count() or 0
