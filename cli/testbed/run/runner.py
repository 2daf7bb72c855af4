"""Run an experiment end to end: start or reuse the stack (stackuse), for every run fit what the
host calls for (testbed.fit.tohost: the service wait, the classic profile's settings) and do the
run (onerun: reconfigure the stack, drive one headless Locust run, record CPU, dumps, traces),
write the model's prediction after the baseline, and at the end regenerate the report (analysis
package) while the stack is put back. Every phase is timed (ledger: experiment.json "time") and the
time left re-estimated as phases end (eta: the progress line's "≈ N min left").

Ctrl-C: the Locust run in progress is stopped with SIGINT (its CSVs are written), the run and
the experiment are marked "interrupted", the report is made from the finished steps, and the
folder is printed. A Ctrl-C during a reconfiguration waits for it to finish (the stack is never
left half-scaled). The Locust web UI of `./testbed up`, if any, is left running and idle: it
costs ~0 CPU when idle, keeps the user's browser session, and its processes are sampled into
cpu.csv (replicas ui-*) so a test started from it during an experiment would show.
"""
from __future__ import annotations

import json
import shutil
import signal
import threading
import time
from pathlib import Path

from testbed import ROOT
from testbed.fit import buildprobe, tohost
from testbed.fit.costs import cost_probe_spec, needs_cost_probe
from testbed.fit.probes import cost_probe_specs, profile_probe_specs
from testbed.fit.rewrite import PROBE_PRIME_S, SEGMENT_USERS as profile_users
from testbed.run import predicting, results, stackuse
from testbed.run.eta import Eta, changed_runs, cold_runs
from testbed.run.ledger import Ledger
from testbed.run.ctrlc import deferred_sigint
from testbed.experiment.definition import Experiment, RunSpec
from testbed.run.locustrun import RemoteWorkers, stack_workers
from testbed.run.onerun import RunDriver
from testbed.run.progress import Progress
from testbed.stack import Stack
from testbed.tiers import knobs_read

