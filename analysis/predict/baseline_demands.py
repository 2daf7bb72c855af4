"""Each tier's demands measured in a result folder's baseline run(s) — its CPU per request, the
lock's holding and waiting times: the inputs of the model (analysis.predict.fit).

Baseline: the clone runs with 1 clone, 1 replica of the service they call and the singleton
client (the configuration every other one of a clones experiment is compared with). Over each
valid step of those runs:
- CPU demand per request of each tier: U = U0 + D·X fitted over the steps (analysis.predict
  .cpufit: a background rate U0 and a cost per request D), or, where the steps' throughputs are
  too close together to tell the two apart, D = U / X (the utilisation law): U the tier's CPU in
  cores (cpu.csv, summed over its replicas), X the step's throughput. Tiers: loadgen (every
  Locust process), haproxy, front, clone, the service (axis or gsoap), and "unattributed": the
  host's CPU that no sampled process used (the kernel's share, Docker's port proxy, the runner
  itself — and, on a shared machine, other people's work).
- the client tier's own timers (client_time.csv): per call, the wait for the singleton's
  lock, the time it held it, and the calling thread's CPU while holding it.
- other programs' share of the host (host CPU less this experiment's: analysis.judge.regime's rule):
  a step where it reached regime.OTHERS_MAX (15 %) — of the baseline or of the cost
  probe's the CPU fit uses — is named in `beside_other_load`. Their CPU lands in the unattributed
  demand and the holding time ran on CPUs they shared, so the prediction reads low, most where
  the CPU limits a configuration (results/clones-20261202-020332: other programs at 26 % of the
  host in the baseline's first steps, the lock-bound configurations 9-11 % low, the client per
  request 40 %); the prediction says so and the validation counts it apart.
Each figure is the mean over the valid steps with its 95 % interval (t over the steps: how
much it moved from step to step, not the error of one step). Think time, the service's own
wait (demands.SERVICE.wait_us), thread pools and CPU capacity come from experiment.json and
run.json.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

from scipy import stats as sps

from analysis.judge import regime
from analysis.load import probes
from analysis.load.folder import RUN_FILE, ResultFolder, load_run
from analysis.measure import bottleneck as bmod
from analysis.measure.clones import is_baseline
from analysis.predict import cpufit
from analysis.steps import StepSample, warm_step

CLIENT_TIME_FILE = "client_time.csv"
SERVICES = ("axis", "gsoap", "own")      # own: your service, its CPU where its pid was given
TIERS = ("loadgen", "haproxy", "front", "clone")
UNATTRIBUTED = "unattributed"
DEFAULT_THREADS = 200          # <TIER>_TOMCAT_MAX_THREADS default (.env)


class NoBaseline(ValueError):
    """The folder has no usable baseline run; the text names what is missing and the fix."""


@dataclass(frozen=True)
class Estimate:
    """mean -- over the steps; low / high -- its 95 % interval (None with one step); n -- steps."""

    mean: float
    low: float | None
    high: float | None
    n: int

    @classmethod
    def of(cls, values: list[float]) -> "Estimate | None":
        xs = [v for v in values if v is not None and math.isfinite(v)]
        if not xs:
            return None
        m = sum(xs) / len(xs)
        if len(xs) < 2:
            return cls(m, None, None, len(xs))
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
        half = float(sps.t.ppf(0.975, len(xs) - 1)) * sd / math.sqrt(len(xs))
        low = m - half if m - half > 0 or min(xs) < 0 else 0.0    # a time or a demand is never negative
        return cls(m, low, m + half, len(xs))

    def to_json(self) -> dict:
        return {"mean": self.mean, "low": self.low, "high": self.high, "steps": self.n}


@dataclass
class StepDemand:
    """One valid baseline step."""

    run_id: str
    users: int
    throughput: float
    cpu: dict[str, float]                 # tier -> seconds of CPU per request
    lock_wait: float | None = None        # s per call
    lock_hold: float | None = None
    lock_cpu: float | None = None         # the clone thread's CPU while holding the lock
    others: float | None = None           # other programs' share of the host (None: no host samples)


@dataclass
class Demands:
    folder: str
    baseline_runs: list[str]
    backend: str
    steps: list[StepDemand]
    cpu: dict[str, Estimate]              # tier -> s per request
    lock_wait: Estimate | None
    lock_hold: Estimate | None
    lock_cpu: Estimate | None
    service_wait_s: float                 # demands.SERVICE.wait_us of the baseline
    think_time_s: float
    threads: dict[str, int]               # Tomcat threads per replica: front, clone, service
    host_cores: float
    pools: dict[str, float]               # CPU pools of the stack as run: name -> cores
    tier_pool: dict[str, str]             # tier -> its pool
    quotas: dict[str, float]              # tier -> cores per replica (docker quotas)
    mode: str
    missing: list[str] = field(default_factory=list)   # what is not measured (why a figure is absent)
    background: dict[str, float] = field(default_factory=dict)   # tier -> U0, cores per replica (fits resolved)
    cpu_fits: dict[str, cpufit.CpuFit] = field(default_factory=dict)
    fit_runs: list[str] = field(default_factory=list)  # runs whose steps the CPU fit used besides the baseline
    beside_other_load: list[dict] = field(default_factory=list)   # [{run_id, users, others}] (module doc)

    def to_json(self) -> dict:
        est = lambda e: e.to_json() if e else None     # noqa: E731
        return {"folder": self.folder, "baseline_runs": self.baseline_runs, "backend": self.backend,
                "cpu_s": {t: est(e) for t, e in self.cpu.items()}, "lock_wait_s": est(self.lock_wait),
                "lock_hold_s": est(self.lock_hold), "lock_cpu_s": est(self.lock_cpu),
                "service_wait_s": self.service_wait_s, "think_time_s": self.think_time_s,
                "threads": self.threads, "host_cores": self.host_cores, "pools": self.pools,
                "tier_pool": self.tier_pool, "quotas": self.quotas, "mode": self.mode,
                "missing": self.missing, "background_cores": self.background, "fit_runs": self.fit_runs,
                "cpu_fits": {t: f.to_json() for t, f in self.cpu_fits.items()},
                "beside_other_load": self.beside_other_load,
                "steps": [{"run_id": s.run_id, "users": s.users, "throughput": s.throughput, "cpu_s": s.cpu,
                           "lock_wait_s": s.lock_wait, "lock_hold_s": s.lock_hold, "lock_cpu_s": s.lock_cpu,
                           "others": s.others} for s in self.steps]}


def read_counter_rows(path: Path, columns: dict) -> list[dict]:
    """A sampler's CSV (client_time.csv, clone_gc.csv) as dicts, each column converted by its
    type in `columns`; a cut or unreadable row is skipped, a missing file reads as no rows."""
    out = []
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            for row in csv.DictReader(f):
                try:
                    out.append({k: kind(row[k]) for k, kind in columns.items()})
                except (KeyError, TypeError, ValueError):
                    continue
    except FileNotFoundError:
        return []
    return out


def replica_spans(rows: list[dict], counter: str, start: float, end: float, **match):
    """Each replica's first and last sample inside [start, end] (rows whose fields equal
    `match`), in replica order; a replica with fewer than two, or whose `counter` fell (it
    restarted), is left out."""
    rows = [r for r in rows if all(r[k] == v for k, v in match.items())]
    for rep in sorted({r["replica"] for r in rows}):
        inside = [r for r in rows if r["replica"] == rep and start <= r["timestamp"] <= end]
        if len(inside) >= 2 and inside[-1][counter] >= inside[0][counter]:
            yield inside[0], inside[-1]


def read_client_time(path: Path) -> list[dict]:
    """client_time.csv rows as dicts of numbers; a cut or unreadable row is skipped."""
    return read_counter_rows(path, {"timestamp": float, "replica": str, "backend": str,
                                    **{k: int for k in ("calls", "wait_ns", "hold_ns", "hold_cpu_ns")}})


def window_times(rows: list[dict], backend: str, start: float, end: float) -> tuple[float, float, float] | None:
    """Per-call (wait, hold, hold CPU) in seconds over [start, end]: the increase of each
    replica's counters between its first and last sample inside the window, summed."""
    calls = wait = hold = cpu = 0
    for a, b in replica_spans(rows, "calls", start, end, backend=backend):
        calls += b["calls"] - a["calls"]
        wait += b["wait_ns"] - a["wait_ns"]
        hold += b["hold_ns"] - a["hold_ns"]
        cpu += b["hold_cpu_ns"] - a["hold_cpu_ns"]
    if calls <= 0:
        return None
    return wait / calls / 1e9, hold / calls / 1e9, cpu / calls / 1e9


