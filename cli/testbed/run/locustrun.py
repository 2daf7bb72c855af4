"""One headless Locust run: a master (no web UI, a private master port) and W workers, or one
local process when W = 0, driving one user class with StepLoadShape and writing
`--csv <run_dir>/locust --csv-full-history` (never --reset-stats) and the step log.

Stopping early (Ctrl-C): SIGINT to the master, which stops the users, writes its CSVs and
tells the workers to quit; anything still alive after a grace period gets SIGTERM, then
SIGKILL (procs.stop)."""
from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from analysis.load.latency import LOG_FILE as LATENCY_LOG
from testbed import ROOT, procs
from testbed.experiment.definition import RunSpec
from testbed.experiment.plan import PRIME_RELEASE
from testbed.run.results import LOCUST_PREFIX, STEP_LOG

HOLD_RELEASE = "hold.release"    # created by the runner when its thread dumps are done
LOCUSTFILES = f"{ROOT / 'loadgen' / 'locustfile.py'},{ROOT / 'loadgen' / 'shapes.py'}"


def _fmt(x: float) -> str:
    return f"{x:g}"


def master_argv(spec: RunSpec, run_dir: Path, host_url: str, workers: int, master_port: int | None,
                primed: bool, locustfiles: str = LOCUSTFILES, user_class: str | None = None,
                bind_host: str = "127.0.0.1") -> list[str]:
    """workers: every worker the master waits for (this host's and other nodes')."""
    load = spec.load
    argv = [sys.executable, "-m", "locust", "-f", locustfiles, "--headless", "-H", host_url,
            "--csv", str(run_dir / LOCUST_PREFIX), "--csv-full-history", "--only-summary",
            "--step-users", ",".join(str(u) for u in load.users),
            "--step-seconds", _fmt(load.step_seconds), "--warmup-seconds", _fmt(load.warmup_seconds),
            "--prime-seconds", _fmt(load.prime_ceiling() if primed else 0.0),
            "--hold-seconds", _fmt(load.hold_seconds), "--hold-release", str(run_dir / HOLD_RELEASE),
            "--step-log", str(run_dir / STEP_LOG),
            "--backend", spec.backend, "--n", str(spec.n), *(["--op", spec.op] if spec.backend != "own" else []),
            "--think-time", _fmt(load.think_time), "--arrival-rate", _fmt(load.arrival_rate),
            "--max-outstanding", str(load.max_outstanding), "--trace-sample", _fmt(load.trace_sample),
            "--latency-log", str(run_dir / LATENCY_LOG),
            "--exit-code-on-error", "0",
            "--stop-timeout", "5"]
    if primed and load.steady:      # the prime ends once the runner finds the stack warm
        argv += ["--step-prime-release", str(run_dir / PRIME_RELEASE)]
    if load.target_ci > 0:          # adaptive steps: --step-seconds is the longest a step lasts
        argv += ["--step-target-ci", _fmt(load.target_ci), "--step-min-seconds", _fmt(load.min_step_seconds)]
    if load.plateau_tolerance > 0:  # the ramp stops at the plateau
        argv += ["--step-plateau-tolerance", _fmt(load.plateau_tolerance),
                 "--step-plateau-steps", str(load.plateau_steps)]
    if workers > 0:
        argv += ["--master", "--master-bind-host", bind_host, "--master-bind-port", str(master_port),
                 "--expect-workers", str(workers), "--expect-workers-max-wait", "60"]
    return argv + [user_class or spec.user_class]


def worker_argv(master_port: int, locustfiles: str = LOCUSTFILES) -> list[str]:
    return [sys.executable, "-m", "locust", "-f", locustfiles, "--worker",
            "--master-host", "127.0.0.1", "--master-port", str(master_port)]


@dataclass(frozen=True)
class RemoteWorkers:
    """Locust workers on other hosts (e.g. Swarm nodes, docs/docker.md): the master binds
    bind_host:port instead of a private loopback port and waits for `count` more workers, which
    (re)connect for every run: `locust --worker --master-host <this host> --master-port <port>`
    with the testbed's locustfiles (the locust image), restarted whenever a run ends."""
    bind_host: str
    port: int
    count: int


