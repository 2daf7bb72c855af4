"""Loadgen efficiency benchmark (`./testbed run loadgen-efficiency`): how much the testbed's
own Locust user costs compared with the plainest FastHttpUser on the same path, and what its
exact latency log costs (docs/latency.md).

Seg1StaticPage (loadgen/locustfile.py: options, think time, open-loop switch, every response
recorded in latency.hlog), the same without the log (Seg1StaticPage-unrecorded: --latency-log
off) and BareSeg1User (loadgen/bare.py: one task, nothing else) each run as one local Locust
process with the same users for one step, against
  web    /seg/1 through HAProxy and the front (the real path: the stack may be the limit), and
  bound  HAProxy's "bound" entry, which answers by itself (the load generator is the limit).
The first run of each target is primed (5 s of load before its step: the JIT of a fresh
stack). Per run: throughput over the step's measurement window, the Locust process's mean CPU there,
and requests per CPU-second of that process (the efficiency). The runs of a round are
interleaved (the users' order reversed every other round and target) so drift hits them alike;
the figures are medians over rounds. The recording's cost: 1 − the recorded user's throughput and
efficiency over the unrecorded one's, per target (at "bound" the generator is the limit, so its
throughput is the generator's). Results: results/loadgen-efficiency-<time>/efficiency.{json,md}, plus
each run's raw files under runs/.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from testbed import ROOT, procs
from testbed.stack import Stack
from testbed.run import results
from testbed.experiment.definition import LoadPlan, RunSpec
from testbed.run.locustrun import LocustRun, master_argv
from testbed.run.record.sampler import CpuSampler, Target

TESTBED = f"{ROOT / 'loadgen' / 'locustfile.py'},{ROOT / 'loadgen' / 'shapes.py'}"
UNRECORDED = "Seg1StaticPage-unrecorded"
USERS = {"Seg1StaticPage": TESTBED, UNRECORDED: TESTBED,
         "BareSeg1User": f"{ROOT / 'loadgen' / 'bare.py'},{ROOT / 'loadgen' / 'shapes.py'}"}


class _BareRun(LocustRun):
    """bare.py defines none of the testbed's options: pass only the shape's."""

    def start(self) -> None:
        if self.user_class == UNRECORDED:          # the testbed's user with its latency log off
            argv = master_argv(self.spec, self.dir, self.host_url, 0, None, self.primed, self.locustfiles,
                               "Seg1StaticPage")
            at = argv.index("--latency-log")
            del argv[at:at + 2]
            self.started_at = time.time()
            self.master = procs.start("locust-local", argv, self.dir / "locust-local.log", cwd=ROOT, cpus=self.cpus)
            return
        if self.user_class != "BareSeg1User":
            return super().start()
        load = self.spec.load
        argv = [sys.executable, "-m", "locust", "-f", self.locustfiles, "--headless",
                "-H", self.host_url, "--csv", str(self.dir / results.LOCUST_PREFIX), "--csv-full-history",
                "--only-summary", "--step-users", ",".join(map(str, load.users)),
                "--step-seconds", f"{load.step_seconds:g}", "--warmup-seconds", f"{load.warmup_seconds:g}",
                "--prime-seconds", f"{load.prime_seconds if self.primed else 0:g}",
                "--step-log", str(self.dir / results.STEP_LOG), "--exit-code-on-error", "0", self.user_class]
        self.started_at = time.time()
        self.master = procs.start("locust-local", argv, self.dir / "locust-local.log", cwd=ROOT, cpus=self.cpus)


def _measure(run_dir: Path, spec: RunSpec, host_url: str, user: str, cpus, primed: bool) -> dict:
    from analysis import steps as asteps
    from analysis.load import folder as afolder
    from analysis.load.settings import Settings
    run_dir.mkdir(parents=True)
    loc = _BareRun(spec, run_dir, host_url, 0, cpus, primed=primed, locustfiles=USERS[user], user_class=user)
    sampler = CpuSampler(run_dir / "cpu.csv", lambda: [Target("loadgen", "local", loc.master.pid)]
                         if loc.master else []).start()
    meta = {"id": run_dir.name, "label": user, "kind": "segments", "path": 1, "status": "running",
            "started": time.time(), "ended": None, "locust_workers": 0, "locust_csv_full_history": True,
            "steps": [], "notes": {"host": host_url}}
    run = results.RunFile(run_dir, meta)
    try:
        loc.start()
        deadline = time.monotonic() + spec.load.seconds(primed) + 60
        while loc.alive() and time.monotonic() < deadline:
            time.sleep(0.5)
        if loc.alive():
            loc.interrupt()
    finally:
        loc.kill()
        sampler.stop()
    run.finish("complete")
    r = afolder.load_run(run_dir)
    s = asteps.of_run(r, Settings())[-1]
    cpu = s.loadgen.get("local")
    return {"user": user, "throughput": s.throughput, "loadgen_cpu_pct": cpu, "p50_ms": s.p50_ms,
            "error_rate": s.error_rate,
            "requests_per_cpu_second": s.throughput / (cpu / 100) if s.throughput and cpu else None}


def main(stack: Stack, results_dir: Path, quick: bool = False, rounds: int = 3, keep_stack: bool = False) -> int:
    users = 16
    plan = LoadPlan(users=(users,), step_seconds=12 if quick else 20, warmup_seconds=3 if quick else 5,
                    workers=0, prime_seconds=5)       # primed: the first run of each target (cold JIT)
    rounds = 1 if quick else rounds
    spec = RunSpec(id="bench", label="bench", kind="segments", repeat=0, path=1, backend="axis", op="ping",
                   n=0, tiers={}, client_mode="singleton", pool_size=None, regime=None, demands={},
                   knobs={}, load=plan)
    started_here = False
    if not stack.running():
        print("loadgen-efficiency: starting front ×1 behind HAProxy")
        if stack.mode == "local":
            from testbed import build
            build.ensure(["front"])
        stack.up({"front": 1}, locust=False)
        started_here = True
    if not any(r["tier"] == "front" and r["healthy"] for r in stack.status()["replicas"]):
        print("loadgen-efficiency: the running stack has no healthy front replica; ./testbed scale front=1")
        return 1
    cfg = stack.cfg
    hosts = {"web": stack.entry_url("web"), "bound": stack.entry_url("bound")}
    started = time.time()
    folder = results.new_folder(results_dir, "loadgen-efficiency", started)
    rows: list[dict] = []
    try:
        for rnd in range(rounds):
            order = list(USERS) if rnd % 2 == 0 else list(USERS)[::-1]
            for target, url in hosts.items():
                for k, user in enumerate(order if target == "web" else order[::-1]):
                    rid = f"{target}-{user}-r{rnd}"
                    m = _measure(folder / "runs" / rid, spec, url, user, cfg.loadgen_cpus,
                                 primed=rnd == 0 and k == 0)
                    m.update(target=target, round=rnd)
                    rows.append(m)
                    print(f"loadgen-efficiency: round {rnd + 1}/{rounds} {target:5s} {user:25s} "
                          f"{m['throughput'] or 0:8.0f} req/s  Locust CPU {m['loadgen_cpu_pct'] or 0:5.0f}%  "
                          f"{m['requests_per_cpu_second'] or 0:8.0f} req per CPU-s", flush=True)
                    _write(folder, rows, users, plan, rounds, started)
    except KeyboardInterrupt:
        print(f"\nloadgen-efficiency: interrupted; partial results in {folder}")
        return 130
    finally:
        if started_here and not keep_stack:
            stack.down()
    table = _write(folder, rows, users, plan, rounds, started)
    print("\n" + table + f"\nloadgen-efficiency: results in {folder}")
    return 0


def _med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _write(folder: Path, rows: list[dict], users: int, plan: LoadPlan, rounds: int, started: float) -> str:
    summary = []
    for target in ("web", "bound"):
        by_user = {}
        for user in USERS:
            rs = [r for r in rows if r["target"] == target and r["user"] == user]
            if rs:
                by_user[user] = {"runs": len(rs), "throughput": _med(r["throughput"] for r in rs),
                                 "loadgen_cpu_pct": _med(r["loadgen_cpu_pct"] for r in rs),
                                 "requests_per_cpu_second": _med(r["requests_per_cpu_second"] for r in rs),
                                 "p50_ms": _med(r["p50_ms"] for r in rs)}
        ratio = None
        seg1, bare = (by_user.get(u, {}).get("requests_per_cpu_second") for u in ("Seg1StaticPage", "BareSeg1User"))
        if seg1 and bare:
            ratio = seg1 / bare
        rec, unrec = by_user.get("Seg1StaticPage") or {}, by_user.get(UNRECORDED) or {}
        cost = {k: 1 - rec[k] / unrec[k] if rec.get(k) and unrec.get(k) else None
                for k in ("throughput", "requests_per_cpu_second")}
        summary.append({"target": target, "users": by_user, "seg1_vs_bare_efficiency": ratio,
                        "recording_cost": cost})
    results.write_json(folder / "efficiency.json", {
        "started": started, "users": users, "step_seconds": plan.step_seconds,
        "warmup_seconds": plan.warmup_seconds, "rounds": rounds, "locust_processes": "one local process",
        "host": results.host(), "versions": results.versions(), "summary": summary, "runs": rows})
    lines = ["| target | user | runs | median req/s | median Locust CPU % | median req per CPU-s | p50 ms |",
             "|---|---|---|---|---|---|---|"]
    for s in summary:
        for user, u in s["users"].items():
            lines.append(f"| {s['target']} | {user} | {u['runs']} | {u['throughput'] or 0:.0f} | "
                         f"{u['loadgen_cpu_pct'] or 0:.0f} | {u['requests_per_cpu_second'] or 0:.0f} | "
                         f"{u['p50_ms'] if u['p50_ms'] is not None else '-'} |")
        if s["seg1_vs_bare_efficiency"] is not None:
            lines.append(f"| {s['target']} | Seg1StaticPage / bare | | | | {s['seg1_vs_bare_efficiency']:.3f} | |")
        cost = s["recording_cost"]
        if cost["throughput"] is not None:
            eff = "" if cost["requests_per_cpu_second"] is None else f"{cost['requests_per_cpu_second']:+.1%}"
            lines.append(f"| {s['target']} | the latency log's cost | | {cost['throughput']:+.1%} | | {eff} | |")
    table = "\n".join(lines)
    (folder / "efficiency.md").write_text(
        f"# Loadgen efficiency: Seg1User (with and without its latency log) vs a bare FastHttpUser on /seg/1\n\n"
        f"{users} users, one local "
        f"Locust process, {plan.step_seconds:g} s per run ({plan.warmup_seconds:g} s warm-up left out), "
        f"medians of {rounds} interleaved round(s).\n\n{table}\n")
    return table