def _pools(experiment: dict, meta: dict) -> tuple[dict[str, float], dict[str, str], dict[str, float]]:
    """CPU pools as the runs had them: pinned stack and load generator, else the host's cores;
    a tier with a quota is a pool of its own (quota x replicas)."""
    caps = bmod.Capacities.from_experiment(experiment).for_run(meta)
    pools, where = {}, {}
    if caps.stack_cores:
        pools["stack"] = caps.stack_cores
        pools["loadgen"] = caps.loadgen_cores or caps.host_cores
        for t in (*TIERS, *SERVICES, UNATTRIBUTED):
            where[t] = "loadgen" if t == "loadgen" else "stack"
    else:
        pools["host"] = caps.host_cores
        where = {t: "host" for t in (*TIERS, *SERVICES, UNATTRIBUTED)}
    return pools, where, dict(caps.quotas)


def _valid(steps: dict[str, list[StepSample]], run_id: str) -> list[StepSample]:
    return [s for s in steps.get(run_id, []) if s.valid and s.throughput and s.measure_from is not None
            and s.end is not None]


def step_cpu(s: StepSample, backend: str) -> dict[str, float]:
    """Seconds of CPU per request of each tier over one step."""
    x = s.throughput
    cpu = {t: s.cpu[t] / 100 / x for t in TIERS if s.cpu.get(t) is not None}
    cpu["service"] = (s.cpu.get(backend) or 0.0) / 100 / x
    if s.host_cpu is not None:
        known = sum(v for t, v in s.cpu.items() if t in (*TIERS, *SERVICES))
        cpu[UNATTRIBUTED] = max(s.host_cpu - known, 0.0) / 100 / x
    return cpu