RESULTS_DIR = ROOT / "results"
LOCUST_START_S = 4.0       # rough cost of one Locust start + stop, for the time estimate
JVM_START_S = 8.0          # rough cost of one JVM tier start on a busy 2-core machine


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
        self.runs = RunDriver(exp, stack, self.progress, self.failed)     # one run at a time
        self.ledger = Ledger()            # where the time goes (experiment.json "time")
        self.eta: Eta | None = None       # the time left, made when the experiment starts

    # ------------------------------------------------------------------ the experiment
    def run(self) -> Path:
        """Run every run; return the result folder (also when interrupted: then re-raises)."""
        exp, say = self.exp, self.progress.say
        started = time.time()
        with self.ledger.span("start-up"):
            self._begin(started)
        interrupted, original, report_s = False, None, 0.0
        try:
            with self.ledger.span("start-up"), deferred_sigint(self.progress, "starting the stack"):
                original = stackuse.ensure(exp, self.stack, say, self.tracing, self.scale_from)
                self.started_stack = original is None
            with self.ledger.span("start-up"):
                self._locust_workers()
            self._tell_left(0)
            if exp.profile != "stack":
                with self.ledger.span("calibration"):
                    self._profile()                # emulated demands: before the first run
            for i in range(len(exp.runs)):
                if exp.runs[i].auto_wait and "scaling" not in self.meta:
                    with self.ledger.span("calibration"):
                        self._scale(i)             # the service wait for this host, before its first run
                if exp.profile != "stack":
                    with self.ledger.span("calibration"):
                        self._retune(i)            # the profile's settings again, from what its quotas gave
                self._timed_run(i)
                self._predict_after(i)
                self._tell_left(i + 1)
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
            self._account(started)
            self._write_experiment()
            # the stack put back (containers restarted, health waited for) while the report,
            # which reads only the folder, is made: seconds of waiting the user no longer adds
            wrap = threading.Thread(target=stackuse.wrap_up, args=(exp, self.stack, say, original, interrupted),
                                    kwargs={"started": self.started_stack, "keep": self.keep_stack,
                                            "restore": self.restore, "remote_made": self.remote_made},
                                    name="stack-wrap-up", daemon=True)
            wrap.start()
            made = time.time()
            headline = self._report()
            report_s = time.time() - made
            if isinstance(self.meta.get("time"), dict):    # after the report: not in the report it times
                self.meta["time"]["report_s"] = round(report_s, 3)
                self._write_experiment()
            wrap.join()
            for ln in headline:
                say(ln)
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)
        say(f"{exp.name}: {status} in {(time.time() - started) / 60:.1f} min (the report took {report_s:.0f} s); "
            f"report: {self._shown(self.folder / 'report.html')}")
        if interrupted:
            raise KeyboardInterrupt
        return self.folder

    def _begin(self, started: float) -> None:
        """The result folder, experiment.json as it starts, the plan said."""
        exp, say = self.exp, self.progress.say
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
        self.eta = Eta(exp.runs, self._calibration_seconds(), LOCUST_START_S, JVM_START_S)
        adaptive = any(r.load.adaptive or r.load.steady for r in exp.runs)
        say(f"{exp.name}: {len(exp.runs)} run(s){' (quick)' if exp.quick else ''}, "
            + (f"about {self.eta.left(0, 0.0) / 60:.0f} min, at most {self.estimate() / 60:.0f} (primes end once "
               "the stack is measurably warm, steps once their throughput is known well enough)" if adaptive else
               f"about {self.estimate() / 60:.0f} min")
            + f"; results in {self._shown(self.folder)}")

    def _locust_workers(self) -> None:
        """On a cluster made here, Locust's workers on its load-generator node; then the stack
        as the runs find it into experiment.json."""
        if self.remote is None:
            self.remote = stack_workers(self.stack, max(1, max(self._workers(r) for r in self.exp.runs)),
                                        self.progress.say)
            self.remote_made, self.workers_override = bool(self.remote), 0 if self.remote else self.workers_override
        self.meta["stack"] = {**self.stack.describe(), "knobs": knobs_read(self.stack.cfg.knobs)}
        self.meta["cpu_quotas"] = self.meta["stack"].get("cpu_quotas")
        self._write_experiment()

    # ------------------------------------------------------------------ where the time goes
    def _timed_run(self, i: int) -> None:
        """Run i in a "run" span of the ledger, the time left re-estimated as its phases end."""
        spec = self.exp.runs[i]
        log = self.folder / "runs" / spec.id / results.STEP_LOG
        seen = [-1]

        def refresh() -> None:                 # each status line: a phase began or ended?
            try:
                size = log.stat().st_size
            except OSError:
                return
            if size != seen[0]:
                seen[0] = size
                steps, phases = results.read_step_log(log)
                self._tell_left(i, (i, steps, phases, time.time()))

        self._tell_left(i)
        self.progress.refresh = refresh
        try:
            with self.ledger.span("run", run=spec.id):
                self._one_run(i, spec)
        finally:
            self.progress.refresh = None
            if self.eta is not None:
                self.eta.ran(i, self.ledger.run_row(spec.id, self.folder / "runs" / spec.id))

    def _tell_left(self, nxt: int, current: tuple | None = None) -> None:
        if self.eta is not None:
            self.progress.set_left(self.eta.left(nxt, self.ledger.seconds("calibration"), current))

    def _account(self, started: float) -> None:
        """experiment.json "time" from the ledger (a problem there never stops the wrap-up)."""
        try:
            self.meta["time"] = self.ledger.summary(started, self.meta["ended"], self.folder / "runs")
        except Exception as e:
            self.meta["time"] = {"error": f"{type(e).__name__}: {e}"[:300]}

    def _predict_after(self, i: int) -> None:
        """After the last baseline run: the model's prediction of the runs to come (predicting.py)."""
        configs = [r.config() for r in self.exp.runs]
        if self.exp.kind in ("clones", "classic") and predicting.due(configs, i):
            if buildprobe.due(configs) and not (self.folder / buildprobe.FILE).exists():
                # the per-request client's build, on the baseline's stack (unless measured already
                # before the run under load: _scale)
                with self.ledger.span("calibration"), deferred_sigint(self.progress, "probing the client build"):
                    self._probe_build(self.exp.runs[i].backend)
            with self.ledger.span("prediction"), deferred_sigint(self.progress, "writing the prediction"):
                predicting.write(self.folder, self.progress.say)

    def _probe_build(self, backend: str) -> None:
        """build_probe.json: what a per-request client's build costs each tier (buildprobe.measure)."""
        results.write_json(self.folder / buildprobe.FILE, buildprobe.measure(
            self.stack, backend, self.exp.quick, self.progress.say))

    def estimate(self) -> float:
        """Seconds the experiment plans; with adaptive steps or primes by measurement the longest
        it may take (a prime counted where a run's tiers are cold: eta.cold_runs, RunDriver's rule)."""
        runs = self.exp.runs
        changed = changed_runs(runs)
        return (sum(r.load.seconds(primed=cold) + LOCUST_START_S for r, cold in zip(runs, cold_runs(runs, changed)))
                + sum(changed) * JVM_START_S + self._calibration_seconds())

    def _calibration_seconds(self) -> float:
        """Seconds planned for fitting the experiment to the host: cost, profile and build probes."""
        runs, seconds = self.exp.runs, 0.0
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
        return seconds

    # ------------------------------------------------------------------ the stack and the runs
    def _workers(self, spec: RunSpec) -> int:
        return stackuse.locust_workers(spec, self.workers_override, self.stack)

    def _one_run(self, i: int, spec: RunSpec, root: Path | None = None) -> None:
        """Run i of the experiment, or a probe standing in for it (root: the probe's folder, no faults)."""
        faults = [f for f in self.exp.faults if f.run in ("*", spec.entry)] if root is None else []
        self.runs.run(i, spec, (root or self.folder / "runs") / spec.id, self._workers(spec), faults,
                      self.remote, self.remote_made)

    # ------------------------------------------------------------------ fitted to this host
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

    # ------------------------------------------------------------------ files
    def _write_experiment(self) -> None:
        results.write_json(self.folder / "experiment.json", self.meta)

    def _report(self) -> list[str]:
        """Make the report; return the lines to print after it (its headline, or why not)."""
        if not list((self.folder / "runs").glob("*/run.json")):
            return ["no run started: no report"]
        try:
            from analysis.render.report import regenerate
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
