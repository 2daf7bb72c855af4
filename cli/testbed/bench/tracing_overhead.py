"""Tracing overhead benchmark (`./testbed run tracing-overhead`): what tracing costs the stack --
the figures that decide that tracing waits for `--tracing` (docs/tracing.md).

Saturation throughput and p95 latency of the whole request path (/seg/5 -> clone -> the
service's ping, wrk with C keep-alive connections through HAProxy, CLIENT_MODE=pool so the
host's CPU is the limit: behind the singleton's lock a cost in CPU would not show):
  off     the stack as `./testbed up` starts it: no Zipkin, no trace filter in the Java tiers,
          HAProxy without the tracing lines
  0%      tracing on (`up --tracing`: Zipkin, the Java tiers' trace filter and spans, gSOAP's
          exporter, the span relay), no request sampled: what being ready to trace costs
  1%      tracing on, 1 % of requests carry a sampled traceparent (Locust's default share)
  100%    tracing on, every request traced
wrk's Lua script (the same for every condition) sets the traceparent on that share of requests;
Locust's own client span is not part of this figure (it is the load generator's cost).

Side by side, not one after the other: switching tracing on or off means new JVMs, and a
stack restarted between conditions measured its JIT and its start-up, not tracing (rounds of
off, 0 %, 1 % with a restart between read 1 % at 0.99, 0.91 and 0.84 of off, 2026-11-25). So
a round starts two stacks at once -- `off` on the stack's own ports and a traced one on
ports of its own (replica_port_base + 1000) -- warms each up until it stops speeding up
(bench/wrk.py's rule) while the other is paused, then measures CYCLES cycles of off, 0 %, 1 %
(that order, then reversed), each run after a SETTLE_S s run that is not measured, the stack
not measured paused (SIGSTOP: every process of it, so it takes no CPU). 0 % and 1 % are the
same warm stack with a different share in wrk's script. 100 % is measured once at the end of
the round (Zipkin keeps what it was sent, which slowed the conditions after it by 15-20 %).
A cycle's ratio is its condition's throughput over off's in the same cycle; a round's figure is
the median of its cycles' ratios; the result is the median of the rounds' figures, with every
cycle's ratio, their mean and its 95 % interval. Each round starts both stacks afresh: two JVMs
of the same code differ by what their JIT compiled, and only new pairs show that spread.
Results: results/tracing-overhead-<time>/overhead.{json,md}. Local stack only. The order, the
ratios, their figures and the files are bench/overhead.py's, shared with monitoring-overhead.
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from testbed import procs
from testbed.stacks import ports as portplan
from testbed.observe import tracing
from testbed.bench import overhead
from testbed.bench.wrk import wrk
from testbed.cpu.clock import process_seconds
from testbed.config import StackConfig
from testbed.run import results

CONDITIONS = (("off", None), ("0%", 0.0), ("1%", 0.01), ("100%", 1.0))
SHARE = dict(CONDITIONS)
CYCLED = ("off", "0%", "1%")       # measured in every cycle; 100 % once, last in the round
CYCLES, RUN_S, SETTLE_S = 4, 15, 5
PATH = "/seg/5?backend={backend}&op=ping&n=0"
TIERS = {"front": 1, "clone": 1, "axis": 1, "gsoap": 1}
SLOT = 1000                        # the traced stack's replica ports: the stack's own + SLOT * k
UNCAPPED = "1000000"               # TRACING_MAX_PER_S of the traced stack: far above any rate here


def cycle_order(i: int) -> list[str]:
    """The conditions of cycle i: off, 0 %, 1 %, then reversed, so that a drift within a round
    (the JIT's last gains, the other stack's paused processes) falls on each alike."""
    return overhead.alternating(CYCLED, i)


# wrk: a W3C traceparent (random ids, sampled flag) on SHARE of the requests; p50/p95 at the end
SCRIPT = """-- tracing-overhead (cli/testbed/bench/tracing_overhead.py): traceparent on a share of requests
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


def traced_config(cfg: StackConfig) -> StackConfig:
    """The second stack's configuration: the first SLOT-port range above the stack's own whose
    ports (one replica a tier, Zipkin, the relay ...) are all free, entry ports free now, its own
    state folder and a copy of the knobs."""
    for k in range(1, 6):
        base = cfg.replica_port_base + SLOT * k
        if all(procs.port_free(p) for p in portplan.stack_ports(base, replicas=1)):
            return portplan.with_free_entry_ports(cfg, base, cfg.state_dir / "tracing-overhead", dict(cfg.knobs))
    raise RuntimeError(f"no free port range for the traced stack above {cfg.replica_port_base} "
                       f"(TESTBED_REPLICA_PORT_BASE): stop what listens there")


