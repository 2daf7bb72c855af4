"""Monitoring overhead benchmark (`./testbed run monitoring-overhead`): what watching the stack
costs it -- the figures that decide what is always on and what waits for --monitoring.

Saturation throughput of the whole request path (/seg/5 -> clone -> Axis2 ping, wrk with C
keep-alive connections through HAProxy, CLIENT_MODE=pool so the host's CPU is the limit: behind
the singleton's lock an overhead in CPU would not show in throughput), side by side:
  off          the stack alone: the exporters are there (JMX agents, gSOAP's /metrics), nobody
               reads them, nobody looks at the Locust UI
  tab          the Locust UI's Testbed tab read every 2 s as an open browser tab does
               (GET /stats/requests), no Prometheus
  prometheus   Prometheus scraping every replica, HAProxy and the CPU exporter every
               MONITORING_SCRAPE_INTERVAL, nobody at the tab
  watched      both
  no-agent     the Java tiers restarted with METRICS_AGENT=0 (no JMX exporter agent at all),
               nobody watching: against `off`, the agent's cost per request while unread
Each run also records the CPU of the watchers themselves (Prometheus, the CPU exporter, the
Locust master that reads the tab's data) and of HAProxy, from /proc: where an overhead goes.
Conditions are interleaved per round (the order alternates), each measured after a 5 s run, and
after a restart once the tiers stopped speeding up (bench.py's warm-up rule: the JIT); figures
are medians over rounds, with the ratio to `off`.
Start-up: a clone started on its own with and without the agent, ROUNDS times each,
interleaved: seconds until its /health answers (the singleton builds its clients from the WSDL
before listening, so this is the tier's real start).
Results: results/monitoring-overhead-<time>/overhead.{json,md}. Local stack only.
"""
from __future__ import annotations

import statistics
import threading
import time
import urllib.request
from pathlib import Path

from testbed import locust_ui, monitoring, procs, tiers
from testbed.bench import STACK_WARMUP_MAX_RUNS, cpu_seconds, warm_up, wrk
from testbed.run import results

CONDITIONS = ("off", "tab", "prometheus", "watched", "no-agent")
TAB_POLL_S = 2.0                 # the Locust UI polls /stats/requests this often
PATH = "/seg/5?backend=axis&op=ping&n=0"


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


