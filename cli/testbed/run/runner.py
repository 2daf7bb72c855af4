"""Run an experiment end to end: start or reuse the stack, for every run reconfigure the stack,
drive one headless Locust run while sampling CPU, take thread dumps at the plateau, keep
run.json current from the step log, and at the end regenerate the report (analysis package).

Ctrl-C: the Locust run in progress is stopped with SIGINT (its CSVs are written), the run and
the experiment are marked "interrupted", the report is made from the finished steps, and the
folder is printed. A Ctrl-C during a reconfiguration waits for it to finish (the stack is never
left half-scaled). The Locust web UI of `./testbed up`, if any, is left running and idle: it
costs ~0 CPU when idle, keeps the user's browser session, and its processes are sampled into
cpu.csv (replicas ui-*) so a test started from it during an experiment would show.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import signal
import threading
import time
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from testbed import ROOT, procs
from testbed.swarm import placement
from testbed.faults.injector import Injector
from testbed.run import predicting, reconfigure, results
from testbed.fit import buildprobe
from testbed.run.record import clienttime
from testbed.run.record import threaddumps
from testbed.fit import tohost
from testbed.run.record import traces
from testbed.run.record.clienttime import ClientTimeSampler
from testbed.fit.costs import cost_probe_spec, needs_cost_probe, run_steps
from testbed.fit.probes import cost_probe_specs, profile_probe_specs
from testbed.fit.rewrite import PROBE_PRIME_S, SEGMENT_USERS as profile_users
from testbed.run.results import served_counts
from testbed.run.definition import Experiment, RunSpec
from testbed.run.locustrun import HOLD_RELEASE, LocustRun, RemoteWorkers, stack_workers
from testbed.run.progress import Progress, latest_history, line
from testbed.tiers import knobs_read
from testbed.run.record import speedprobe
from testbed.run.record.sampler import CpuSampler
from testbed.stack.interface import CpuTarget, Stack

RESULTS_DIR = ROOT / "results"
FAULTS_FILE = "faults.jsonl"      # analysis/faults.py reads it
LOCUST_START_S = 4.0       # rough cost of one Locust start + stop, for the time estimate
JVM_START_S = 8.0          # rough cost of one JVM tier start on a busy 2-core machine
OVERRUN_S = 90.0           # a Locust run longer than planned + this is stopped as failed
SETTLE_S = 15.0           # before a run, the previous run's requests still in flight may finish (served_counts)


class ExperimentError(RuntimeError):
    """The experiment cannot go on (e.g. the stack does not start); the text says why."""


@contextlib.contextmanager
def deferred_sigint(progress: Progress, what: str):
    """Ctrl-C inside the block is held until the block ends, then raised."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []

    def handler(signum, frame):
        if not pressed:
            progress.say(f"\nCtrl-C: stopping after {what} (a few seconds) ...")
        pressed.append(signum)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


