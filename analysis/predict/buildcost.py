"""A client per request from the baseline and the client-build probe (docs/predict.md).

A per-request client builds its client on every call — WSDL fetched through HAProxy from the
service, parsed, the stub created — which a singleton baseline never does. The runner measures
that build on the baseline's stack before any held-out run (testbed/fit/buildprobe.py:
build_probe.json, each tier's CPU per build with its idle rate taken off, the median build's
wall time, and the clone's CPU of the first call on a fresh client beyond a reused client's).
The model of a per-request configuration is then the baseline's: all of its CPU outside any
lock (there is none), plus each tier's CPU per build and the clone's first-call extra, and the
build's wall time not spent on that CPU as a delay.

Under load (testbed/fit/buildprobe.py, under_load): built alone, a client costs the other tiers
nothing, but while one clone builds clients beside the stack's own load every tier's requests
cost more CPU. Where the runner ran its cost probe once more with the clone building
clients (probes/cost-probe-build/, its probe calls in PROBE_CALLS), each tier's CPU per
build is taken from that run instead. The idle probe keeps the build's wall time.

Side by side (PROBE_CALLS with `alternate_from`; folders written before it have none): after a
warm-up of continuous builds the clone builds in calls of ON_S and pauses OFF_S, so the same run
has windows with and without builds a few seconds apart. In each window (its first TRIM_S left
out: the switch), every tier's mean CPU (cpu.csv, samples whose whole second lies inside), the
requests (the history's cumulative count, interpolated at each row's REPORT_AT) and the builds
(the calls' overlap) give rates U, X and B; the windows with builds and those without are pooled
(weighted by their length) into two points, and each tier's U = d·X + b·B through both gives b,
its CPU per build: (U_on·X_off − U_off·X_on) / (B_on·X_off − B_off·X_on). Its reference — the
CPU per request without builds — is thus measured beside the builds, on the same warm JVMs,
instead of in the cost probe a minute earlier, whose JVMs were still getting cheaper
(measured that way, the estimate ranged 1.09-4.09 ms a build over seven folders).

Earlier folders (continuous builds, no `alternate_from`): in each of the run's last
LOADED_STEPS valid steps, (the tier's CPU − the step's throughput × the tier's CPU per request
in the cost probe's warm step) / the builds made in the step's window, the median of those
steps.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path

from analysis.load import cpu as cpumod
from analysis.load import probes
from analysis.load.folder import load_run
from analysis.load.locust_csv import HistoryRow
from analysis.load.settings import Settings
from analysis.predict.fit import Fitted
from analysis.predict.baseline_demands import SERVICES, Demands
from analysis.steps import StepSample, of_run, warm_step

FILE = "build_probe.json"
PROBE_CALLS = "probe_calls.json"    # in probes/cost-probe-build/: the probe calls under load
LOADED_STEPS = 2                    # the steps under load used: the last two (the first are the build path's JIT)
TRIM_S = 1.0                        # side by side: left out at the start of each window (the switch)
MIN_WINDOW_S = 2.0                  # side by side: a shorter window (after the trim) is not used
MIN_WINDOWS = 2                     # side by side: windows needed with builds and without
REPORT_AT = 0.4                     # a history row stamped t counts the requests up to t + 0.4
                                    # (the workers report at 0.4 and 0.9 of each second)


@dataclass(frozen=True)
class BuildCost:
    backend: str
    cpu: dict[str, float]          # tier (front, clone, haproxy, axis, gsoap, loadgen, unattributed) -> s per build
    wall_s: float                  # the median build's wall time
    builds: int
    idle_cpu: dict[str, float] = field(default_factory=dict)   # the idle probe's, where cpu is under load
    under_load: str = ""           # where cpu comes from a run under load: how many builds in which steps
    first_call: float = 0.0        # the clone's CPU of a fresh client's first call beyond a reused one's (s, ≥ 0)
    crowding: tuple[tuple[float, float], ...] = ()   # (builds at once, factor of the clone's build and first call)

    def off_cpu(self, backend: str) -> float:
        """The build's wall time not spent on the CPU it was measured to use alone, with it (≥ 0)."""
        cpu = self.idle_cpu or self.cpu
        return max(self.wall_s - sum(v for t, v in cpu.items() if t not in SERVICES or t == backend), 0.0)

    def to_json(self) -> dict:
        return {"backend": self.backend, "cpu_s_per_build": self.cpu, "build_s_median": self.wall_s,
                "builds": self.builds, "idle_cpu_s_per_build": self.idle_cpu or None,
                "under_load": self.under_load or None, "first_call_s": self.first_call,
                "crowding": [list(p) for p in self.crowding] or None}


