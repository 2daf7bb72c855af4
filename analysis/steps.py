"""Per-step samples of one run: throughput, errors, latency percentiles and CPU per tier over
each step's measurement window [measure_from, end], with the flags that exclude a step.

Method (also printed in the report):
- history rows in the window: the Aggregated rows of stats_history.csv whose whole second lies
  inside it: Timestamp >= measure_from and Timestamp + 1 <= end (Locust truncates Timestamp
  to the second, so a row stamped t was written during [t, t+1)).
- requests/failures: increase of the cumulative "Total Request/Failure Count" between the first
  and the last of those rows (a decrease is taken as a counter reset and counted from zero).
- throughput = requests / (last.Timestamp - first.Timestamp); it counts failed requests too.
  throughput_fit, the least-squares slope of the cumulative count over all rows of the window,
  is a cross-check that is less sensitive to the 1 s timestamp resolution and to distributed
  workers reporting every 3 s.
- confidence interval: the per-second throughputs of the window (the increase between
  consecutive rows over their Timestamp difference) are the samples; the 95 % interval is
  throughput ± t(0.975, n−1)·s/√n (throughput_ci95, the half-width; n = ci_samples, s their
  standard deviation). It states the step's own noise, not drift between steps or runs.
  ended_by: how an adaptive step ended (ci: its interval was narrow enough; max: the longest
  step length), from the load shape's step log.
- latency: exact, from every successful response of the window (latency.hlog, HdrHistogram's
  interval log: analysis/load/latency.py): p50/p90/p95/p99/p99.9, min, max, mean, each percentile
  with its 95 % interval (latency_source "hdr"); in the open loop also from each request's
  intended start (intended_*: a stall's wait counted, as wrk2 times it), the sends' lag behind the
  schedule (lag_p99_ms) and the requests dropped at the outstanding limit. A run without that log (written before it
  existed) keeps Locust's: the last row of the window, i.e. Locust's current ~10 s sliding
  window, rounded to two significant digits above 100 ms; with a window shorter than 10 s they
  include warm-up traffic (note short_window; latency_source "locust").
- CPU: mean of each process's samples with measure_from <= timestamp <= end; a tier's value is
  the sum over its replicas of those means; host is the machine total; a cluster node's value
  (cpu.csv tier "node") is its own mean, kept apart from the tiers; each locust process
  (tier loadgen) is checked against loadgen_cpu_saturation_pct of one core (of its CPU quota,
  CPUS_LOCUST, where it ran with one: run.json notes.locust_quota).
- the load generator's verdict (analysis/generator.py): its event loop's lag, the open loop's
  schedule, its CPU — whether Locust, not the stack, was the step's limit.
Flags that exclude a step from maxima: incomplete, high_errors, loadgen_saturated, loadgen_behind.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from analysis.load import cpu as cpumod
from analysis.load.folder import part_settings
from analysis.load.locust_csv import History, HistoryRow
from analysis.load.settings import HISTORY_GAP_S, LOCUST_PERCENTILE_WINDOW_S, Settings

from analysis import generator
from analysis.generator import LOADGEN_BEHIND, LOADGEN_SATURATED

INCOMPLETE, HIGH_ERRORS = "incomplete", "high_errors"
SHORT_WINDOW, COUNTER_RESET = "short_window", "counter_reset"
EXCLUDING_FLAGS = (INCOMPLETE, HIGH_ERRORS, LOADGEN_SATURATED, LOADGEN_BEHIND)


@dataclass
class StepSample:
    run_id: str
    index: int
    users: int
    start: float | None
    measure_from: float | None
    end: float | None            # as recorded; None when the run stopped inside the step
    window_s: float | None       # seconds actually covered by the history rows used
    history_rows: int = 0
    requests: int | None = None
    failures: int | None = None
    throughput: float | None = None
    throughput_fit: float | None = None
    error_rate: float | None = None
    p50_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    latency: dict | None = None           # exact (analysis/load/latency.py summary); None: Locust's only
    cpu: dict[str, float] = field(default_factory=dict)              # tier -> % of one core
    cpu_max_replica: dict[str, float] = field(default_factory=dict)  # tier -> busiest replica
    replicas: dict[str, int] = field(default_factory=dict)           # tier -> processes sampled
    loadgen: dict[str, float] = field(default_factory=dict)          # locust process -> %
    host_cpu: float | None = None
    kernel_cpu: float | None = None      # container modes: softirq, the bridge's packet work (cpu.py)
    nodes: dict[str, float] = field(default_factory=dict)            # cluster node -> % of one core
    flags: dict[str, str] = field(default_factory=dict)              # flag -> why
    throughput_ci95: float | None = None  # half-width of the 95 % interval of throughput
    ci_samples: int = 0                   # per-second samples it rests on
    ended_by: str | None = None           # adaptive steps: "ci" | "max" (the shape's step log)
    ramp_stopped: str | None = None       # the shape stopped the ramp after this step: why
    generator: dict | None = None         # did the load generator keep up (analysis/generator.py)
    samples: list[float] = field(default_factory=list)   # the per-second throughputs the interval rests on

    @property
    def interval(self) -> tuple[float, float] | None:
        """(low, high) of the 95 % interval of throughput, or None."""
        if self.throughput is None or self.throughput_ci95 is None:
            return None
        return max(self.throughput - self.throughput_ci95, 0.0), self.throughput + self.throughput_ci95

    @property
    def own_cpu(self) -> float:
        """This experiment's CPU in % of one core: the stack's tiers, Locust, and (container
        modes) the kernel's packet work on the bridge, which no container is charged for."""
        return (sum(v for t, v in self.cpu.items() if t in cpumod.STACK_TIERS + (cpumod.LOADGEN,))
                + (self.kernel_cpu or 0.0))

    @property
    def excluded(self) -> bool:
        return any(f in self.flags for f in EXCLUDING_FLAGS)

    @property
    def valid(self) -> bool:
        return not self.excluded and self.throughput is not None

    def to_json(self) -> dict:
        out = asdict(self)
        out.pop("samples")                # the interval and its sample count stand for them
        out["excluded"] = self.excluded
        return out