def others_share(s: StepSample, host_cores: float) -> float | None:
    """Other programs' share of the host over a step: host CPU less this experiment's
    (analysis.judge.regime's reading), as a fraction of the host's cores; None without host samples."""
    if s.host_cpu is None or not host_cores:
        return None
    return max(s.host_cpu - s.own_cpu, 0.0) / 100.0 / host_cores


def shared_steps(points: list[tuple[str, int, float | None]]) -> list[dict]:
    """[{run_id, users, others}] of the (run, users, share) points at or above regime.OTHERS_MAX."""
    return [{"run_id": r, "users": u, "others": round(o, 4)} for r, u, o in points
            if o is not None and o >= regime.OTHERS_MAX]


def _and(xs: list[str]) -> str:
    return xs[0] if len(xs) == 1 else f"{', '.join(xs[:-1])} and {xs[-1]}"


def beside_other_load_text(entries: list[dict]) -> str | None:
    """"other programs used 25 % of the host at 4 and 12 users (singleton-c1-a1-r0) ..." or None."""
    if not entries:
        return None
    by: dict[str, list[dict]] = {}
    for e in entries:
        by.setdefault(e["run_id"], []).append(e)
    parts = [f"{max(e['others'] for e in es):.0%} of the host at {_and([str(e['users']) for e in es])} users ({probes.label(r)})"
             for r, es in by.items()]
    return ("fitted beside other load: other programs used " + "; ".join(parts)
            + f" (at least {regime.OTHERS_MAX:.0%} is a shared host: analysis/judge/regime.py). Their CPU lands in the "
            "model's unattributed demand and the lock's holding time was measured on CPUs they shared, so the "
            "prediction reads low, most where the CPU limits a configuration (a client per request): this run "
            "tests the host, not the model — " + regime.SHARED_FIX)


