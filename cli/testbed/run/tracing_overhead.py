"""Tracing overhead benchmark (`./testbed run tracing-overhead`): what tracing costs the stack --
the figures that decide that tracing waits for `--tracing` (docs/tracing.md).

Saturation throughput and p95 latency of the whole request path (/seg/5 -> clone -> the
service's ping, wrk with C keep-alive connections through HAProxy, CLIENT_MODE=pool so the
host's CPU is the limit: behind the singleton's lock a cost in CPU would not show), side by side:
  off     the stack as `./testbed up` starts it: no Zipkin, no agent, HAProxy without the
          tracing lines
  0%      tracing on (`up --tracing`: Zipkin, the OpenTelemetry agent in every Java tier, the
          span relay), no request sampled: what being ready to trace costs
  1%      tracing on, 1 % of requests carry a sampled traceparent (Locust's default share)
  100%    tracing on, every request traced
wrk's Lua script (the same for every condition) sets the traceparent on that share of requests;
Locust's own client span is not part of this figure (it is the load generator's cost).
Conditions are interleaved per round (round_order: off, then 0 % and 1 % swapping places and 100 %
last, since Zipkin keeps what it was sent; switching tracing on or off
restarts the stack, after which the tiers are warmed up until they stop speeding up), each
measured after a 5 s run; figures are medians over rounds with the ratio to `off`.
Results: results/tracing-overhead-<time>/overhead.{json,md}. Local stack only.
"""
from __future__ import annotations

import re
import statistics
import subprocess
import time
from pathlib import Path

from testbed import procs
from testbed.bench import STACK_WARMUP_MAX_RUNS, parse_wrk, warm_up
from testbed.run import results

CONDITIONS = (("off", None), ("0%", 0.0), ("1%", 0.01), ("100%", 1.0))


def round_order(rnd: int) -> list[tuple[str, float | None]]:
    """The conditions of round `rnd`: `off`, then the traced ones in a freshly started stack with
    0 % and 1 % swapping places from round to round and 100 % always last — Zipkin keeps the
    spans it was sent, and a condition measured after 100 % in the same stack read 15-20 % lower
    than the same condition measured before it (2026-11-25)."""
    off, zero, one, full = CONDITIONS
    return [off, zero, one, full] if rnd % 2 == 0 else [off, one, zero, full]
PATH = "/seg/5?backend={backend}&op=ping&n=0"
TIERS = {"front": 1, "clone": 1, "axis": 1, "gsoap": 1}

# wrk: a W3C traceparent (random ids, sampled flag) on SHARE of the requests; p50/p95 at the end
SCRIPT = """-- tracing-overhead (cli/testbed/run/tracing_overhead.py): traceparent on a share of requests
local share = {share}
local function hex16() return string.format("%04x", math.random(0, 65535)) end
local function id(parts)
  local s = ""
  for _ = 1, parts do s = s .. hex16() end
  return s
end
function setup(thread) math.randomseed(os.time() + math.random(1, 1000000)) end
function init(args) math.randomseed(os.time() * 1000 + math.random(1, 1000000)) end
function request()
  if share > 0 and math.random() < share then
    return wrk.format(nil, nil, {{["traceparent"] = "00-" .. id(8) .. "-" .. id(4) .. "-01"}})
  end
  return wrk.format()
end
function done(summary, latency, requests)
  io.write(string.format("p50_us %d\\np95_us %d\\n", latency:percentile(50), latency:percentile(95)))
end
"""


def script(folder: Path, share: float) -> Path:
    path = folder / f"traceparent-{share:g}.lua"
    path.write_text(SCRIPT.format(share=repr(share)))
    return path


def measure(url: str, connections: int, duration: int, lua: Path) -> dict:
    argv = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--timeout", "10s", "-s", str(lua), url]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    if r.returncode != 0:
        raise RuntimeError(f"wrk failed: {r.stderr.strip() or r.stdout.strip()}")
    res = parse_wrk(r.stdout)
    for key in ("p50_us", "p95_us"):
        m = re.search(rf"^{key} (\d+)$", r.stdout, re.M)
        res[key.replace("_us", "_ms")] = int(m.group(1)) / 1000 if m else None
    return res


def _stack(stack, tracing: bool, say) -> None:
    """The stack with tracing on or off (a restart when it changes)."""
    if stack.running():
        if bool(stack.tracing_url()) == tracing:
            return
        say(f"tracing-overhead: restarting the stack with tracing {'on' if tracing else 'off'}")
        stack.down()
    stack.up(TIERS, {"CLIENT_MODE": "pool"}, locust=False, tracing=tracing)