def _increase(values: list[int]) -> tuple[int, bool]:
    """Total increase of a cumulative counter; a drop is a reset (the counter restarted at 0)."""
    total, reset = 0, False
    for before, after in zip(values, values[1:]):
        if after >= before:
            total += after - before
        else:
            total += after
            reset = True
    return total, reset


def _slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of ys over xs; None if xs do not vary."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def _monotone(values: list[int]) -> list[int]:
    out, offset = [], 0
    for i, v in enumerate(values):
        if i and v < values[i - 1]:
            offset += values[i - 1]
        out.append(v + offset)
    return out


def _window_end(step: dict, next_step: dict | None, rows: list[HistoryRow],
                running: bool) -> tuple[float | None, str | None]:
    """The end to use and, if the step has no recorded end, why it is incomplete."""
    if step.get("end") is not None:
        return float(step["end"]), None
    if next_step is not None and next_step.get("start") is not None:
        return float(next_step["start"]), None
    last = rows[-1].timestamp + 1 if rows else None
    if running:
        return last, "step still running; measured up to the last history row so far"
    return last, "step has no end (the run stopped during it); measured up to the last history row"


def _history_sample(s: StepSample, rows: list[HistoryRow], start: float, end: float,
                    settings: Settings) -> None:
    inside = [r for r in rows if r.timestamp >= start and r.timestamp + 1 <= end]
    s.history_rows = len(inside)
    if len(inside) < 2 or inside[-1].timestamp <= inside[0].timestamp:
        s.flags[INCOMPLETE] = f"{len(inside)} history row(s) inside the window; need 2 a second apart"
        if inside:
            s.p50_ms, s.p95_ms, s.p99_ms = inside[-1].p50_ms, inside[-1].p95_ms, inside[-1].p99_ms
        return
    first, last = inside[0], inside[-1]
    s.window_s = last.timestamp - first.timestamp
    s.requests, reset = _increase([r.total_requests for r in inside])
    s.failures, reset_f = _increase([r.total_failures for r in inside])
    if reset or reset_f:
        s.flags[COUNTER_RESET] = "a cumulative count went down (stats reset); counted from zero"
    s.throughput = s.requests / s.window_s
    rates = []
    for a, b in zip(inside, inside[1:]):
        if b.timestamp > a.timestamp:
            grew = b.total_requests - a.total_requests
            rates.append((grew if grew >= 0 else b.total_requests) / (b.timestamp - a.timestamp))
    from analysis.stats import mean_ci   # numpy and scipy only here: the Locust image's Testbed tab
    ci = mean_ci(rates)                  # builds StepSamples (live.py) and has neither
    s.samples = rates
    if ci is not None:
        s.throughput_ci95, s.ci_samples = ci[1], len(rates)
    fit = _slope([r.timestamp for r in inside], _monotone([r.total_requests for r in inside]))
    s.throughput_fit = max(fit, 0.0) if fit is not None else s.throughput
    s.error_rate = s.failures / s.requests if s.requests else None
    s.p50_ms, s.p95_ms, s.p99_ms = last.p50_ms, last.p95_ms, last.p99_ms
    if s.error_rate is not None and s.error_rate > settings.max_error_rate:
        s.flags[HIGH_ERRORS] = f"error rate {s.error_rate:.2%} > max_error_rate {settings.max_error_rate:.2%}"
    missing_tail = end - (last.timestamp + 1)
    if missing_tail > HISTORY_GAP_S:
        s.flags[INCOMPLETE] = (f"history stops {missing_tail:.0f} s before the step end "
                               "(truncated stats_history.csv)")
    if end - start < LOCUST_PERCENTILE_WINDOW_S:
        s.flags[SHORT_WINDOW] = (f"measurement window {end - start:.0f} s < Locust's "
                                 f"{LOCUST_PERCENTILE_WINDOW_S:.0f} s percentile window: "
                                 "percentiles include warm-up")


