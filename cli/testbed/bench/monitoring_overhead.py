"""Monitoring overhead benchmark (`./testbed run monitoring-overhead`): what watching the stack
costs it -- the figures that decide what is always on and what waits for --monitoring.

Saturation throughput of the whole request path (/seg/5 -> clone -> Axis2 ping, wrk with C
keep-alive connections through HAProxy, CLIENT_MODE=pool so the host's CPU is the limit: behind
the singleton's lock an overhead in CPU would not show in throughput), side by side:
  off          the stack alone: the exporters are there (JMX agents, gSOAP's /metrics), nobody
               reads them, nobody looks at the Locust UI; Prometheus and the CPU exporter
               paused (SIGSTOP: no scrape, no CPU)
  tab          the Locust UI's Testbed tab read every 2 s as an open browser tab does
               (GET /stats/requests), Prometheus paused
  prometheus   Prometheus scraping every replica, HAProxy and the CPU exporter every
               MONITORING_SCRAPE_INTERVAL, nobody at the tab
  watched      both
  no-agent     the Java tiers restarted with METRICS_AGENT=0 (no JMX exporter agent at all),
               nobody watching: against `off`, the agent's cost per request while unread
Prometheus starts once, before the first run, and is paused and resumed between conditions:
started and stopped for each, the run right after its start read 0.79 and 0.82 of `off` in two
rounds of three (2026-11-27), the same condition later in the round 0.96-1.04. A resumed Prometheus gets a whole scrape interval of
load before the run is measured. Each run also records the CPU of the watchers themselves
(Prometheus, the CPU exporter, the Locust master that reads the tab's data) and of HAProxy (its
process tree), from /proc: where an overhead goes. A round is no-agent first (restarted, then
back, each time warmed up until the tiers stop speeding up: bench/wrk.py's rule), then the four
with the agent in an order that reverses every round; a condition's ratio is the median over
rounds of its throughput over `off`'s in the same round (the JVMs keep speeding up for many
minutes: a ratio of two medians would carry that drift), with the rounds' range.
Accounted cost, the second method (throughput at saturation moves by several percent from one
run to the next on a shared 2-core host, more than the 2 % asked about): each scraped endpoint
is read SCRAPES times with nobody else asking and its process's CPU per read measured; with
Prometheus' and the CPU exporter's own CPU (measured in the `prometheus` runs) that is what
scraping costs the host per second, as a share of its cores -- the throughput it can take away
from a CPU-bound stack.
Paired phase, the third: after the rounds, in the same warm stack, `off` and `watched`
alternate PAIRS times (ABBA order, Prometheus paused and resumed, runs of PAIR_S s after a scrape
interval of load): the median of the PAIRS ratios and the 95 % interval of their mean -- what
the throughput can say about a small overhead on this host.
Start-up: a clone started on its own with and without the agent, ROUNDS times each,
interleaved: seconds until its /health answers (the singleton builds its clients from the WSDL
before listening, so this is the tier's real start).
Results: results/monitoring-overhead-<time>/overhead.{json,md}. Local stack only. The order, the
ratios, their figures and the files are bench/overhead.py's, shared with tracing-overhead.
"""
from __future__ import annotations

import math
import threading
import time
import urllib.request
from pathlib import Path

from testbed import procs, tiers
from testbed.stacks import locust_ui
from testbed.observe import monitoring
from testbed.bench import overhead
from testbed.bench.wrk import wrk
from testbed.cpu.clock import CpuClock, host_cores
from testbed.stack import CpuTarget
from testbed.run import results

CONDITIONS = ("off", "tab", "prometheus", "watched", "no-agent")
TAB_POLL_S = 2.0                 # the Locust UI polls /stats/requests this often
PATH = "/seg/5?backend=axis&op=ping&n=0"
SCRAPES = 50                     # reads of each endpoint for its CPU per scrape
PAIRS, PAIR_S = 8, 15            # the paired phase: off and watched alternating, runs of 15 s