def pause(stack, paused: bool) -> None:
    """SIGSTOP (paused) or SIGCONT every process of a local stack: its replicas, HAProxy and what
    it runs (the span relay), Zipkin -- with their children."""
    state = stack.load()
    roots = [r["proc"] for reps in state["replicas"].values() for r in reps]
    roots += [p for p in [state.get("haproxy"), *tracing.all_procs(state.get("tracing"))] if p]
    procs.pause(roots, paused, tree=True)


def figures(rows: list[dict]) -> dict:
    """From the runs: per condition, every cycle's ratio to off in the same cycle (throughput and
    p95), each round's median of them, the median of the rounds' figures, and the mean of every
    cycle's ratio with its 95 % interval; 100 %: its run over the round's median off."""
    cycled = [r for r in rows if r["cycle"] is not None]
    out: dict[str, dict] = {}
    for name, _ in CONDITIONS[1:]:
        runs, group = ((cycled, lambda r: (r["round"], r["cycle"])) if name in CYCLED
                       else (rows, lambda r: (r["round"],)))
        per_round: dict[int, list[float]] = {}
        for (rnd, *_), xs in overhead.ratios_to(runs, "off", group).get(name, {}).items():
            per_round.setdefault(rnd, []).extend(xs)
        fig = overhead.figure([per_round[rnd] for rnd in sorted(per_round)])
        if fig is None:
            continue
        p95 = [x for xs in overhead.ratios_to(runs, "off", group, "p95_ms").get(name, {}).values() for x in xs]
        out[name] = {**fig, "p95_ratio_median": round(statistics.median(p95), 4) if p95 else None}
    return out


def main(stack, results_dir: Path, quick: bool = False, rounds: int = 3, connections: int = 32,
         backend: str = "axis", say=print) -> int:
    if stack.mode != "local":
        say("tracing-overhead: measures the local stack (./testbed down the containers first)")
        return 2
    if stack.running():
        say("tracing-overhead: a stack is running; it starts its own (./testbed down first)")
        return 2
    from testbed import build
    from testbed.stacks.local import LocalStack
    build.ensure(list(TIERS), tracing=True)
    rounds, cycles, run_s, settle_s = (1, 1, 5, 3) if quick else (rounds, CYCLES, RUN_S, SETTLE_S)
    try:
        traced = LocalStack(traced_config(stack.cfg), stack.log)
    except RuntimeError as e:
        say(f"tracing-overhead: {e}")
        return 2
    if traced.running():
        traced.down()                    # left by a run killed outright
    started = time.time()
    folder = results.new_folder(results_dir, "tracing-overhead", started)
    scripts = {name: script(folder, share or 0.0) for name, share in CONDITIONS}
    urls = {name: (stack if name == "off" else traced).entry_url("web") + PATH.format(backend=backend)
            for name, _ in CONDITIONS}
    rows: list[dict] = []
    warm: list[dict] = []                # per round: did each stack's warm-up see it stop speeding up
    table = ""

    def only(st) -> None:            # the other stack paused, this one running
        pause(traced if st is stack else stack, True)
        pause(st, False)

    def down_both() -> None:         # a stopped process would not hear the SIGTERM of down
        for st in (stack, traced):
            pause(st, False)
            st.down()

    def run(name: str, rnd: int, cycle: int | None) -> None:
        st = stack if name == "off" else traced
        only(st)
        wrk(urls[name], connections, settle_s, scripts[name])              # after a pause: not measured
        zipkin = _zipkin_pid(traced) if st is traced else None
        cpu0 = process_seconds(zipkin)
        res = wrk(urls[name], connections, run_s, scripts[name])
        cpu1 = process_seconds(zipkin)
        rows.append({"round": rnd, "cycle": cycle, "condition": name, "share": SHARE[name], "rps": res["rps"],
                     "p50_ms": res["p50_ms"], "p95_ms": res["p95_ms"], "requests": res["requests"],
                     "errors": res["non_2xx"] + res["socket_errors"],
                     "zipkin_cpu_pct": (cpu1 - cpu0) / run_s * 100 if cpu0 is not None and cpu1 is not None
                     else None})
        say(f"tracing-overhead: round {rnd + 1}/{rounds}" + (f" cycle {cycle + 1}/{cycles}" if cycle is not None
                                                             else "") +
            f" {name:5s} {res['rps']:8.1f} req/s, p95 {res['p95_ms']} ms")

    try:
        for rnd in range(rounds):
            say(f"tracing-overhead: round {rnd + 1}/{rounds}: two stacks, tracing off and on")
            stack.up(TIERS, {"CLIENT_MODE": "pool"}, locust=False, tracing=False)
            # 100 % means every request traced: no rate cap of sampled requests (TRACING_MAX_PER_S)
            traced.up(TIERS, {"CLIENT_MODE": "pool", "TRACING_MAX_PER_S": UNCAPPED}, locust=False, tracing=True)
            warm.append({})
            for st, name in ((stack, "off"), (traced, "1%")):     # fresh JVMs: the JIT, one stack at a time
                only(st)
                warm[-1][name] = overhead.warm_stack(urls[name], connections, 5, say, scripts[name])
            for i in range(cycles):
                for name in cycle_order(i):
                    run(name, rnd, i)
                table = _write(folder, rows, rounds, cycles, run_s, connections, started, backend, warm)
            run("100%", rnd, None)
            table = _write(folder, rows, rounds, cycles, run_s, connections, started, backend, warm)
            down_both()
    except KeyboardInterrupt:
        say(f"\ntracing-overhead: interrupted; partial results in {folder}")
        return 130
    finally:
        down_both()
    say("\n" + table + f"\ntracing-overhead: results in {folder}")
    return 0