def _cpu_sample(s: StepSample, samples: list[cpumod.Sample], start: float, end: float,
                settings: Settings, quota: float | None = None) -> None:
    w = cpumod.window(samples, start, end)
    for tier in {t for t, _ in w.replicas}:
        if tier == cpumod.HOST:
            s.host_cpu = w.tier_total(tier)
        elif tier == cpumod.NODE:
            s.nodes = w.tier_replicas(tier)
        elif tier == cpumod.KERNEL:
            s.kernel_cpu = w.tier_total(tier)
        else:
            s.cpu[tier] = w.tier_total(tier)
            s.cpu_max_replica[tier] = w.tier_max_replica(tier)
            s.replicas[tier] = len(w.tier_replicas(tier))
    s.loadgen = w.tier_replicas(cpumod.LOADGEN)
    limit = settings.loadgen_cpu_saturation_pct * min(1.0, quota or 1.0)     # of its quota, where it has one
    hot = {p: v for p, v in s.loadgen.items() if v >= limit}
    if hot:
        worst = max(hot, key=hot.get)
        s.flags[LOADGEN_SATURATED] = (f"locust process {worst} at {hot[worst]:.0f}% >= "
                                      + (f"{settings.loadgen_cpu_saturation_pct:.0f}% of its CPU quota ({quota:g} core)"
                                         if quota and quota < 1 else
                                         f"{settings.loadgen_cpu_saturation_pct:.0f}% of one core"))


def first_step(steps: list[StepSample]) -> list[StepSample]:
    """A cost probe's first valid step (the one its plan always had: what the service
    wait is chosen from, cli/testbed/fit/costs.py), as a list (empty: none)."""
    return [s for s in steps if s.valid and s.throughput][:1]


def warm_step(steps: list[StepSample]) -> list[StepSample]:
    """A cost probe's last valid step, its warmest (a fresh JVM's CPU per request still
    falls for a minute after its prime), as a list (empty: none)."""
    return [s for s in steps if s.valid and s.throughput][-1:]


def of_run(run, settings: Settings) -> list[StepSample]:
    """compute() of a loaded run (analysis.load.folder.Run: its meta, history, CPU samples and
    latency intervals)."""
    return compute(run.meta, run.history, run.cpu, settings, getattr(run, "latency", None))


def run_steps(result) -> dict:
    """run id -> its StepSamples, for every run of a loaded result folder (analysis.load.folder), as
    analysis.summary.analyse computes them: a classic experiment's runs with their part's settings."""
    return {r.id: of_run(r, part_settings(result, r.meta.get("kind"))
                         if result.kind == "classic" else result.settings) for r in result.runs}


def compute(run: dict, history: History | list[HistoryRow], cpu_samples: list[cpumod.Sample],
            settings: Settings, latency: list | None = None) -> list[StepSample]:
    """Per-step samples of one run from its run.json dict, history rows and CPU samples, and
    its latency intervals where it has them (analysis/load/latency.py).

    Usable live: steps without an end yet are measured up to the last history row and flagged
    incomplete."""
    rows = sorted(history.rows if isinstance(history, History) else history, key=lambda r: r.timestamp)
    steps = sorted(run.get("steps") or [], key=lambda st: st.get("index", 0))
    notes = run.get("notes") or {}
    rate = float((notes.get("load") or {}).get("arrival_rate") or 0.0)
    quota = notes.get("locust_quota")         # CPUS_LOCUST: each Locust process's cores, where it had a quota
    out = []
    for i, step in enumerate(steps):
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        s = StepSample(run_id=str(run.get("id", "")), index=int(step.get("index", i)),
                       users=int(step.get("users") or 0), start=step.get("start"),
                       measure_from=step.get("measure_from"), end=step.get("end"), window_s=None,
                       ended_by=step.get("ended_by"), ramp_stopped=step.get("ramp_stopped"))
        start = step.get("measure_from", step.get("start"))
        end, why = _window_end(step, nxt, rows, run.get("status") == "running")
        if why:
            s.flags[INCOMPLETE] = why
        if start is None or end is None or end <= start:
            s.flags[INCOMPLETE] = "no measurement window (no measure_from, or no data after it)"
            out.append(s)
            continue
        _history_sample(s, rows, float(start), end, settings)
        if why:  # keep the "no end" reason over a history-gap one
            s.flags[INCOMPLETE] = why
        _cpu_sample(s, cpu_samples, float(start), end, settings, quota)
        if latency:
            _exact_latency(s, latency, float(start), end)
        generator.judged(s, settings, rate)
        out.append(s)
    return out