class _TabReader:
    """A browser tab on the Testbed tab: GET /stats/requests every TAB_POLL_S."""

    def __init__(self, url: str):
        self.url, self.reads = url + "stats/requests", 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self._stop.wait(TAB_POLL_S):
            try:
                urllib.request.urlopen(self.url, timeout=5).read()
                self.reads += 1
            except OSError:
                pass

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=10)


def _agents(stack, on: bool, say) -> bool:
    """The Java tiers restarted with METRICS_AGENT on or off; False when they already were."""
    want = "1" if on else "0"
    if stack.cfg.knobs.get("METRICS_AGENT", "1") == want:
        return False
    for tier in ("axis", "clone", "front"):
        say(f"monitoring-overhead: restarting {tier} with METRICS_AGENT={want}")
        stack.restart(tier, {"METRICS_AGENT": want})
    return True


def round_order(rnd: int) -> list[str]:
    """The conditions of round `rnd`: no-agent first (the Java tiers restarted without the agent,
    then again with it, each time warmed up), then the four with the agent in an order that
    reverses from round to round, so that the JIT's slow gains after the restart fall on each of
    them alike."""
    return ["no-agent"] + overhead.alternating([c for c in CONDITIONS if c != "no-agent"], rnd)


def _scraping(stack, on: bool) -> bool:
    """Prometheus and the CPU exporter running (SIGCONT) or paused (SIGSTOP): paused they read
    nothing and use no CPU, and no start-up of theirs lands in a run. True when they resumed."""
    return procs.pause(monitoring.all_procs(stack.load().get("monitoring")), paused=not on)


def _watchers(stack) -> list[CpuTarget]:
    """What watches the stack (Prometheus, the CPU exporter, the Locust master) and HAProxy,
    which answers the scrapes of its stats page (its process tree: the worker is a child)."""
    state = stack.load()
    out = [CpuTarget("watcher", p.name, p.pid) for p in monitoring.all_procs(state.get("monitoring")) +
           locust_ui.all_procs(state.get("locust"))[:1] if p.alive()]
    return out + [t for t in stack.cpu_targets() if t.tier == "haproxy"]


def _cpu_pct(clock: CpuClock, targets: list[CpuTarget], before: dict, seconds: float) -> dict[str, float]:
    after = clock.read(targets)
    return {(k[1] if k[0] == "watcher" else k[0]): round((after[k] - before[k]) / seconds * 100, 2)
            for k in after if k in before}


def _endpoints(stack) -> list[tuple[str, str, CpuTarget]]:
    """(name, URL, whose CPU answers it) of every endpoint Prometheus scrapes in the stack's tiers."""
    targets = {(t.tier, t.replica): t for t in stack.cpu_targets()}
    out = []
    for tier, reps in sorted(stack.load()["replicas"].items()):
        for r in reps:
            t = targets.get((tier, str(r["index"])))
            if t is not None:
                port = tiers.TIERS[tier].metrics_port(r["port"])
                out.append((f"{tier}-{r['index']}", f"http://127.0.0.1:{port}/metrics", t))
    if ("haproxy", "1") in targets:
        out.append(("haproxy", f"http://127.0.0.1:{stack.cfg.stats_port}/metrics", targets[("haproxy", "1")]))
    return out


def _scrape_costs(stack, say, n: int = SCRAPES) -> dict[str, float]:
    """name -> CPU milliseconds of the answering process per scrape, n scrapes of each, unloaded."""
    headers = stack.cfg.ui_headers()       # HAProxy's /metrics asks for them when UI_PASSWORD is set
    out = {}
    clock = CpuClock()
    for name, url, target in _endpoints(stack):
        def read():
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
                r.read()
        try:
            for _ in range(3):           # the first reads load and compile the exporter's code
                read()
            before = clock.read([target])
            for _ in range(n):
                read()
            after = clock.read([target])
        except OSError as e:
            say(f"monitoring-overhead: {name}'s {url} did not answer ({e}); its scrape cost is left out")
            continue
        key = (target.tier, target.replica)
        if key in before and key in after:
            out[name] = round((after[key] - before[key]) / n * 1000, 3)
    return out


