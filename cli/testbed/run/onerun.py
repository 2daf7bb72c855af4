"""One run of an experiment and everything recorded beside it: the stack reconfigured for it
(Ctrl-C held meanwhile), run.json kept current, one headless Locust run driven to its end while
CPU (record/sampler) and the client tier's timers (record/clienttime) are sampled, the thread
dumps taken at the plateau's hold, the experiment's faults injected and healed, the traces kept,
a run stopped as failed once it overruns its plan by OVERRUN_S, and its per-step line printed.

Ctrl-C during the Locust run: SIGINT to Locust (its CSVs are written), the run is marked
"interrupted" with what it recorded so far, and the KeyboardInterrupt goes on up to the runner.
"""
from __future__ import annotations

import contextlib
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from testbed import procs
from testbed.faults.injector import Injector
from testbed.fit.costs import run_steps
from testbed.run import reconfigure, results
from testbed.run.ctrlc import deferred_sigint
from testbed.experiment.definition import Experiment, RunSpec
from testbed.run.locustrun import HOLD_RELEASE, LocustRun, RemoteWorkers
from testbed.run.progress import Progress, latest_history, line
from testbed.run.record import clienttime, speedprobe, threaddumps, traces, warmth
from testbed.run.record.clienttime import ClientTimeSampler
from testbed.run.record.sampler import CpuSampler
from testbed.run.results import served_counts
from testbed.run.stackuse import ui_busy
from testbed.stack import CpuTarget, Stack

FAULTS_FILE = "faults.jsonl"      # analysis/load/faults.py reads it
OVERRUN_S = 90.0           # a Locust run longer than planned + this is stopped as failed
SETTLE_S = 15.0           # before a run, the previous run's requests still in flight may finish (served_counts)