def _exact_latency(s: StepSample, intervals: list, start: float, end: float) -> None:
    from analysis.load import latency as lat        # hdrh only here (the Testbed tab builds steps too)
    s.latency = lat.of_window(intervals, start, end)
    if s.latency is None:
        return
    s.p50_ms, s.p95_ms, s.p99_ms = s.latency["p50_ms"], s.latency["p95_ms"], s.latency["p99_ms"]
    s.flags.pop(SHORT_WINDOW, None)                 # every response of the window, not Locust's 10 s


STEPS_CSV_COLUMNS = (
    "run_id", "step", "users", "start", "measure_from", "end", "window_s", "history_rows",
    "requests", "failures", "throughput", "throughput_fit", "error_rate", "p50_ms", "p95_ms",
    "p99_ms", *(f"cpu_{t}" for t in cpumod.TIERS if t != cpumod.HOST),
    *(f"cpu_{t}_max_replica" for t in cpumod.TIERS if t != cpumod.HOST),
    "cpu_host", "loadgen_max_process", "excluded", "flags", "throughput_ci95", "ci_samples",
    "ended_by", "latency_source", "latency_count", "p90_ms", "p99_9_ms", "max_ms",
    "intended_p99_ms", "intended_max_ms", "lag_p99_ms", "dropped", "generator", "loop_p50_ms", "loop_p99_ms",
)


def _open_loop_columns(latency: dict | None) -> dict:
    intended, lag = (latency or {}).get("intended") or {}, (latency or {}).get("lag") or {}
    return {"intended_p99_ms": intended.get("p99_ms"), "intended_max_ms": intended.get("max_ms"),
            "lag_p99_ms": lag.get("p99_ms"), "dropped": (latency or {}).get("dropped")}


def csv_row(s: StepSample) -> dict[str, object]:
    """One steps.csv row (see STEPS_CSV_COLUMNS); empty string where there is no value."""
    def fmt(v):
        if v is None:
            return ""
        return round(v, 6) if isinstance(v, float) else v
    row = {"run_id": s.run_id, "step": s.index, "users": s.users, "start": s.start,
           "measure_from": s.measure_from, "end": s.end, "window_s": s.window_s,
           "history_rows": s.history_rows, "requests": s.requests, "failures": s.failures,
           "throughput": s.throughput, "throughput_fit": s.throughput_fit,
           "error_rate": s.error_rate, "p50_ms": s.p50_ms, "p95_ms": s.p95_ms, "p99_ms": s.p99_ms,
           "cpu_host": s.host_cpu,
           "loadgen_max_process": max(s.loadgen.values()) if s.loadgen else None,
           "excluded": int(s.excluded),
           "flags": "; ".join(f"{k}: {v}" for k, v in s.flags.items()),
           "throughput_ci95": s.throughput_ci95, "ci_samples": s.ci_samples, "ended_by": s.ended_by,
           "latency_source": "hdr" if s.latency else "locust",
           **({"latency_count": s.latency["count"], "p90_ms": s.latency["p90_ms"],
               "p99_9_ms": s.latency["p99.9_ms"], "max_ms": s.latency["max_ms"]} if s.latency else
              {"latency_count": None, "p90_ms": None, "p99_9_ms": None, "max_ms": None}),
           **_open_loop_columns(s.latency),
           "generator": None if s.generator is None else ("kept up" if s.generator["kept_up"] else "behind"),
           "loop_p50_ms": (s.generator or {}).get("loop_p50_ms"), "loop_p99_ms": (s.generator or {}).get("loop_p99_ms")}
    for t in cpumod.TIERS:
        if t != cpumod.HOST:
            row[f"cpu_{t}"] = s.cpu.get(t)
            row[f"cpu_{t}_max_replica"] = s.cpu_max_replica.get(t)
    return {k: fmt(row[k]) for k in STEPS_CSV_COLUMNS}