def accounted(costs_ms: dict[str, float], interval_s: float, watchers_pct: dict[str, float], cores: int) -> dict:
    """What scraping costs the host: every endpoint's CPU per scrape once per interval, plus
    Prometheus' and the CPU exporter's own (% of a core), as a share of all its cores."""
    scrape_pct = sum(costs_ms.values()) / 1000 / interval_s * 100
    own_pct = sum(v for k, v in watchers_pct.items() if k in ("prometheus", "cpu-exporter"))
    share = (scrape_pct + own_pct) / (cores * 100)
    return {"scrapes_pct_of_a_core": round(scrape_pct, 3), "watchers_pct_of_a_core": round(own_pct, 3),
            "share_of_host": round(share, 4), "expected_ratio": round(1 - share, 4)}


def paired_ratios(rows: list[dict]) -> dict[str, list[float]]:
    """condition -> [its throughput / off's in the same round] over the rounds that have both."""
    per = overhead.ratios_to(rows, "off", lambda r: r["round"])
    return {c: [x for xs in per.get(c, {}).values() for x in xs] for c in CONDITIONS}


def pair_figures(pairs: list[dict]) -> dict | None:
    """The paired phase: watched / off of each pair, their median and range, and the mean
    ratio with its 95 % interval (Student's t over the pairs); None before two pairs."""
    fig = overhead.figure(list(overhead.ratios_to(pairs, "off", lambda r: r["pair"]).get("watched", {}).values()))
    if fig is None or fig["ci95"] is None:
        return None
    return {k: fig[k] for k in ("ratios", "median", "mean", "ci95")}     # a pair is its own round


def _startup(stack, agent: bool, run_dir: Path) -> float:
    """Seconds from starting a lone clone to its /health answering."""
    tier = tiers.TIERS["clone"]
    port = procs.free_port()
    env = tiers.process_env(tier, port, stack.cfg.knobs, extra={"SOAP_URL": stack.entry_url("soap")},
                            metrics_port=procs.free_port() if agent else None)
    env["METRICS_AGENT"] = "1" if agent else "0"
    t0 = time.monotonic()
    p = procs.start(f"startup-clone-{'agent' if agent else 'plain'}", tier.argv(),
                    run_dir / f"startup-{'agent' if agent else 'plain'}-{port}.log", env=env, port=port)
    try:
        procs.wait_healthy(p, f"http://127.0.0.1:{port}/health", tier.start_timeout)
        return time.monotonic() - t0
    finally:
        procs.stop(p)