def main(stack, results_dir: Path, quick: bool = False, rounds: int = 3, connections: int = 32,
         backend: str = "axis", say=print) -> int:
    if stack.mode != "local":
        say("tracing-overhead: measures the local stack (./testbed down the containers first)")
        return 2
    if stack.running():
        say("tracing-overhead: a stack is running; it starts its own (./testbed down first)")
        return 2
    from testbed import build
    build.ensure(list(TIERS), tracing=True)
    duration, warmup = (10, 5) if quick else (30, 5)
    rounds = 1 if quick else rounds
    started = time.time()
    folder = results.new_folder(results_dir, "tracing-overhead", started)
    url = stack.entry_url("web") + PATH.format(backend=backend)
    scripts = {name: script(folder, share or 0.0) for name, share in CONDITIONS}
    rows: list[dict] = []
    try:
        for rnd in range(rounds):
            order = round_order(rnd)
            for name, share in order:
                was = stack.tracing_url() if stack.running() else "down"
                _stack(stack, share is not None, say)
                warm = None     # after a restart: did the warm-up see the JVMs stop speeding up
                if was == "down" or bool(was) != (share is not None):      # fresh JVMs: the JIT
                    w = warm_up([("stack", "web", "seg5", url, scripts[name], None)], connections, warmup, say,
                                max_runs=STACK_WARMUP_MAX_RUNS)
                    warm = all(t["warm"] for t in w.values())
                else:
                    measure(url, connections, warmup, scripts[name])
                zipkin = _zipkin_pid(stack)
                cpu0 = _cpu(zipkin)
                res = measure(url, connections, duration, scripts[name])
                cpu1 = _cpu(zipkin)
                rows.append({"round": rnd, "condition": name, "share": share, "rps": res["rps"],
                             "p50_ms": res["p50_ms"], "p95_ms": res["p95_ms"], "requests": res["requests"],
                             "errors": res["non_2xx"] + res["socket_errors"], "warm_after_restart": warm,
                             "zipkin_cpu_pct": (cpu1 - cpu0) / duration * 100 if cpu0 is not None and cpu1 is not None
                             else None})
                say(f"tracing-overhead: round {rnd + 1}/{rounds} {name:5s} {res['rps']:8.1f} req/s, "
                    f"p95 {res['p95_ms']} ms")
                _write(folder, rows, rounds, duration, connections, started, backend)
        table = _write(folder, rows, rounds, duration, connections, started, backend)
    except KeyboardInterrupt:
        say(f"\ntracing-overhead: interrupted; partial results in {folder}")
        return 130
    finally:
        stack.down()
    say("\n" + table + f"\ntracing-overhead: results in {folder}")
    return 0


def _zipkin_pid(stack) -> int | None:
    tr = stack.load().get("tracing") if hasattr(stack, "load") else None
    return tr["zipkin"].pid if tr and tr.get("zipkin") and tr["zipkin"].alive() else None


def _cpu(pid: int | None) -> float | None:
    from testbed.bench import cpu_seconds
    return cpu_seconds(pid)


def _med(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _write(folder: Path, rows: list[dict], rounds: int, duration: int, connections: int, started: float,
           backend: str) -> str:
    names = [n for n, _ in CONDITIONS]
    med = {n: {k: _med([r[k] for r in rows if r["condition"] == n]) for k in ("rps", "p95_ms", "p50_ms",
                                                                             "zipkin_cpu_pct")} for n in names}
    off = med["off"]
    ratio = {n: {"rps": med[n]["rps"] / off["rps"] if med[n]["rps"] and off["rps"] else None,
                 "p95_ms": med[n]["p95_ms"] / off["p95_ms"] if med[n]["p95_ms"] and off["p95_ms"] else None}
             for n in names}
    results.write_json(folder / "overhead.json", {
        "started": started, "rounds": rounds, "duration_s": duration, "connections": connections,
        "path": PATH.format(backend=backend), "client_mode": "pool", "host": results.host(),
        "load_average_at_end": list(__import__("os").getloadavg()),
        "median": med, "ratio_to_off": ratio, "runs": rows})
    lines = ["| condition | runs | median req/s | throughput ÷ off | median p95 (ms) | p95 ÷ off | Zipkin CPU (% of a core) |",
             "|---|---|---|---|---|---|---|"]
    for n in names:
        k = sum(1 for r in rows if r["condition"] == n)
        m, q = med[n], ratio[n]
        f = lambda v, spec: "-" if v is None else format(v, spec)  # noqa: E731
        lines.append(f"| {n} | {k} | {f(m['rps'], '.1f')} | {f(q['rps'], '.3f')} | {f(m['p95_ms'], '.2f')} | "
                     f"{f(q['p95_ms'], '.3f')} | {f(m['zipkin_cpu_pct'], '.1f')} |")
    table = "\n".join(lines)
    (folder / "overhead.md").write_text(
        f"# Tracing overhead\n\nwrk, {connections} connections, {duration} s per run after a warm-up run, "
        f"{PATH.format(backend=backend)} with CLIENT_MODE=pool; medians of {rounds} interleaved round(s); "
        f"the share of requests with a sampled traceparent per condition (wrk's Lua script).\n\n{table}\n")
    return table