class RunDriver:
    """Does an experiment's runs one at a time; remembers which Java tiers are warm between them
    and adds each run that did not complete to `failed` ("<run id>: <why>")."""

    def __init__(self, exp: Experiment, stack: Stack, progress: Progress, failed: list[str]):
        self.exp, self.stack, self.progress, self.failed = exp, stack, progress, failed
        self.warm: set[str] = set()           # Java tiers loaded since their last (re)start

    def run(self, i: int, spec: RunSpec, run_dir: Path, workers: int, faults: list,
            remote: RemoteWorkers | None, remote_made: bool) -> None:
        """Run `spec` (run i of the experiment) into run_dir with `workers` Locust workers,
        injecting `faults`; remote: Locust's workers elsewhere, remote_made: a Swarm service
        this experiment started (then sampled into cpu.csv)."""
        say = self.progress.say
        n_runs = len(self.exp.runs)
        say(f"run {i + 1}/{n_runs} {spec.id}: {spec.label} — /seg/{spec.path}, "
            + ", ".join(f"{t}×{n}" for t, n in spec.tiers.items() if n) + f", {spec.client_mode}")
        run_dir.mkdir(parents=True, exist_ok=True)
        with deferred_sigint(self.progress, "the reconfiguration in progress"):
            try:
                actions = reconfigure.apply(self.stack, spec.tiers, spec.stack_knobs(), log=say)
            except Exception as e:
                actions = None
                error = f"reconfiguring the stack failed: {e}".splitlines()[0][:300]
        meta = {"id": spec.id, "label": spec.label, **spec.config(), "repeat": spec.repeat,
                "status": "running", "started": time.time(), "ended": None,
                "locust_workers": workers, "locust_csv_full_history": True, "steps": [],
                "notes": {"user_class": spec.user_class, "load": _load_notes(spec)}}
        run = results.RunFile(run_dir, meta)
        if actions is None:
            run.finish("failed", error)
            self.failed.append(f"{spec.id}: {error}")
            say(f"  {error}")
            return
        reached = set(threaddumps.tiers_reached(spec.path, spec.backend))
        # cold JVMs: restarted, added, switched, or never loaded yet (the first run; /seg/5 after
        # /seg/1..4), or a run that changes what they run (RunSpec.cold: a clone building clients)
        primed = bool(actions) or not reached <= self.warm or spec.cold
        self.warm = (set() if actions else self.warm) | reached
        replicas = self.stack.status()["replicas"]
        notes = meta["notes"]
        notes.update(reconfigured=actions, primed=primed and spec.load.prime_ceiling() > 0,
                     stack={f"{r['tier']}-{r['replica']}": {k: r.get(k) for k in ("pid", "port", "container",
                                                                                   "healthy", "node")}
                            for r in replicas},
                     host_url=self.stack.web_url())
        notes["cpu_quotas"] = self.stack.describe().get("cpu_quotas")
        unhealthy = [k for k, v in notes["stack"].items() if not v["healthy"]]
        if unhealthy:
            notes["warning"] = f"unhealthy before the run: {', '.join(unhealthy)}"
            say(f"  warning: {notes['warning']}")
        busy = ui_busy(self.stack)
        if busy:
            notes["ui_locust"] = busy
            say(f"  warning: {busy}")
        run.write()
        zipkin = self.stack.tracing_url() or ""
        notes["tracing"] = {"zipkin": zipkin, "trace_sample": spec.load.trace_sample} if zipkin else None
        loc = LocustRun(spec, run_dir, notes["host_url"], workers, self.stack.cfg.loadgen_cpus, primed,
                        remote=remote, zipkin_url=zipkin, groups=self.stack.load_quota)
        notes["locust_quota"] = self.stack.load_quota_cores()    # CPUS_LOCUST: each process's cores
        if remote:
            notes["remote_workers"] = {"count": remote.count, "sampled": remote_made, "why": (
                "a Swarm service on the cluster's load-generator node; cpu.csv: loadgen remote-N" if remote_made
                else "they run on other hosts: their CPU is not in cpu.csv")}
        release = run_dir / HOLD_RELEASE

        stack_targets = self.stack.cpu_targets()     # asked once: docker inspects are slow

        def targets():
            return stack_targets + [CpuTarget("loadgen", name, p.pid) for name, p in loc.processes()]

        sampler = CpuSampler(run_dir / "cpu.csv", targets, kernel=self.stack.mode != "local",
                             speed=run_dir / speedprobe.FILE).start()
        timers = ClientTimeSampler(run_dir / clienttime.FILE, lambda: replicas).start()
        # a cold configuration primed until it is measurably warm (record/warmth.py)
        watch = (warmth.WarmWatch(spec.load, run_dir, run_dir / results.STEP_LOG, replicas, sorted(reached),
                                  self.stack.mode != "local").start()
                 if primed and spec.load.steady else None)
        notes["warm"] = warmth.unprimed(spec.load, primed) if watch is None else None
        inj = Injector(self.stack, run_dir / FAULTS_FILE, say=lambda t: self.progress.say("  " + t)) if faults else None
        dumps: Future | None = None
        pool = ThreadPoolExecutor(max_workers=1)
        t0 = time.monotonic()
        deadline = t0 + spec.load.seconds(primed) + OVERRUN_S
        status, error = "complete", None
        notes["served"] = {"before": served_counts(replicas, settle_s=SETTLE_S)}   # nothing lost: checked in the report
        try:
            loc.start()
            notes["locust_pids"] = {name: p.pid for name, p in loc.processes()}
            notes["locust_master_port"] = loc.master_port
            run.write()
            while loc.alive():
                run.refresh_steps()
                steps, phases = meta["steps"], notes.get("phases", [])
                if remote_made and steps and not notes.get("remote_sampled"):
                    stack_targets[:] = self.stack.cpu_targets()    # the workers' containers of this run
                    notes["remote_sampled"] = True
                if inj and not inj.started and steps:     # [[faults]] at = seconds after step 1 began
                    inj.start(faults, t0=steps[0]["start"])
                for name, p in loc.processes():           # a worker that died: its users move on
                    lost = notes.setdefault("locust_workers_lost", {})
                    if name.startswith("worker") and name not in lost and (procs.exit_code(p) or 0) != 0:
                        lost[name] = time.time()
                        say(f"  warning: Locust {name} died during the run; the master carries on with the "
                            "others (the report says so)")
                        run.write()
                hold = next((p for p in phases if p["phase"] == "hold" and p.get("end") is None), None)
                if hold and dumps is None:
                    tiers = threaddumps.tiers_reached(spec.path, spec.backend)
                    dumps = pool.submit(threaddumps.take, self.stack, replicas, tiers, run_dir)
                if dumps is not None and dumps.done() and not release.exists():
                    release.touch()                 # the shape ends its hold
                text = line(i + 1, n_runs, spec.id, len(spec.load.users), steps, phases,
                            latest_history(run_dir), sampler.tier_totals(), sampler.host_latest, time.monotonic() - t0)
                warming = watch.status() if watch is not None else ""
                self.progress.status(text + (f" · {warming}" if warming else ""))
                if time.monotonic() > deadline:
                    status, error = "failed", (f"Locust ran {OVERRUN_S:.0f} s past its plan; stopped "
                                               f"(see {run_dir.name}/locust-*.log)")
                    loc.interrupt()
                    break
                time.sleep(0.5)
            loc.wait_workers()
        except KeyboardInterrupt:
            self.progress.done()
            say(f"Ctrl-C: stopping Locust (run {spec.id}) and keeping the finished steps ...")
            with contextlib.suppress(KeyboardInterrupt):
                loc.interrupt()
            self._end_run(run, sampler, timers, pool, dumps, "interrupted", None, inj, watch)
            raise
        except Exception as e:
            loc.kill()
            status, error = "failed", f"{type(e).__name__}: {e}".splitlines()[0][:300]
        finally:
            self.stack.load_quota_done(loc.names())
        self.progress.done()
        run.refresh_steps()
        if status == "complete" and not meta["steps"]:
            status, error = "failed", "Locust recorded no step; last lines of its log: " + \
                " | ".join(loc.log_tail().splitlines()[-3:])[:400]
        elif status == "complete" and any(s.get("end") is None for s in meta["steps"]):
            status, error = "failed", "Locust stopped before the last step ended (see its log)"
        self._end_run(run, sampler, timers, pool, dumps, status, error, inj, watch)
        self._keep_traces(run)
        if status != "complete":
            self.failed.append(f"{spec.id}: {error}")
            say(f"  run {spec.id} {status}: {error}")
        else:
            say("  " + run_line(run_dir, self.exp.settings))

    def _end_run(self, run: results.RunFile, sampler: CpuSampler, timers: ClientTimeSampler,
                 pool: ThreadPoolExecutor, dumps: Future | None, status: str, error: str | None,
                 inj: Injector | None = None, watch: warmth.WarmWatch | None = None) -> None:
        sampler.stop()
        timers.stop()
        notes = run.meta["notes"]
        if watch is not None:
            watch.stop()
            notes["warm"] = watch.evidence()
            (run.dir / warmth.PRIME_RELEASE).unlink(missing_ok=True)
        if timers.errors:
            notes["client_time_errors"] = timers.errors
        if "served" in notes:
            notes["served"]["after"] = served_counts(self.stack.status()["replicas"])
        if inj:                      # a fault still going is ended (resumed, revived) with the run
            inj.heal()
            notes["faults"] = inj.records
        if sampler.errors:
            notes["cpu_sampler_errors"] = sampler.errors
        if dumps is not None:
            try:
                wait = threaddumps.TIMEOUT_S + 5 if status != "interrupted" else 5
                notes["threaddumps"] = dumps.result(timeout=wait)
            except Exception as e:
                notes["threaddumps"] = {"error": str(e)}
        elif status == "complete":
            notes["threaddumps"] = {"none": "no hold phase after the last step (hold_seconds = 0)"}
        pool.shutdown(wait=False)
        (run.dir / HOLD_RELEASE).unlink(missing_ok=True)
        run.finish(status, error)

    def _keep_traces(self, run: results.RunFile) -> None:
        """With tracing on: the run's traces from Zipkin into its folder (run/record/traces.py)."""
        tracing = run.meta["notes"].get("tracing")
        if not tracing or not run.meta["steps"]:
            return
        tracing.update(traces.fetch(tracing["zipkin"], self.stack.cfg.ui_headers(), run.meta["steps"], run.dir,
                                    tracing["trace_sample"], say=self.progress.say))
        run.write()


def run_line(run_dir: Path, settings: dict) -> str:
    """Per-step figures of a finished run (live analysis, no plots)."""
    try:
        rows = run_steps(run_dir, settings)
    except Exception as e:        # a report problem must not stop the experiment
        return f"(no per-step figures: {e})"
    parts = []
    for s in rows:
        tp = "-" if s.throughput is None else f"{s.throughput:.0f}"
        parts.append(f"{s.users}u {tp}/s" + ("*" if s.excluded else ""))
    return "steps: " + ", ".join(parts) + ("   (* excluded)" if any(s.excluded for s in rows) else "")


def _load_notes(spec: RunSpec) -> dict:
    d = asdict(spec.load)
    d["users"] = list(spec.load.users)
    return d