class Runner:
    def __init__(self, exp: Experiment, stack: Stack, results_dir: Path = RESULTS_DIR,
                 workers: int | None = None, keep_stack: bool = False, restore: bool = True,
                 progress: Progress | None = None, remote: RemoteWorkers | None = None,
                 scale_from: Path | None = None, tracing: bool = False):
        self.exp, self.stack = exp, stack
        self.scale_from = scale_from          # --scale-from: costs of an earlier result folder
        self.results_dir = Path(results_dir)
        self.workers_override = workers
        self.remote = remote
        self.keep_stack, self.restore = keep_stack, restore
        self.progress = progress or Progress()
        self.folder: Path | None = None
        self.meta: dict = {}
        self.started_stack = False
        self.remote_made = False          # remote workers this runner started on the cluster
        self.failed: list[str] = []
        self.tracing = tracing            # start the stack with tracing on (run --tracing)
        self.warm: set[str] = set()           # Java tiers loaded since their last (re)start

    # ------------------------------------------------------------------ the experiment
    def run(self) -> Path:
        """Run every run; return the result folder (also when interrupted: then re-raises)."""
        exp, say = self.exp, self.progress.say
        started = time.time()
        self.folder = results.new_folder(self.results_dir, exp.name, started)
        cfg = self.stack.cfg
        self.meta = {"format": results.FORMAT, "name": exp.name, "kind": exp.kind,
                     "definition": exp.definition(), "started": started, "ended": None,
                     "status": "running", "mode": self.stack.mode, "host": results.host(),
                     "cpu_affinity": results.cpu_affinity(cfg.stack_cpus, cfg.loadgen_cpus),
                     "cpu_quotas": None, "settings": exp.settings, "versions": results.versions(),
                     "runs": [r.id for r in exp.runs]}
        self._write_experiment()
        shutil.copyfile(exp.source, self.folder / "experiment.toml")
        adaptive = any(r.load.adaptive for r in exp.runs)
        say(f"{exp.name}: {len(exp.runs)} run(s){' (quick)' if exp.quick else ''}, "
            + (f"at most {self.estimate() / 60:.0f} min (adaptive steps: each ends once its throughput "
               "is known well enough, ramps stop at the plateau)" if adaptive else
               f"about {self.estimate() / 60:.0f} min")
            + f"; results in {self._shown(self.folder)}")
        interrupted = False
        original = None
        try:
            with deferred_sigint(self.progress, "starting the stack"):
                original = self._ensure_stack()
            if self.remote is None:     # a cluster made here: Locust's workers on its load-generator node
                self.remote = stack_workers(self.stack, max(1, max(self._workers(r) for r in exp.runs)), say)
                self.remote_made, self.workers_override = bool(self.remote), 0 if self.remote else self.workers_override
            self.meta["stack"] = {**self.stack.describe(), "knobs": knobs_read(self.stack.cfg.knobs)}
            self.meta["cpu_quotas"] = self.meta["stack"].get("cpu_quotas")
            self._write_experiment()
            if exp.profile != "stack":
                self._profile()                # emulated demands: before the first run
            for i in range(len(exp.runs)):
                if exp.runs[i].auto_wait and "scaling" not in self.meta:
                    self._scale(i)             # the service wait for this host, before its first run
                if exp.profile != "stack":
                    self._retune(i)            # the profile's settings again, from what its quotas gave
                self._one_run(i, exp.runs[i])
                self._predict_after(i)
            status = "failed" if self.failed else "complete"
            if self.failed:
                self.meta["error"] = "; ".join(self.failed)[:500]
        except KeyboardInterrupt:
            interrupted = True
            status = "interrupted"
        except Exception as e:
            status = "failed"
            self.meta["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:500]
            say(f"testbed: run: {self.meta['error']}")
        old = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
        if old is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)      # let the wrap-up finish
        try:
            self.meta["status"] = status
            self.meta["ended"] = time.time()
            self._write_experiment()
            # the stack put back (containers restarted, health waited for) while the report,
            # which reads only the folder, is made: seconds of waiting the user no longer adds
            wrap = threading.Thread(target=self._wrap_up_stack, args=(original, interrupted),
                                    name="stack-wrap-up", daemon=True)
            wrap.start()
            headline = self._report()
            wrap.join()
            for ln in headline:
                say(ln)
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)
        say(f"{exp.name}: {status} in {(time.time() - started) / 60:.1f} min; "
            f"report: {self._shown(self.folder / 'report.html')}")
        if interrupted:
            raise KeyboardInterrupt
        return self.folder

    def _predict_after(self, i: int) -> None:
        """After the last baseline run: the model's prediction of the runs to come (predicting.py)."""
        configs = [r.config() for r in self.exp.runs]
        if self.exp.kind in ("clones", "classic") and predicting.due(configs, i):
            if buildprobe.due(configs) and not (self.folder / buildprobe.FILE).exists():
                # the per-request client's build, on the baseline's stack (unless measured already
                # before the run under load: _scale)
                with deferred_sigint(self.progress, "probing the client build"):
                    self._probe_build(self.exp.runs[i].backend)
            with deferred_sigint(self.progress, "writing the prediction"):
                predicting.write(self.folder, self.progress.say)

    def _probe_build(self, backend: str) -> None:
        """build_probe.json: what a per-request client's build costs each tier (buildprobe.measure)."""
        results.write_json(self.folder / buildprobe.FILE, buildprobe.measure(
            self.stack, backend, self.exp.quick, self.progress.say))

    def estimate(self) -> float:
        """Seconds the experiment plans; with adaptive steps the longest it may take."""
        runs = self.exp.runs
        seconds = sum(r.load.seconds() + LOCUST_START_S for r in runs)
        changes = sum(1 for a, b in zip(runs, runs[1:]) if a.tiers != b.tiers or a.stack_knobs() != b.stack_knobs())
        if needs_cost_probe(self.exp, self.scale_from):       # one Locust run and one restart more
            seconds += cost_probe_spec(runs[0], self.exp.quick).load.seconds() + LOCUST_START_S + JVM_START_S
        if self.exp.profile != "stack":      # its cost and profile probes, a client restart there and back,
            extra = cost_probe_specs(runs[0], self.exp.quick) + profile_probe_specs(runs, self.exp.quick)  # the quotas,
            seconds += sum(r.load.seconds() + LOCUST_START_S for r in extra) + 10 * JVM_START_S + (
                0 if self.exp.quick else 2 * PROBE_PRIME_S) + sum(
                (len(profile_users) - len(r.load.users)) * r.load.step_seconds
                for r in runs if r.kind == "segments" and r.path < 5 and not self.exp.quick)
        if self.exp.kind in ("clones", "classic") and buildprobe.due([r.config() for r in runs]):
            seconds += buildprobe.seconds(self.exp.quick, under_load=needs_cost_probe(self.exp, self.scale_from))
        return seconds + changes * JVM_START_S

    # ------------------------------------------------------------------ the stack
    def _ensure_stack(self) -> tuple[dict, dict] | None:
        """Start the stack for the first run if it is down; return the configuration to restore
        at the end (None when this experiment started the stack)."""
        first = self.exp.runs[0]
        if any(placement.requested(r.stack_knobs()) for r in self.exp.runs) and self.stack.mode != "swarm":
            raise ExperimentError("placement / spread put tiers on the nodes of a Swarm, and the stack here is the "
                                  f"{self.stack.mode} one: ./testbed cluster up --nodes 4, then ./testbed up --swarm")
        if self.stack.running():
            counts, knobs = self.stack.current()
            st = self.stack.status()
            dead = [f"{r['tier']}-{r['replica']}" for r in st["replicas"] if not r["alive"]]
            if not st["up"] or dead:
                raise ExperimentError("the running stack is not healthy (" + (", ".join(dead) or "HAProxy down")
                                      + "); ./testbed down, then run again")
            if self.tracing and not self.stack.tracing_url():
                raise ExperimentError("--tracing: the running stack has tracing off; ./testbed down, then run "
                                      "again (or ./testbed up --tracing first)")
            self.progress.say(f"stack: reusing the running {self.stack.mode} stack (" + ", ".join(
                f"{t}×{n}" for t, n in counts.items() if n) + ")")
            return counts, knobs
        if self.stack.mode == "local":
            from testbed import build
            build.ensure(sorted({t for r in self.exp.runs for t, n in r.tiers.items() if n > 0}))
        self.progress.say(f"stack: starting the {self.stack.mode} stack with "
                          + ", ".join(f"{t}×{n}" for t, n in first.tiers.items() if n))
        t0 = time.monotonic()
        if needs_cost_probe(self.exp, self.scale_from) and self.exp.runs.index(first) == 0:
            first = cost_probe_spec(first, self.exp.quick)     # what runs first: saves a restart
        self.stack.up({t: n for t, n in first.tiers.items() if n > 0}, first.stack_knobs(), locust=False,
                      tracing=self.tracing)
        self.started_stack = True
        self.progress.say(f"stack: healthy in {time.monotonic() - t0:.0f} s")
        return None

    def _wrap_up_stack(self, original: tuple[dict, dict] | None, interrupted: bool) -> None:
        say = self.progress.say
        if self.remote_made:
            try:
                self.stack.stop_remote_workers()
            except Exception as e:
                say(f"testbed: run: could not remove the cluster's Locust workers: {e}")
        try:
            if self.started_stack:
                if self.keep_stack:
                    say("stack: left running (--keep-stack); stop it with ./testbed down")
                else:
                    say("stack: stopping the stack this experiment started")
                    self.stack.down()
            elif original and self.restore:
                if interrupted:
                    say("stack: left as the interrupted run had it (./testbed status)")
                    return
                counts, knobs = original
                touched = {k: reconfigure.knob(knobs, k) for k in self._touched_knobs()}
                done = reconfigure.apply(self.stack, counts, {k: v for k, v in touched.items() if v is not None},
                                         log=say)
                if done:
                    say("stack: restored to how it was before the experiment")
        except Exception as e:
            say(f"testbed: run: could not put the stack back: {e}; see ./testbed status")

    def _touched_knobs(self) -> set[str]:
        return {k for r in self.exp.runs for k in r.stack_knobs()}

    def _ui_busy(self) -> str | None:
        """If the Locust web UI of `./testbed up` is running a test, say so."""
        ui = self.stack.ui_url()
        if not ui:
            return None
        try:
            req = urllib.request.Request(ui + "stats/requests", headers=self.stack.cfg.ui_headers())
            with urllib.request.urlopen(req, timeout=2) as r:
                ui_state = json.loads(r.read()).get("state")
        except (OSError, ValueError):
            return None
        if ui_state in ("running", "spawning"):
            return f"the Locust web UI is {ui_state} a test: it adds load to every measurement"
        return None

    # ------------------------------------------------------------------ one run
    def _workers(self, spec: RunSpec) -> int:
        if self.workers_override is not None:
            return self.workers_override
        if spec.load.workers == "auto":
            return self.stack.cfg.locust_worker_count()
        return int(spec.load.workers)

    def _scale(self, i: int) -> None:
        """The service wait of the "auto" runs, for this host (fit/tohost.py, fit/scaling.py)."""
        cfg = self.stack.cfg
        self.progress.say("scaling: the CPU one /seg/5 request costs here decides the service wait ...")
        probing = needs_cost_probe(self.exp, self.scale_from)
        cost_probe = cost_probe_spec(self.exp.runs[i], self.exp.quick)
        self.meta["scaling"], lines = tohost.scale(
            self.exp, i, self.folder, self.failed, lambda spec, root: self._one_run(i, spec, root),
            float(self.meta["host"]["cores"]), cfg.stack_cpus, cfg.loadgen_cpus, self.scale_from)
        if probing and not self.exp.quick and buildprobe.due([r.config() for r in self.exp.runs]):
            # the build alone first: its rounds compile the build path on an idle host, so the run
            # under load measures warm builds (buildprobe.under_load)
            self._probe_build(cost_probe.backend)
            buildprobe.under_load(self.stack, cost_probe, lambda spec, root: self._one_run(i, spec, root),
                                  self.folder, self.progress.say)
        self._fitted(lines)

    def _profile(self) -> None:
        """The classic-system profile's emulated demands, quotas and wait (fit/profile.py)."""
        self.progress.say(f"profile {self.exp.profile}: measuring this stack's own costs first (cost probes) ...")
        self.meta["profile"], self.meta["scaling"], lines = tohost.fit_profile(    # FitError: the run fails
            self.exp, self.folder, self.failed, lambda spec, root: self._one_run(0, spec, root),
            float(self.meta["host"]["cores"]))
        self._fitted(lines)

    def _retune(self, i: int) -> None:
        """The classic-system profile's settings chosen again before run i (tohost.retune_before)."""
        out = tohost.retune_before(self.exp, i, self.folder, self.failed, lambda spec, root: self._one_run(i, spec, root),
                                   self.meta["profile"], self.meta["scaling"], self.progress.say)
        if out is not None:
            self.meta["profile"], self.meta["scaling"], lines = out
            self._fitted(lines)

    def _fitted(self, lines: list[str]) -> None:
        self.meta["definition"] = self.exp.definition()      # the runs as they will run
        self._write_experiment()
        for ln in lines:
            self.progress.say(ln)

    def _one_run(self, i: int, spec: RunSpec, root: Path | None = None) -> None:
        say = self.progress.say
        n_runs = len(self.exp.runs)
        say(f"run {i + 1}/{n_runs} {spec.id}: {spec.label} — /seg/{spec.path}, "
            + ", ".join(f"{t}×{n}" for t, n in spec.tiers.items() if n) + f", {spec.client_mode}")
        run_dir = (root or self.folder / "runs") / spec.id
        run_dir.mkdir(parents=True, exist_ok=True)
        with deferred_sigint(self.progress, "the reconfiguration in progress"):
            try:
                actions = reconfigure.apply(self.stack, spec.tiers, spec.stack_knobs(), log=say)
            except Exception as e:
                actions = None
                error = f"reconfiguring the stack failed: {e}".splitlines()[0][:300]
        workers = self._workers(spec)
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
        # cold JVMs: restarted, added, or never loaded yet (the first run; /seg/5 after /seg/1..4)
        primed = bool(actions) or not reached <= self.warm
        self.warm = (set() if actions else self.warm) | reached
        replicas = self.stack.status()["replicas"]
        notes = meta["notes"]
        notes.update(reconfigured=actions, primed=primed and spec.load.prime_seconds > 0,
                     stack={f"{r['tier']}-{r['replica']}": {k: r.get(k) for k in ("pid", "port", "container",
                                                                                   "healthy", "node")}
                            for r in replicas},
                     host_url=self.stack.web_url())
        notes["cpu_quotas"] = self.stack.describe().get("cpu_quotas")
        unhealthy = [k for k, v in notes["stack"].items() if not v["healthy"]]
        if unhealthy:
            notes["warning"] = f"unhealthy before the run: {', '.join(unhealthy)}"
            say(f"  warning: {notes['warning']}")
        busy = self._ui_busy()
        if busy:
            notes["ui_locust"] = busy
            say(f"  warning: {busy}")
        run.write()
        zipkin = self.stack.tracing_url() or ""
        notes["tracing"] = {"zipkin": zipkin, "trace_sample": spec.load.trace_sample} if zipkin else None
        loc = LocustRun(spec, run_dir, notes["host_url"], workers, self.stack.cfg.loadgen_cpus, primed,
                        remote=self.remote, zipkin_url=zipkin)
        if self.remote:
            notes["remote_workers"] = {"count": self.remote.count, "sampled": self.remote_made, "why": (
                "a Swarm service on the cluster's load-generator node; cpu.csv: loadgen remote-N" if self.remote_made
                else "they run on other hosts: their CPU is not in cpu.csv")}
        release = run_dir / HOLD_RELEASE

        stack_targets = self.stack.cpu_targets()     # asked once: docker inspects are slow

        def targets():
            return stack_targets + [CpuTarget("loadgen", name, p.pid) for name, p in loc.processes()]

        sampler = CpuSampler(run_dir / "cpu.csv", targets, kernel=self.stack.mode != "local",
                             speed=run_dir / speedprobe.FILE).start()
        self._timers = ClientTimeSampler(run_dir / clienttime.FILE, lambda: replicas).start()
        faults = [f for f in self.exp.faults if f.run in ("*", spec.entry)] if root is None else []
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
                if self.remote_made and steps and not notes.get("remote_sampled"):
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
                self.progress.status(line(i + 1, n_runs, spec.id, len(spec.load.users), steps, phases,
                                          latest_history(run_dir), sampler.tier_totals(),
                                          sampler.host_latest, time.monotonic() - t0))
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
            self._end_run(run, sampler, pool, dumps, "interrupted", None, inj)
            raise
        except Exception as e:
            loc.kill()
            status, error = "failed", f"{type(e).__name__}: {e}".splitlines()[0][:300]
        self.progress.done()
        run.refresh_steps()
        if status == "complete" and not meta["steps"]:
            status, error = "failed", "Locust recorded no step; last lines of its log: " + \
                " | ".join(loc.log_tail().splitlines()[-3:])[:400]
        elif status == "complete" and any(s.get("end") is None for s in meta["steps"]):
            status, error = "failed", "Locust stopped before the last step ended (see its log)"
        self._end_run(run, sampler, pool, dumps, status, error, inj)
        self._keep_traces(run)
        if status != "complete":
            self.failed.append(f"{spec.id}: {error}")
            say(f"  run {spec.id} {status}: {error}")
        else:
            say("  " + self._run_line(run_dir))

    def _end_run(self, run: results.RunFile, sampler: CpuSampler, pool: ThreadPoolExecutor,
                 dumps: Future | None, status: str, error: str | None, inj: Injector | None = None) -> None:
        sampler.stop()
        self._timers.stop()
        notes = run.meta["notes"]
        if self._timers.errors:
            notes["client_time_errors"] = self._timers.errors
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

    def _run_line(self, run_dir: Path) -> str:
        """Per-step figures of a finished run (live analysis, no plots)."""
        try:
            rows = run_steps(run_dir, self.exp.settings)
        except Exception as e:        # a report problem must not stop the experiment
            return f"(no per-step figures: {e})"
        parts = []
        for s in rows:
            tp = "-" if s.throughput is None else f"{s.throughput:.0f}"
            parts.append(f"{s.users}u {tp}/s" + ("*" if s.excluded else ""))
        return "steps: " + ", ".join(parts) + ("   (* excluded)" if any(s.excluded for s in rows) else "")

    # ------------------------------------------------------------------ files
    def _write_experiment(self) -> None:
        results.write_json(self.folder / "experiment.json", self.meta)

    def _report(self) -> list[str]:
        """Make the report; return the lines to print after it (its headline, or why not)."""
        if not list((self.folder / "runs").glob("*/run.json")):
            return ["no run started: no report"]
        try:
            from analysis.report import regenerate
            from testbed.run.headline import lines
            regenerate(self.folder)
            return list(lines(json.loads((self.folder / "summary.json").read_text())))
        except Exception as e:
            return [f"testbed: run: the report could not be made: {e}; "
                    f"retry with ./testbed report {self._shown(self.folder)}"]

    @staticmethod
    def _shown(p: Path) -> str:
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            return str(p)


def _load_notes(spec: RunSpec) -> dict:
    from dataclasses import asdict
    d = asdict(spec.load)
    d["users"] = list(spec.load.users)
    return d
