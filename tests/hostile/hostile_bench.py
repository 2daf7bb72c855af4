"""Time and peak memory of every hostile input (tests/hostile/inputs.py) against both
services, directly and through HAProxy's soap entry: the figures of docs/hostile-input.md.

Starts its own processes on loopback (a gSOAP pool service and an Axis2 service on free
ports, and a private stack of HAProxy + axis + gsoap on free ports, tests/stacks.py), sends each
input once per route and service, and records: seconds until the answer was read (from the
first byte sent), the answer (HTTP status and faultcode), the service's peak RSS during the
input (VmHWM after resetting it via /proc/<pid>/clear_refs) and its RSS before and after,
whether a ping right after was answered, and whether anything connected to the URL of the
external-entity inputs. Writes figures.json and figures.md into the output folder.

    .venv/bin/python tests/hostile/hostile_bench.py [-o results/hostile-STAMP] [--cases a,b]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS.parent / "cli")]

from hostile import inputs  # noqa: E402
from soapwire import stream_exchange  # noqa: E402

SERVICES = ("gsoap", "axis")
ROUTES = ("direct", "haproxy")
COLUMNS = ("seconds", "answer", "peak_rss_mib", "rss_growth_mib", "ping_after", "fetched")


def measure(target: inputs.Target, pid: int, case: inputs.Hostile, listener) -> dict:
    """One hostile input against one service; never raises for the service's behaviour."""
    before = inputs.rss_mib(pid)
    peak_ok = inputs.reset_peak(pid)
    req = case.build(target)
    t0 = time.perf_counter()
    try:
        r = stream_exchange(target.host, target.port, req.head, req.body, timeout=120)
        answer = f"{r.status} {r.fault_code or ''}".strip()
        problem = inputs.verdict(r) or inputs.leaked(r)
    except (OSError, ConnectionError) as e:
        answer, problem = f"no answer: {type(e).__name__}", f"no answer ({e})"
    seconds = time.perf_counter() - t0
    alive = Path(f"/proc/{pid}").exists()
    row = {"seconds": round(seconds, 3), "answer": answer, "problem": problem,
           "peak_rss_mib": round(inputs.peak_mib(pid), 1) if alive and peak_ok else None,
           "rss_before_mib": round(before, 1),
           "rss_after_mib": round(inputs.rss_mib(pid), 1) if alive else None,
           "alive": alive, "ping_after": alive and ping_ok(target),
           "fetched": listener.connections()}
    row["rss_growth_mib"] = None if row["rss_after_mib"] is None else round(row["rss_after_mib"] - before, 1)
    return row


def ping_ok(t: inputs.Target) -> bool:
    from testbed import contract
    body = contract.envelope("ping")
    try:
        r = stream_exchange(t.host, t.port, inputs.head(t, "ping", len(body)), [body], timeout=30)
    except (OSError, ConnectionError):
        return False
    return r.status == 200 and b"pingResponse" in r.body


def start_processes(env: dict[str, str]):
    """(direct servers by service, the stack): every process on loopback."""
    from stacks import make_stack_config, start_tier
    from testbed.stacks.local import LocalStack
    direct = {"gsoap": start_tier("gsoap", "bench-gsoap", "/gsoap", {"GSOAP_SERVER_MODEL": "pool", **env}),
              "axis": start_tier("axis", "bench-axis", "/axis", env)}
    knobs = {f"{s.upper()}_{k}": v for s in SERVICES for k, v in env.items()}
    stack = LocalStack(make_stack_config("hostile-bench", knobs), log=lambda *a: None)
    if stack.running():
        stack.down()
    stack.up({"axis": 1, "gsoap": 1})
    return direct, stack