def _builds_in(calls: list[dict], start: float, end: float) -> float:
    """Builds made in [start, end]: each call's builds spread evenly over its duration."""
    n = 0.0
    for c in calls:
        a, b = float(c["start"]), float(c["end"])
        if b > a:
            n += int(c.get("built") or 0) * max(min(b, end) - max(a, start), 0.0) / (b - a)
    return n


def _window(s: StepSample) -> tuple[float, float]:
    """The measured part of a step: after its warm-up to its end."""
    start = s.measure_from if s.measure_from is not None else (s.start or 0.0)
    return start, s.end if s.end is not None else start


def _cores(tiers: dict[str, float | None], host: float | None) -> dict[str, float]:
    """Cores of each tier from % of one core, and 'unattributed': the host's busy CPU that no
    tier used (where the host was sampled)."""
    out = {t: v / 100 for t, v in tiers.items() if v is not None}
    if host is not None:
        out["unattributed"] = max(host / 100 - sum(out.values()), 0.0)
    return out


def per_build_under_load(base: StepSample, loaded: list[StepSample], calls: list[dict]) -> dict[str, float]:
    """Each tier's (and 'unattributed') CPU seconds per build: in each loaded step, its CPU above
    the step's throughput × its CPU per request in base, over the builds in the step's window;
    the median over the steps (never below zero). Empty when no step had builds."""
    def cores(s: StepSample) -> dict[str, float]:
        return _cores(s.cpu, s.host_cpu)
    ref = cores(base)
    per: dict[str, list[float]] = {}
    for s in loaded:
        start, end = _window(s)
        rate = _builds_in(calls, start, end) / max(end - start, 1e-9)       # builds per second
        if rate <= 0 or not s.throughput:
            continue
        for t, u in cores(s).items():
            if t in ref:
                per.setdefault(t, []).append((u - s.throughput * ref[t] / base.throughput) / rate)
    return {t: max(statistics.median(v), 0.0) for t, v in per.items()}


def _requests_at(rows: list[HistoryRow], t: float) -> float | None:
    """The cumulative request count at time t, interpolated between the history rows (each
    counting the requests up to its timestamp + REPORT_AT); None outside them."""
    pts = [(r.timestamp + REPORT_AT, float(r.total_requests)) for r in rows]
    for (ta, ca), (tb, cb) in zip(pts, pts[1:]):
        if ta <= t <= tb and tb > ta and cb >= ca:
            return ca + (cb - ca) * (t - ta) / (tb - ta)
    return None


def windows(calls: list[dict], alternate_from: float, start: float, end: float) -> list[tuple[float, float, bool]]:
    """(from, to, with builds) of each window of the alternation inside [start, end]: each call
    from alternate_from on, and each pause between two of them, TRIM_S left out at its start,
    at least MIN_WINDOW_S long."""
    alt = sorted((c for c in calls if float(c["start"]) >= alternate_from), key=lambda c: float(c["start"]))
    raw = [(float(c["start"]), float(c["end"]), True) for c in alt]
    raw += [(float(a["end"]), float(b["start"]), False) for a, b in zip(alt, alt[1:])]
    out = []
    for a, b, on in sorted(raw):
        a, b = max(a + TRIM_S, start), min(b, end)
        if b - a >= MIN_WINDOW_S:
            out.append((a, b, on))
    return out