def stack_workers(stack, count: int, say=print) -> RemoteWorkers | None:
    """Workers the stack runs on its own load-generator node (a cluster made by ./testbed cluster
    up: Stack.remote_workers), so that the load does not share the tiers' CPU; None elsewhere."""
    where = stack.remote_workers(count)
    if not where:
        return None
    say(f"load: Locust master on this host ({where[0]}:{where[1]}), {count} worker(s) on the cluster's "
        "load-generator node")
    return RemoteWorkers(where[0], where[1], count)


class LocustRun:
    """Start with start(); poll alive(); finish with wait() or interrupt()."""

    def __init__(self, spec: RunSpec, run_dir: Path, host_url: str, workers: int,
                 cpus: set[int] | None, primed: bool, locustfiles: str = LOCUSTFILES,
                 user_class: str | None = None, remote: "RemoteWorkers | None" = None, zipkin_url: str = "",
                 groups=None):
        """zipkin_url: tracing on (docs/tracing.md): Locust's processes send their spans there;
        groups(name): the cgroup.procs files process `name` enters (its CPU quota: Stack.load_quota)."""
        self.spec, self.dir, self.host_url, self.workers = spec, run_dir, host_url, workers
        self.remote = remote
        self.cpus, self.primed = cpus, primed
        self.locustfiles, self.user_class = locustfiles, user_class
        self.master: procs.Proc | None = None
        self.worker_procs: list[procs.Proc] = []
        self.master_port: int | None = None
        self.started_at: float | None = None
        self.zipkin_url = zipkin_url
        self.groups = groups or (lambda name: [])

    def start(self) -> None:
        expected = self.workers + (self.remote.count if self.remote else 0)
        self.master_port = (self.remote.port if self.remote else procs.free_port()) if expected else None
        env = {"PYTHONUNBUFFERED": "1", "ZIPKIN_URL": self.zipkin_url}
        self.started_at = time.time()
        try:
            # workers first: they queue their "ready" until the master binds, so the master
            # finds them all at its first look instead of polling once a second
            for i in range(1, self.workers + 1):
                self.worker_procs.append(procs.start(
                    f"locust-worker-{i}", worker_argv(self.master_port, self.locustfiles),
                    self.dir / f"locust-worker-{i}.log", env=env, cwd=ROOT, cpus=self.cpus,
                    cgroups=self.groups(f"locust-worker-{i}")))
            name = "locust-master" if expected else "locust-local"
            self.master = procs.start(
                name,
                master_argv(self.spec, self.dir, self.host_url, expected, self.master_port, self.primed,
                            self.locustfiles, self.user_class,
                            self.remote.bind_host if self.remote else "127.0.0.1"),
                self.dir / ("locust-master.log" if expected else "locust-local.log"),
                env=env, cwd=ROOT, cpus=self.cpus, cgroups=self.groups(name))
        except BaseException:
            self.kill()
            raise

    def names(self) -> list[str]:
        """The process names groups() is asked for."""
        return ["locust-master" if self.master_port else "locust-local"] + [
            f"locust-worker-{i}" for i in range(1, self.workers + 1)]

    def processes(self) -> list[tuple[str, procs.Proc]]:
        """(replica name in cpu.csv, process)"""
        out = [("master" if self.master_port else "local", self.master)] if self.master else []
        return out + [(f"worker-{i}", p) for i, p in enumerate(self.worker_procs, 1)]

    def alive(self) -> bool:
        return bool(self.master and self.master.alive())

    def exit_code(self) -> int | None:
        """The master's exit status once it has ended (None if unknown or still running)."""
        return procs.exit_code(self.master) if self.master else None

    def wait_workers(self, timeout: float = 15.0) -> None:
        """After the master ended: workers quit on its word; stop any that did not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(w.alive() for w in self.worker_procs):
            time.sleep(0.1)
        for w in self.worker_procs:
            procs.stop(w, timeout=5)

    def interrupt(self, grace: float = 20.0) -> None:
        """Ctrl-C: SIGINT to the master (it writes its CSVs), then make sure all are gone."""
        if self.master and self.master.alive():
            try:
                os.kill(self.master.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and self.master.alive():
                time.sleep(0.1)
            procs.stop(self.master, timeout=5)
        self.wait_workers(timeout=5)

    def kill(self) -> None:
        for _, p in self.processes():
            procs.stop(p, timeout=3)

    def log_tail(self) -> str:
        if not self.master:
            return ""
        return procs.tail(Path(self.master.log), 20)