def targets(direct, stack, fetch_url: str) -> dict[tuple[str, str], tuple[inputs.Target, int]]:
    out = {}
    state = stack.load()
    for s in SERVICES:
        out[("direct", s)] = (inputs.Target("127.0.0.1", direct[s].port, f"/{s}", inputs.OCCURS, fetch_url),
                              direct[s].proc.pid)
        out[("haproxy", s)] = (inputs.Target("127.0.0.1", stack.cfg.soap_port, f"/{s}", inputs.OCCURS, fetch_url),
                               state["replicas"][s][0]["proc"].pid)
    return out


def table(rows: list[dict]) -> str:
    """Markdown: one line per input, time / peak RSS / answer per route and service."""
    keys = [(route, s) for route in ROUTES for s in SERVICES]
    head = "| input | " + " | ".join(f"{s} {route}" for route, s in keys) + " |"
    lines = [head, "|" + "---|" * (len(keys) + 1)]
    by = {(r["case"], r["route"], r["service"]): r for r in rows}
    for case in dict.fromkeys(r["case"] for r in rows):
        cells = []
        for route, s in keys:
            r = by.get((case, route, s))
            if not r:
                cells.append("-")
                continue
            peak = "?" if r["peak_rss_mib"] is None else f"{r['peak_rss_mib']:.0f} MiB"
            flag = "" if not r["problem"] and r["ping_after"] and not r["fetched"] else " **!**"
            cells.append(f"{r['seconds']:.3f} s, {peak}, {r['answer']}{flag}")
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", type=Path, help="result folder (default results/hostile-<UTC stamp>)")
    ap.add_argument("--cases", help="comma-separated input names (default: all): " + ", ".join(inputs.CASES))
    args = ap.parse_args(argv)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = args.output or TESTS.parent / "results" / f"hostile-{stamp}"
    names = args.cases.split(",") if args.cases else list(inputs.CASES)
    unknown = [n for n in names if n not in inputs.CASES]
    if unknown:
        ap.error(f"unknown input(s) {', '.join(unknown)}; one of {', '.join(inputs.CASES)}")
    from testbed import procs
    listener = inputs.NoFetchListener()
    direct, stack = start_processes(inputs.SERVICE_LIMITS)
    rows = []
    try:
        where = targets(direct, stack, listener.url)
        for name in names:
            for route in ROUTES:
                for s in SERVICES:
                    target, pid = where[(route, s)]
                    row = {"case": name, "what": inputs.CASES[name].what, "route": route, "service": s,
                           **measure(target, pid, inputs.CASES[name], listener)}
                    rows.append(row)
                    print(f"{name:28} {route:8} {s:6} {row['seconds']:8.3f} s  peak "
                          f"{row['peak_rss_mib']} MiB  {row['answer']}{'  PROBLEM: ' + row['problem'] if row['problem'] else ''}",
                          flush=True)
    finally:
        stack.down()
        for server in direct.values():
            procs.stop(server.proc)
        listener.close()
    out.mkdir(parents=True, exist_ok=True)
    settings = {**inputs.SERVICE_LIMITS, "other limits": "defaults (docs/tiers.md)",
                "big body bytes": inputs.BIG_BODY_BYTES, "gsoap model": "pool"}
    (out / "figures.json").write_text(json.dumps({"format": 1, "started": stamp, "settings": settings,
                                                  "rows": rows}, indent=2) + "\n")
    bad = [r for r in rows if r["problem"] or not r["ping_after"] or r["fetched"]]
    md = (f"# Hostile SOAP input: time and peak RSS ({stamp} UTC)\n\n"
          f"{len(rows) - len(bad)} of {len(rows)} answers were a refusal (4xx or Client fault) "
          f"with the service answering ping right after and nothing fetched"
          f"{'' if not bad else '; **!** marks the others'}.\n\n"
          "Each cell: seconds from the first byte sent to the answer read, the service's peak "
          "RSS during the input, the answer (HTTP status, faultcode).\n\n" + table(rows) +
          f"\nSettings: {', '.join(f'{k} {v}' for k, v in settings.items())}.\n")
    (out / "figures.md").write_text(md)
    print(f"\n{md}\nwritten: {out}/figures.json, figures.md")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