def replicas(meta: dict, tier: str) -> int:
    """Replicas of a tier ("service": the run's backend) in a run; 1 for the single processes."""
    tiers = meta.get("tiers") or {}
    key = str(meta.get("backend") or "axis") if tier == "service" else tier
    return max(int(tiers.get(key) or 1), 1) if tier in ("front", "clone", "service") else 1


def _fits(points: list[tuple[float, dict[str, float], dict]]) -> dict[str, cpufit.CpuFit]:
    """Each tier's U = n·U0 + D·X over the steps (x, CPU per request by tier, the run's meta)."""
    tiers = sorted({t for _, c, _ in points for t in c})
    out = {}
    for t in tiers:
        pts = [(x, c[t] * x, replicas(m, t)) for x, c, m in points if c.get(t) is not None]
        if pts:
            out[t] = cpufit.fit(*map(list, zip(*pts)))
    return out


SAME_PATH = ("backend", "op", "n", "client_mode", "tiers")


def probe_runs(result: ResultFolder) -> list:
    """The complete runs in the folder's probes/ (analysis.load.probes) but the cost probe's run
    under load: the cost probe of a clones experiment with a scaled wait (/seg/5 with the first
    scaled run's stack and no service wait, run before it, in steps until its throughput settles:
    cli/testbed/fit/costs.py), the classic-system profile's probes."""
    runs = []
    for run_file in sorted(probes.folder(result.path).glob(f"*/{RUN_FILE}")):
        try:
            run = load_run(run_file.parent)
        except (OSError, ValueError):
            continue
        loaded = probes.is_named(run.id, probes.LOADED_PROBE_RUN)       # its CPU is the builds' too
        if run.meta.get("status") == "complete" and not loaded:
            runs.append(run)
    return runs


def same_path_runs(result: ResultFolder, baseline_meta: dict) -> list:
    """The complete runs through path 5 that make the baseline's calls with the baseline's stack
    and no service wait — the segment part's path 5 (classic experiments) or the cost probe
    (clones experiments): the same JVMs and code path at several times the baseline's
    throughput, the second operating point the CPU fit needs to tell a tier's background rate
    from its cost per request, measured before the baseline and no held-out configuration
    (docs/predict.md, "Background CPU")."""
    def same(r) -> bool:
        return (r.meta.get("path") == 5 and r.meta.get("status") == "complete"
                and all(r.meta.get(k) == baseline_meta.get(k) for k in SAME_PATH))
    return ([r for r in result.runs if r.meta.get("kind") == "segments" and same(r)]
            + [r for r in probe_runs(result) if same(r)])


def _fit_steps(run, steps: dict[str, list[StepSample]]) -> list[StepSample]:
    """The steps of a fit run the CPU fit uses: a probe's last, its warmest
    (analysis.steps.warm_step; its first steps are its JVMs' JIT), every valid step of a
    segment run."""
    valid = _valid(steps, run.id)
    return warm_step(valid) if probes.is_probe(run.dir) else valid


def fit_steps(result: ResultFolder, steps: dict[str, list[StepSample]], runs: list) -> dict[str, list[StepSample]]:
    """`steps` with those of `runs` that it lacks (a probe is no run of the
    experiment, so the analysis of the folder has none of its steps)."""
    missing = [r for r in runs if r.id not in steps]
    if not missing:
        return steps
    from analysis import steps as asteps
    return {**steps, **{r.id: asteps.of_run(r, result.settings) for r in missing}}