def _zipkin_pid(stack) -> int | None:
    tr = stack.load().get("tracing")
    return tr["zipkin"].pid if tr and tr.get("zipkin") and tr["zipkin"].alive() else None


def _write(folder: Path, rows: list[dict], rounds: int, cycles: int, run_s: int, connections: int,
           started: float, backend: str, warm: list[dict]) -> str:
    names = [n for n, _ in CONDITIONS]
    med = {n: {k: overhead.median([r[k] for r in rows if r["condition"] == n])
               for k in ("rps", "p95_ms", "p50_ms", "zipkin_cpu_pct")} for n in names}
    fig = figures(rows)
    data = {
        "started": started, "rounds": rounds, "cycles": cycles, "duration_s": run_s, "connections": connections,
        "path": PATH.format(backend=backend), "client_mode": "pool", "host": results.host(),
        "method": "two stacks side by side, the one not measured paused (SIGSTOP)", "warm_per_round": warm,
        "load_average_at_end": list(os.getloadavg()),
        "median": med, "ratio_to_off": fig, "runs": rows}
    f = lambda v, spec: "-" if v is None else format(v, spec)  # noqa: E731
    lines = ["| condition | runs | median req/s | throughput ÷ off: median of rounds | rounds | every ratio: "
             "mean [95 % interval] | p95 ÷ off | Zipkin CPU (% of a core) |", "|---|---|---|---|---|---|---|---|"]
    for n in names:
        k = sum(1 for r in rows if r["condition"] == n)
        m, q = med[n], fig.get(n)
        if n == "off":
            lines.append(f"| off | {k} | {f(m['rps'], '.1f')} | 1 | | | 1 | - |")
        elif q:
            ci = f"{q['mean']:.3f} [{q['ci95'][0]:.3f}–{q['ci95'][1]:.3f}]" if q["ci95"] else "-"
            lines.append(f"| {n} | {k} | {f(m['rps'], '.1f')} | **{q['median']:.3f}** | "
                         f"{', '.join(format(x, '.3f') for x in q['rounds'])} | {ci} | "
                         f"{f(q['p95_ratio_median'], '.3f')} | {f(m['zipkin_cpu_pct'], '.1f')} |")
    return overhead.write(folder, data, "Tracing overhead", (
        f"wrk, {connections} connections, {run_s} s runs, {PATH.format(backend=backend)} "
        f"with CLIENT_MODE=pool; two stacks side by side (tracing off; tracing on), the one not measured "
        f"paused; {rounds} round(s) of fresh stacks, {cycles} cycle(s) of off, 0 %, 1 % each, 100 % last; "
        f"a ratio is a run's throughput over off's in the same cycle (100 %: over the round's median off); "
        f"the share of requests with a sampled traceparent per condition (wrk's Lua script)."), lines)