def side_by_side(samples: list[cpumod.Sample], rows: list[HistoryRow], calls: list[dict],
                 alternate_from: float, start: float, end: float) -> tuple[dict[str, float], dict]:
    """Each tier's (and 'unattributed') CPU seconds per build from the windows with builds and
    those without (the module docstring), and the two points it rests on; ({}, why) when there
    are fewer than MIN_WINDOWS of either kind with CPU samples and requests."""
    sums = {on: {"s": 0.0, "req": 0.0, "built": 0.0, "cpu": {}, "n": 0} for on in (True, False)}
    for a, b, on in windows(calls, alternate_from, start, end):
        w = cpumod.window(samples, a + 1.0, b)          # samples whose whole second lies inside
        ca, cb = _requests_at(rows, a), _requests_at(rows, b)
        if not w.samples or ca is None or cb is None:
            continue
        tiers = {t for t, _ in w.replicas if t not in (cpumod.NODE, cpumod.KERNEL, cpumod.HOST)}
        cores = _cores({t: w.tier_total(t) for t in tiers}, w.tier_total(cpumod.HOST))
        acc, d = sums[on], b - a
        acc["s"] += d
        acc["req"] += cb - ca
        acc["built"] += _builds_in(calls, a, b)
        acc["n"] += 1
        for t, u in cores.items():
            acc["cpu"][t] = acc["cpu"].get(t, 0.0) + u * d
    if min(sums[True]["n"], sums[False]["n"]) < MIN_WINDOWS:
        return {}, {"why": f"{sums[True]['n']} window(s) with builds and {sums[False]['n']} without "
                           f"(need {MIN_WINDOWS} of each)"}
    pts = {on: {"s": v["s"], "windows": v["n"], "x": v["req"] / v["s"], "b": v["built"] / v["s"],
                "cores": {t: c / v["s"] for t, c in v["cpu"].items()}} for on, v in sums.items()}
    on, off = pts[True], pts[False]
    det = on["b"] * off["x"] - off["b"] * on["x"]
    if det <= 0 or not off["x"]:
        return {}, {"why": "no more builds a second in the windows with builds than in those without"}
    per = {t: max((on["cores"][t] * off["x"] - off["cores"][t] * on["x"]) / det, 0.0)
           for t in on["cores"] if t in off["cores"]}
    return per, {"with": on, "without": off}


def _side_by_side_of(run, probe: dict, calls: list[dict], loaded: list[StepSample]):
    """side_by_side over the run under load (loaded: its valid steps) from its first valid
    step's measurement on."""
    start, end = _window(loaded[0])[0], _window(loaded[-1])[1]
    per, points = side_by_side(run.cpu, run.history.rows, calls, float(probe["alternate_from"]), start, end)
    if not per:
        return None, f"no client build under load (side by side: {points['why']})"
    on, off = points["with"], points["without"]
    return per, (f"side by side: {on['b'] * on['s']:.0f} builds in {on['windows']} windows of the cost probe's "
                 f"load at {on['x']:.0f}/s, against {off['windows']} windows of the same run without builds "
                 f"at {off['x']:.0f}/s")


def under_load(folder: Path, settings: Settings) -> tuple[dict[str, float] | None, str]:
    """(CPU seconds per build of each tier measured under load, what it rests on) or (None, why
    not): side by side where the builds alternated with pauses, else the cost probe's warm step
    against the last LOADED_STEPS valid steps of the run under load (the module docstring)."""
    loaded_dir = probes.run_dir(folder, probes.LOADED_PROBE_RUN)
    try:
        probe = json.loads((loaded_dir / PROBE_CALLS).read_text(encoding="utf-8"))
        calls = [c for c in probe.get("calls") or [] if c.get("built")]
        run = load_run(loaded_dir)
        loaded = [s for s in of_run(run, settings) if s.valid and s.throughput]
        if calls and loaded and probe.get("alternate_from") is not None:
            return _side_by_side_of(run, probe, calls, loaded)
        base = warm_step(of_run(load_run(probes.run_dir(folder, probes.COST_PROBE_RUN)), settings))
    except (OSError, ValueError, KeyError) as e:
        return None, f"no client build under load ({type(e).__name__}: {e})"
    if not calls or not base or not loaded:
        why = probe.get("error") or ("no build" if not calls else "no valid step")
        return None, f"no client build under load ({why})"
    steps = loaded[-LOADED_STEPS:]
    cpu = per_build_under_load(base[0], steps, calls)
    if not cpu:
        return None, "no client build under load (no build inside its steps)"
    builds = sum(_builds_in(calls, *_window(s)) for s in steps)
    return cpu, (f"under load: {builds:.0f} builds in {len(steps)} steps of the cost probe's load at "
                 f"{statistics.median(s.throughput for s in steps):.0f}/s, against its warm step's "
                 f"{base[0].throughput:.0f}/s without builds")