def _watchers(stack) -> dict[str, int]:
    """name -> pid of what watches the stack (and of HAProxy, which answers the scrapes)."""
    state = stack.load()
    out = {p.name: p.pid for p in monitoring.all_procs(state.get("monitoring")) + locust_ui.all_procs(
        state.get("locust"))[:1] if p.alive()}
    if state.get("haproxy") and state["haproxy"].alive():
        out["haproxy"] = state["haproxy"].pid
    return out


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
    duration, warmup = (10, 5) if quick else (30, 5)
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
    url = stack.entry_url("web") + PATH
    cold = True
    try:
        for rnd in range(rounds):
            order = CONDITIONS if rnd % 2 == 0 else CONDITIONS[::-1]
            for cond in order:
                cold |= _agents(stack, cond != "no-agent", say)
                monitoring.switch(stack, cond in ("prometheus", "watched"))
                if cold:          # fresh JVMs: load them until they stop speeding up (bench.py's rule)
                    warm_up([("stack", "web", "seg5", url, None, None)], connections, warmup, say,
                            max_runs=STACK_WARMUP_MAX_RUNS)
                    cold = False
                else:
                    wrk(url, connections, warmup, None)
                tab = _TabReader(locust_ui.direct_url(stack.cfg)) if cond in ("tab", "watched") else None
                watchers = _watchers(stack)
                before = {k: cpu_seconds(pid) for k, pid in watchers.items()}
                with (tab or _Nothing()):
                    res = wrk(url, connections, duration, None)
                cpu = {k: round((cpu_seconds(pid) - before[k]) / duration * 100, 2) for k, pid in watchers.items()
                       if before[k] is not None and cpu_seconds(pid) is not None}
                rows.append({"round": rnd, "condition": cond, "rps": res["rps"], "requests": res["requests"],
                             "errors": res["non_2xx"] + res["socket_errors"], "tab_reads": tab.reads if tab else 0,
                             "watchers_cpu_pct": cpu})
                say(f"monitoring-overhead: round {rnd + 1}/{rounds} {cond:10s} {res['rps']:8.1f} req/s"
                    + (f" ({tab.reads} tab reads)" if tab else "") + "  CPU % "
                    + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()))
                _write(folder, rows, startup, rounds, duration, connections, started, stack.cfg)
        monitoring.switch(stack, False)
        _agents(stack, True, say)
        for rnd in range(rounds):
            for agent in ((True, False) if rnd % 2 == 0 else (False, True)):
                secs = _startup(stack, agent, folder)
                startup.append({"round": rnd, "agent": agent, "seconds": secs})
                say(f"monitoring-overhead: start-up {'with' if agent else 'without'} the agent: {secs:.2f} s")
        table = _write(folder, rows, startup, rounds, duration, connections, started, stack.cfg)
    except KeyboardInterrupt:
        say(f"\nmonitoring-overhead: interrupted; partial results in {folder}")
        return 130
    finally:
        stack.down()
    say("\n" + table + f"\nmonitoring-overhead: results in {folder}")
    return 0


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _med(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _write(folder: Path, rows: list[dict], startup: list[dict], rounds: int, duration: int, connections: int,
           started: float, cfg) -> str:
    med = {c: _med([r["rps"] for r in rows if r["condition"] == c]) for c in CONDITIONS}
    ratio = {c: med[c] / med["off"] if med[c] and med["off"] else None for c in CONDITIONS}
    start = {a: _med([s["seconds"] for s in startup if s["agent"] == a]) for a in (True, False)}
    results.write_json(folder / "overhead.json", {
        "started": started, "rounds": rounds, "duration_s": duration, "connections": connections,
        "path": PATH, "client_mode": "pool", "scrape_interval": cfg.knobs.get("MONITORING_SCRAPE_INTERVAL", "5s"),
        "tab_poll_s": TAB_POLL_S, "host": results.host(), "median_rps": med, "ratio_to_off": ratio,
        "startup_s": {"agent": start[True], "no_agent": start[False]}, "runs": rows, "startup_runs": startup})
    lines = ["| condition | runs | median req/s | ratio to off | watchers' CPU, % of a core (median) |",
             "|---|---|---|---|---|"]
    for c in CONDITIONS:
        runs = [r for r in rows if r["condition"] == c]
        names = sorted({k for r in runs for k in r.get("watchers_cpu_pct", {})})
        cpu = ", ".join(f"{k} {_med([r['watchers_cpu_pct'][k] for r in runs if k in r['watchers_cpu_pct']]):.1f}"
                        for k in names)
        lines.append(f"| {c} | {len(runs)} | {med[c] or 0:.1f} | {ratio[c]:.3f} | {cpu} |" if ratio[c]
                     else f"| {c} | {len(runs)} | - | - | {cpu} |")
    if start[True] and start[False]:
        lines.append(f"\nclone start-up to /health (median of {sum(1 for s in startup if s['agent'])}): with the "
                     f"JMX agent {start[True]:.2f} s, without {start[False]:.2f} s "
                     f"(+{start[True] - start[False]:.2f} s)")
    table = "\n".join(lines)
    (folder / "overhead.md").write_text(
        f"# Monitoring overhead\n\nwrk, {connections} connections, {duration} s per run after a warm-up run, "
        f"{PATH} with CLIENT_MODE=pool; medians of {rounds} interleaved round(s). `watched`: Prometheus "
        f"scraping every {cfg.knobs.get('MONITORING_SCRAPE_INTERVAL', '5s')} and the Testbed tab read every "
        f"{TAB_POLL_S:g} s.\n\n{table}\n")
    return table