def main(stack, results_dir: Path, quick: bool = False, rounds: int = 3, connections: int = 32,
         say=print) -> int:
    if stack.mode != "local":
        say("monitoring-overhead: measures the local stack (./testbed down the containers first)")
        return 2
    duration, warmup = (10, 5) if quick else (20, 5)
    rounds = 1 if quick else rounds
    if stack.running():
        say("monitoring-overhead: a stack is running; it starts its own (./testbed down first)")
        return 2
    from testbed import build
    build.ensure(["front", "clone", "axis"])
    stack.up({"front": 1, "clone": 1, "axis": 1}, {"CLIENT_MODE": "pool", "METRICS_AGENT": "1"}, locust=True)
    started = time.time()
    folder = results.new_folder(results_dir, "monitoring-overhead", started)
    rows: list[dict] = []
    startup: list[dict] = []
    pairs: list[dict] = []
    url = stack.entry_url("web") + PATH
    interval_s = monitoring.interval_seconds(monitoring.scrape_interval(stack.cfg.knobs))
    cold = True
    monitoring.switch(stack, True)      # started once: its start-up is in no run
    try:
        for rnd in range(rounds):
            for cond in round_order(rnd):
                cold |= _agents(stack, cond != "no-agent", say)
                resumed = _scraping(stack, cond in ("prometheus", "watched"))
                if cold:          # fresh JVMs: load them until they stop speeding up
                    overhead.warm_stack(url, connections, warmup, say)
                    cold = False
                else:             # resumed: a whole scrape interval (the first scrapes) before measuring
                    wrk(url, connections, max(warmup, math.ceil(interval_s)) if resumed else warmup, None)
                tab = _TabReader(locust_ui.direct_url(stack.cfg)) if cond in ("tab", "watched") else None
                watchers, clock = _watchers(stack), CpuClock()
                before = clock.read(watchers)
                with (tab or _Nothing()):
                    res = wrk(url, connections, duration, None)
                cpu = _cpu_pct(clock, watchers, before, duration)
                rows.append({"round": rnd, "condition": cond, "rps": res["rps"], "requests": res["requests"],
                             "errors": res["non_2xx"] + res["socket_errors"], "tab_reads": tab.reads if tab else 0,
                             "watchers_cpu_pct": cpu})
                say(f"monitoring-overhead: round {rnd + 1}/{rounds} {cond:10s} {res['rps']:8.1f} req/s"
                    + (f" ({tab.reads} tab reads)" if tab else "") + "  CPU % "
                    + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()))
                _write(folder, rows, startup, rounds, duration, connections, started, stack.cfg)
        cold |= _agents(stack, True, say)
        if cold:
            overhead.warm_stack(url, connections, warmup, say)
        pair_s = 5 if quick else PAIR_S
        for i in range(2 if quick else PAIRS):
            for cond in overhead.alternating(("off", "watched"), i):
                _scraping(stack, cond == "watched")
                wrk(url, connections, max(warmup, math.ceil(interval_s)), None)
                with (_TabReader(locust_ui.direct_url(stack.cfg)) if cond == "watched" else _Nothing()):
                    res = wrk(url, connections, pair_s, None)
                pairs.append({"pair": i, "condition": cond, "rps": res["rps"], "seconds": pair_s,
                              "errors": res["non_2xx"] + res["socket_errors"]})
                say(f"monitoring-overhead: pair {i + 1}/{2 if quick else PAIRS} {cond:8s} {res['rps']:8.1f} req/s")
            _write(folder, rows, startup, rounds, duration, connections, started, stack.cfg, pairs=pairs)
        _scraping(stack, True)
        monitoring.switch(stack, False)
        say(f"monitoring-overhead: CPU per scrape of every endpoint ({SCRAPES} reads each, no load)")
        costs = _scrape_costs(stack, say)
        for rnd in range(rounds):
            for agent in ((True, False) if rnd % 2 == 0 else (False, True)):
                secs = _startup(stack, agent, folder)
                startup.append({"round": rnd, "agent": agent, "seconds": secs})
                say(f"monitoring-overhead: start-up {'with' if agent else 'without'} the agent: {secs:.2f} s")
        table = _write(folder, rows, startup, rounds, duration, connections, started, stack.cfg, costs, pairs)
    except KeyboardInterrupt:
        say(f"\nmonitoring-overhead: interrupted; partial results in {folder}")
        return 130
    finally:
        _scraping(stack, True)          # a stopped process would not hear the SIGTERM of down
        stack.down()
    say("\n" + table + f"\nmonitoring-overhead: results in {folder}")
    return 0


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _write(folder: Path, rows: list[dict], startup: list[dict], rounds: int, duration: int, connections: int,
           started: float, cfg, costs: dict[str, float] | None = None, pairs: list[dict] | None = None) -> str:
    med = {c: overhead.median([r["rps"] for r in rows if r["condition"] == c]) for c in CONDITIONS}
    per_round = paired_ratios(rows)
    ratio = {c: overhead.median(per_round[c]) for c in CONDITIONS}
    paired = pair_figures(pairs or [])
    start = {a: overhead.median([s["seconds"] for s in startup if s["agent"] == a]) for a in (True, False)}
    interval = monitoring.scrape_interval(cfg.knobs)
    watch = {k: overhead.median([r["watchers_cpu_pct"][k] for r in rows if r["condition"] == "prometheus"
                                 and k in r["watchers_cpu_pct"]]) for k in ("prometheus", "cpu-exporter")}
    cost = accounted(costs, monitoring.interval_seconds(interval), {k: v for k, v in watch.items() if v is not None},
                     host_cores()) if costs else None
    data = {
        "started": started, "rounds": rounds, "duration_s": duration, "connections": connections,
        "path": PATH, "client_mode": "pool", "scrape_interval": interval,
        "tab_poll_s": TAB_POLL_S, "host": results.host(), "median_rps": med, "ratio_to_off": ratio,
        "ratios_per_round": per_round, "scrape_cpu_ms": costs or {}, "accounted": cost,
        "paired": paired, "pair_runs": pairs or [],
        "startup_s": {"agent": start[True], "no_agent": start[False]}, "runs": rows, "startup_runs": startup}
    lines = ["| condition | runs | median req/s | ratio to off (median of rounds) | rounds' ratios "
             "| watchers' CPU, % of a core (median) |", "|---|---|---|---|---|---|"]
    for c in CONDITIONS:
        runs = [r for r in rows if r["condition"] == c]
        names = sorted({k for r in runs for k in r.get("watchers_cpu_pct", {})})
        cpu = ", ".join(
            f"{k} {overhead.median([r['watchers_cpu_pct'][k] for r in runs if k in r['watchers_cpu_pct']]):.1f}"
            for k in names)
        spread = f"{min(per_round[c]):.3f}–{max(per_round[c]):.3f}" if per_round[c] else "-"
        lines.append(f"| {c} | {len(runs)} | {med[c] or 0:.1f} | {ratio[c]:.3f} | {spread} | {cpu} |" if ratio[c]
                     else f"| {c} | {len(runs)} | - | - | - | {cpu} |")
    if paired:
        lines.append(f"\nPaired phase ({len(paired['ratios'])} pairs of `off` and `watched` alternating in one warm "
                     f"stack, {pairs[0]['seconds']} s runs): watched / off median **{paired['median']:.3f}** "
                     f"[{min(paired['ratios']):.3f}–{max(paired['ratios']):.3f}], mean {paired['mean']:.3f}, "
                     f"95 % interval {paired['ci95'][0]:.3f}–{paired['ci95'][1]:.3f}.")
    if cost:
        lines.append(f"\nCPU per scrape, no load ({SCRAPES} reads each): " + ", ".join(
            f"{k} {v:.2f} ms" for k, v in sorted(costs.items())) +
            f". Scraping every {interval} costs the tiers {cost['scrapes_pct_of_a_core']:.2f} % of a core, "
            f"Prometheus and the CPU exporter {cost['watchers_pct_of_a_core']:.2f} %: "
            f"**{cost['share_of_host']:.2%} of the host's {host_cores()} cores**, a throughput ratio of "
            f"{cost['expected_ratio']:.3f} expected where the host's CPU is the limit.")
    if start[True] and start[False]:
        lines.append(f"\nclone start-up to /health (median of {sum(1 for s in startup if s['agent'])}): with the "
                     f"JMX agent {start[True]:.2f} s, without {start[False]:.2f} s "
                     f"({start[True] - start[False]:+.2f} s)")
    return overhead.write(folder, data, "Monitoring overhead", (
        f"wrk, {connections} connections, {duration} s per run after a warm-up run, "
        f"{PATH} with CLIENT_MODE=pool; {rounds} interleaved round(s); a ratio is the median over rounds of the "
        f"condition's req/s over `off`'s in the same round. `watched`: Prometheus scraping every {interval} "
        f"and the Testbed tab read every {TAB_POLL_S:g} s."), lines)