def read(folder: Path, settings: Settings) -> tuple[BuildCost | None, str | None]:
    """(the probe's figures, None) or (None, why there are none); each tier's CPU per build
    measured under load where the folder has that run (under_load), else the idle probe's."""
    path = Path(folder) / FILE
    if not path.exists():
        return None, f"no {FILE} (the runner probes the client build only when a per-request run is planned)"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return None, f"{FILE} unreadable: {e}"
    if data.get("error"):
        return None, f"the client-build probe failed: {data['error']}"
    cpu = data.get("cpu_s_per_build")
    built = int((data.get("probe") or {}).get("built") or 0)
    if not isinstance(cpu, dict) or not built:
        return None, f"{FILE} has no CPU per build"
    first = data.get("first_call") or {}
    cost = BuildCost(str(data.get("backend") or "axis"), {str(k): float(v) for k, v in cpu.items()},
                     float(data.get("build_s_median") or 0.0), built,
                     first_call=max(float(first.get("clone_s") or 0.0), 0.0),
                     crowding=crowding_points(data.get("crowding")))
    loaded, how = under_load(folder, settings)
    if loaded is None:
        return cost, None
    return replace(cost, cpu=loaded, idle_cpu=cost.cpu, under_load=how), None



def crowding_points(probe: dict | None) -> tuple[tuple[float, float], ...]:
    """build_probe.json's `crowding` as the model's points: factor 1 at the probe's few threads,
    its median ratio at its many (below 1, noise: no crowding); () without a ratio."""
    ratio = (probe or {}).get("ratio")
    if not ratio or ratio <= 1.0:
        return ()
    few, many = probe["threads"]
    return ((float(few), 1.0), (float(many), float(ratio)))


def charged(cpu: dict[str, float], backend: str, first_call: float = 0.0) -> dict[str, float]:
    """The probe's CPU per call of a client per request of each tier that a model of `backend`
    counts: the build's (the other backend was idle during the probe, its figure is noise), and
    the clone's for the first call on the fresh client beyond a reused client's."""
    out = {t: s for t, s in cpu.items() if t not in SERVICES or t == backend}
    if first_call:
        out["clone"] = out.get("clone", 0.0) + first_call
    return out


def rests_on_probe(fitted_to) -> bool:
    """A configuration's `fitted_to` (forecast.py) names this probe's file."""
    return FILE in str(fitted_to)


def usable(cost: BuildCost | None, d: Demands) -> bool:
    """A probe of the calls the baseline made (a probe of the other backend says nothing of them)."""
    return cost is not None and cost.backend == d.backend


def request_fit(fitted: Fitted, cost: BuildCost, d: Demands) -> Fitted:
    """The baseline's fit with every CPU outside the lock plus the build's, per pool,
    and the build's off-CPU time added to the latency (a per-request model has no lock); the
    clone's part crowded by the probe's crowding (model.py, "Crowding")."""
    first = next(iter(d.pools))
    outside = {p: fitted.outside.get(p, 0.0) + fitted.inside.get(p, 0.0) for p in d.pools}
    build = charged(cost.cpu, d.backend, cost.first_call)
    for tier, s in build.items():
        p = d.tier_pool.get(tier, first)
        outside[p] = outside.get(p, 0.0) + s
    clone = build.get("clone", 0.0)
    crowded = {d.tier_pool.get("clone", first): clone} if cost.crowding and clone > 0 else {}
    return replace(fitted, outside=outside, inside={}, inside_fixed={},
                   residual=max(fitted.residual, 0.0) + cost.off_cpu(d.backend),
                   crowded=crowded, crowding=cost.crowding if crowded else ())