def measure(result: ResultFolder, steps: dict[str, list[StepSample]], runs: list | None = None,
            first_step_only: bool = False, fit_runs: list | None = None) -> Demands:
    """The demands of `result`'s baseline run(s) (or of `runs`); `steps` are their per-step
    samples (analysis.summary.analyse(...).steps). first_step_only: the lowest-load valid step
    of each run. fit_runs: further runs whose steps the CPU fit (U = U0 + D·X) uses too — other
    throughputs than the baseline's; they are then not held out. None: the baseline's path-5
    segment runs where the folder has them (same_path_runs), else none. Raises NoBaseline
    naming what is missing."""
    base = runs if runs is not None else [r for r in result.runs if is_baseline(r.meta)]
    if not base:
        raise NoBaseline(f"{result.path}: no baseline run (1 clone, 1 service replica, singleton client) "
                         "to fit the model to; run ./testbed run clones (its first run is one)")
    meta = base[0].meta
    if fit_runs is None:
        fit_runs = same_path_runs(result, meta) if runs is None else []
    backend = str(meta.get("backend") or "axis")
    rows: list[StepDemand] = []
    missing: list[str] = []
    cores = float((result.experiment.get("host") or {}).get("cores") or 1)
    for run in base:
        timers = read_client_time(run.dir / CLIENT_TIME_FILE)
        if not timers:
            missing.append(f"{run.id}: no {CLIENT_TIME_FILE} (the client tier's lock timers): "
                           "lock holding time estimated from the throughput instead")
        valid = _valid(steps, run.id)
        for s in sorted(valid, key=lambda s: s.users)[:1] if first_step_only else valid:
            x = s.throughput
            cpu = step_cpu(s, backend)
            t = window_times(timers, backend, s.measure_from, s.end) if timers else None
            rows.append(StepDemand(run.id, s.users, x, cpu, *(t or (None, None, None)), others_share(s, cores)))
    if not rows:
        raise NoBaseline(f"{result.path}: the baseline run(s) {', '.join(r.id for r in base)} have no valid "
                         "step with throughput and CPU samples; run the experiment again")
    if not any(r.cpu for r in rows) or all(len(r.cpu) <= 1 for r in rows):
        raise NoBaseline(f"{result.path}: the baseline has no CPU samples (cpu.csv) to take demands from")
    tiers = sorted({t for r in rows for t in r.cpu})
    cpu = {t: Estimate.of([r.cpu.get(t) for r in rows]) for t in tiers}
    steps = fit_steps(result, steps, fit_runs or [])
    metas = {r.id: r.meta for r in (*base, *(fit_runs or []))}
    fit_points = [(run, s) for run in (fit_runs or []) for s in _fit_steps(run, steps)]
    extra = [(s.throughput, step_cpu(s, backend), run.meta) for run, s in fit_points]
    shared = shared_steps([(r.run_id, r.users, r.others) for r in rows]
                          + [(run.id, s.users, others_share(s, cores)) for run, s in fit_points])
    fits = _fits([(r.throughput, r.cpu, metas[r.run_id]) for r in rows] + extra)
    background, why = {}, {}
    for t, f in fits.items():
        if f.resolved:
            cpu[t] = Estimate(f.d, f.d_low, f.d_high, f.steps)
            background[t] = f.u0
        else:
            why.setdefault(f.why, []).append(t)
    missing += [f"CPU of {', '.join(ts)}: no background rate U0 fitted ({w})" for w, ts in why.items()]
    pools, where, quotas = _pools(result.experiment, meta)
    knobs = meta.get("knobs") or {}
    threads = {t: int(knobs.get(f"{t.upper()}_TOMCAT_MAX_THREADS", DEFAULT_THREADS))
               for t in ("front", "clone", "axis")}
    wait_us = ((meta.get("demands") or {}).get("SERVICE") or {}).get("wait_us") or 0
    think = float(result.settings.think_time_s or ((meta.get("notes") or {}).get("load") or {}).get("think_time") or 0)
    return Demands(str(result.path), [r.id for r in base], backend, rows, {t: e for t, e in cpu.items() if e},
                   Estimate.of([r.lock_wait for r in rows]), Estimate.of([r.lock_hold for r in rows]),
                   Estimate.of([r.lock_cpu for r in rows]), float(wait_us) / 1e6, think, threads,
                   cores, pools, where, quotas,
                   str(result.experiment.get("mode") or "local"), missing, background, fits,
                   [r.id for r in fit_runs or []], shared)
