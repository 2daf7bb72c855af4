"""Warm by measurement: a cold configuration is primed until it is measurably in steady state,
not for a fixed number of seconds (experiment files: warm = "steady", docs/experiments.md,
"Warm by measurement").

While a run's prime phase lasts (Locust at the run's most users), WarmWatch looks once a second at
  - the throughput: windows of warm_window_seconds from the prime's start, counted from
    Locust's stats history (the Aggregated row's cumulative request count);
  - the CPU a request costs the stack in each window (cpu.csv: every sampled process but the
    load generator's), which the model is fitted to — a JVM that still compiles, or a service
    that serves few calls a second and compiles their path slowly, shows here first;
  - the JIT: every JVM the path reaches, its compilation time (the standard CompilationMXBean, as
    the Prometheus JMX exporter of each Java tier shows it: jvm_compilation_time_seconds_total);
  - the collector: its full (old-generation) collections (jvm_gc_collection_seconds_count).
The stack is steady (`judge`) once the prime has lasted warm_min_seconds and
  - neither the throughput of the last warm_windows windows nor their CPU per request shows a
    drift beyond ± warm_band: the drift is the least-squares slope across them
    (scipy.stats.linregress) times their span, relative to their median, and it is refused only
    when its whole INTERVAL (80 %, Student's t on the slope's standard error) lies outside the
    band — the data show, with 90 % confidence, a trend larger than the band. Noise alone (a few hundred requests a
    window, CPU read once a second) widens the interval instead of holding a warm stack back;
    a JVM that still compiles shows as a drift well beyond it. Kendall's trend test
    (scipy.stats.kendalltau) is kept beside it as evidence;
  - every JVM spent at most warm_jit_share of that span compiling;
  - no JVM ran a full collection in the last window — unless full collections recur in at least
    half of the span's windows: then they are the workload's own steady state (a client per
    request fills the old generation every few seconds), not a transient, and the evidence says so.
When the rule has held at two window ends in a row (one lucky look does not end a prime), the
watch creates the run's PRIME_RELEASE file and the shape starts the first step. At the prime's
ceiling (warm_max_seconds) the run goes on "not warm", and says why; the findings that
rest on it read "not testable" (analysis/judge/regime.py, not_warm), never "does not hold".

Evidence: warm.csv (one row per look: the window throughputs as they complete, the drift, the
largest JIT share, full collections) and run.json notes["warm"] (`evidence`): the verdict, the
prime's seconds, why in one line, and the figures of the last look. A JVM whose metrics cannot be
read (no exporter: METRICS_AGENT=0) is named in the evidence and the rule goes on without it.
"""
from __future__ import annotations

import json
import math
import re
import statistics
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from analysis.load import locust_csv
from testbed import tiers
from testbed.experiment.plan import PRIME_RELEASE, LoadPlan  # noqa: F401  (the release file, named there)
from testbed.haproxy.config import DOCKER_TIER_PORT

FILE = "warm.csv"
HEADER = ("timestamp,elapsed_s,windows,last_window_rps,drift,kendall_p,last_window_cpu_ms,cpu_drift,"
          "jit_share_max,full_gc,steady\n")
CPU = "cpu.csv"
NOT_STACK = ("host", "loadgen", "kernel")        # cpu.csv tiers that are not the stack's own work
INTERVAL_S = 1.0
INTERVAL = 0.80         # two-sided: a drift beyond the band is refused at 90 % one-sided confidence
SCRAPE_S = 4.5          # the JVMs' metrics at most this often: a scrape costs each JVM CPU, which the
                        # CPU per request of a slow run (a singleton's few calls a second) would count
TIMEOUT_S = 0.8
FULL_GC = re.compile(r"old|marksweep|full|tenured|major", re.I)    # the old generation's collector
METRIC = re.compile(r'^(jvm_compilation_time_seconds_total|jvm_gc_collection_seconds_count)(\{[^}]*\})?\s+(\S+)')
FIX = ("raise warm_max_seconds, give the stack CPUs of its own (STACK_CPUS, LOADGEN_CPUS), or run on a "
       "quieter machine")


@dataclass
class Jvm:
    """One Java replica's series: (time, compilation seconds), (time, full collections)."""
    name: str
    url: str
    jit: list[tuple[float, float]] = field(default_factory=list)
    full_gc: list[tuple[float, float]] = field(default_factory=list)
    error: str = ""


def metrics_url(replica: dict, containerised: bool) -> str | None:
    """Where a Java replica's JMX exporter answers (tiers.py: its port + METRICS_PORT_OFFSET here,
    DOCKER_METRICS_PORT in a container)."""
    url = replica.get("url")
    if not url:
        return None
    u = urlsplit(url)
    if containerised or u.port == DOCKER_TIER_PORT:
        return f"http://{u.hostname}:{tiers.DOCKER_METRICS_PORT}/metrics"
    return f"http://{u.hostname}:{tiers.TIERS[replica['tier']].metrics_port(u.port)}/metrics"


def read_metrics(text: str) -> tuple[float | None, float]:
    """(compilation seconds or None, full collections) from a Prometheus text exposition."""
    jit, full = None, 0.0
    for line in text.splitlines():
        m = METRIC.match(line)
        if not m:
            continue
        if m.group(1) == "jvm_compilation_time_seconds_total":
            jit = float(m.group(3))
        elif FULL_GC.search(m.group(2) or ""):
            full += float(m.group(3))
    return jit, full


def history(path: Path) -> list[tuple[float, int]]:
    """(timestamp, cumulative requests) of the Aggregated rows of Locust's stats history, read by
    the analysis' own reader (cut lines dropped); none while the file or its header is missing."""
    try:
        rows = locust_csv.read_history(path).rows
    except (OSError, locust_csv.CsvFormatError):
        return []
    return [(r.timestamp, r.total_requests) for r in rows]


def windows(rows: list[tuple[float, int]], start: float, width: float) -> list[float]:
    """Throughput (req/s) of each complete window [start + k·width, start + (k+1)·width) that the
    history covers, from the cumulative counts at its edges (the last row at or before each)."""
    out = []
    k = 0
    while True:
        a, b = start + k * width, start + (k + 1) * width
        if not rows or rows[-1][0] < b:
            return out
        ca = _count_at(rows, a)
        cb = _count_at(rows, b)
        if ca is not None and cb is not None:
            out.append(max(cb - ca, 0) / width)
        k += 1


def cpu_windows(path: Path, start: float, width: float, count: int) -> list[float]:
    """CPU seconds the stack's processes (cpu.csv, all tiers but NOT_STACK and the web UI's
    Locust) used in each of the first `count` windows from start. A row's cpu_percent covers the
    interval since that process's previous row (about a second, longer on a busy host: counted
    as its real length, or a window would read a late sampler as a cheaper request)."""
    out = [0.0] * count
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    except OSError:
        return out
    previous: dict[tuple[str, str], float] = {}
    for line in lines:
        cells = line.split(",")
        if len(cells) < 5 or cells[1] in NOT_STACK or cells[1].startswith("ui"):
            continue
        try:
            t, pct = float(cells[0]), float(cells[4])
        except ValueError:
            continue
        key = (cells[1], cells[2])
        interval = min(max(t - previous.get(key, t - 1.0), 0.0), 5.0)
        previous[key] = t
        k = math.floor((t - start) / width)
        if 0 <= k < count:
            out[k] += pct / 100.0 * interval
    return out


def _count_at(rows: list[tuple[float, int]], t: float) -> int | None:
    before = [c for ts, c in rows if ts <= t]
    return before[-1] if before else (0 if rows and rows[0][0] > t else None)


def drift(values: list[float]) -> tuple[float, float, float, float | None]:
    """(relative change across the values by their least-squares slope, the low and high ends of
    its INTERVAL, Kendall's trend p-value); the change is inf when the median is not > 0."""
    from scipy.stats import kendalltau, linregress
    from scipy.stats import t as student
    med = statistics.median(values)
    if med <= 0:
        return math.inf, math.inf, math.inf, None
    n = len(values)
    x = list(range(n))
    scale = (n - 1) / med
    if max(values) == min(values):
        return 0.0, 0.0, 0.0, None
    fit = linregress(x, values)
    half = float(student.ppf(0.5 + INTERVAL / 2, n - 2)) * fit.stderr if n > 2 else math.inf
    tau = kendalltau(x, values)
    p = None if tau.pvalue is None or math.isnan(tau.pvalue) else float(tau.pvalue)
    return fit.slope * scale, (fit.slope - half) * scale, (fit.slope + half) * scale, p


def beyond(lo: float, hi: float, band: float) -> bool:
    """The whole interval [lo, hi] lies outside ± band: a drift the data show beyond the band."""
    return lo > band or hi < -band


def share(series: list[tuple[float, float]], now: float, span: float) -> float | None:
    """The growth of a cumulative series over the last `span` seconds per second (None: the series
    does not reach back that far)."""
    back = [(t, v) for t, v in series if t <= now - span]
    if not back or not series:
        return None
    (t0, v0), (t1, v1) = back[-1], series[-1]
    return max(v1 - v0, 0.0) / (t1 - t0) if t1 > t0 else None


def full_gc_since(series: list[tuple[float, float]], since: float, until: float | None = None) -> bool:
    """A full collection counted after `since` (the count grew between the last sample before it
    and the newest one at or before `until`, the newest of all by default)."""
    back = [v for t, v in series if t <= since]
    upto = [v for t, v in series if until is None or t <= until]
    return bool(back and upto and upto[-1] > back[-1])


def full_gc_windows(series: list[tuple[float, float]], now: float, w: float, n: int) -> int:
    """In how many of the last n windows of w seconds before `now` a full collection was counted."""
    return sum(full_gc_since(series, now - (k + 1) * w, now - k * w) for k in range(n))


def judge(plan: LoadPlan, elapsed: float, rps: list[float], jvms: list[Jvm], now: float,
          cpu_ms: list[float] | None = None) -> dict:
    """One look: {"steady", "why", "drift", "kendall_p", "cpu_drift", "jit", "full_gc"} (see the
    module rule). rps: the windows' throughput; cpu_ms: their CPU per request (ms), when known."""
    n, w = plan.warm_windows, plan.warm_window_seconds
    span = n * w
    out: dict = {"steady": False, "drift": None, "kendall_p": None, "cpu_drift": None, "jit": {}, "full_gc": [],
                 "full_gc_recurring": {}, "windows": [round(x, 2) for x in rps[-n:]],
                 "cpu_ms": [round(x, 4) for x in (cpu_ms or [])[-n:]]}
    reasons = []
    if elapsed < plan.warm_min_seconds:
        reasons.append(f"the floor: {elapsed:.0f} of {plan.warm_min_seconds:g} s")
    if len(rps) < n:
        reasons.append(f"{len(rps)} of {n} windows of {w:g} s")
    else:
        d, lo, hi, p = drift(rps[-n:])
        out["drift"], out["kendall_p"] = (None if math.isinf(d) else round(d, 4)), p
        if math.isinf(d) or beyond(lo, hi, plan.warm_band):
            reasons.append("no throughput" if math.isinf(d) else
                           f"throughput drifting {d:+.1%} over {span:g} s [{lo:+.1%}, {hi:+.1%}] "
                           f"(band ±{plan.warm_band:.0%})")
        if cpu_ms and len(cpu_ms) >= n and min(cpu_ms[-n:]) > 0:
            c, lo, hi, _ = drift(cpu_ms[-n:])
            out["cpu_drift"] = round(c, 4)
            if beyond(lo, hi, plan.warm_band):
                reasons.append(f"CPU per request drifting {c:+.1%} over {span:g} s [{lo:+.1%}, {hi:+.1%}]")
    for j in jvms:
        s = share(j.jit, now, span)
        out["jit"][j.name] = None if s is None else round(s, 4)
        if s is not None and s > plan.warm_jit_share:
            reasons.append(f"{j.name} compiling {s:.0%} of the time (≤ {plan.warm_jit_share:.0%})")
        elif s is None and not j.error and j.jit:
            reasons.append(f"{j.name}: JIT read for less than {span:g} s")
        if full_gc_since(j.full_gc, now - w):
            out["full_gc"].append(j.name)
            k = full_gc_windows(j.full_gc, now, w, n)
            if 2 * k >= n:
                out["full_gc_recurring"][j.name] = k
            else:
                reasons.append(f"{j.name} in a full collection")
    out["steady"] = not reasons
    out["why"] = "; ".join(reasons)
    return out


class WarmWatch:
    """Watches one run's prime (see the module rule); start() before Locust, stop() after it."""

    def __init__(self, plan: LoadPlan, run_dir: Path, step_log: Path, replicas: list[dict], reached: list[str],
                 containerised: bool, interval: float = INTERVAL_S):
        """step_log: the shape's step log (its prime's start and end); replicas: Stack.status()
        rows; reached: the tiers the run's path passes through."""
        self.plan, self.dir, self.step_log, self.interval = plan, Path(run_dir), Path(step_log), interval
        self.jvms = [Jvm(f"{r['tier']}-{r['replica']}", u) for r in replicas
                     if r.get("tier") in reached and tiers.TIERS[r["tier"]].java_jar
                     and (u := metrics_url(r, containerised))]
        self.last: dict | None = None
        self.steady_at: int | None = None     # the window count at which the rule first held in a row
        self.released_at: float | None = None
        self.prime: dict = {}                 # {"start", "end", "ended_by"} from the step log
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="warm-watch", daemon=True)
        self.errors: list[str] = []

    def start(self) -> "WarmWatch":
        (self.dir / FILE).write_text(HEADER)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if self._look():
                    return
            except Exception as e:            # the watch must never stop a run: the ceiling ends the prime
                if len(self.errors) < 5:
                    self.errors.append(f"{type(e).__name__}: {e}"[:200])

    def _phase(self) -> None:
        try:
            lines = self.step_log.read_text(encoding="utf-8").splitlines()
        except OSError:
            return
        for ln in lines:
            try:
                rec = json.loads(ln)
            except ValueError:
                continue
            if rec.get("phase") == "prime":
                if "start" in rec:
                    self.prime["start"] = rec["start"]
                if "end" in rec:
                    self.prime["end"], self.prime["ended_by"] = rec["end"], rec.get("ended_by", "max")

    def _scrape(self, now: float) -> None:
        for j in self.jvms:
            try:
                with urllib.request.urlopen(j.url, timeout=TIMEOUT_S) as r:
                    jit, full = read_metrics(r.read().decode("utf-8", errors="replace"))
            except (OSError, ValueError) as e:
                j.error = f"{type(e).__name__}: {e}"[:120]
                continue
            if jit is None:
                j.error = "no jvm_compilation_time_seconds_total in its metrics"
                continue
            j.error = ""
            j.jit.append((now, jit))
            j.full_gc.append((now, full))

    def _look(self) -> bool:
        """One look; True once the prime is over (released or at its ceiling)."""
        self._phase()
        now = time.time()
        if not self.jvms or now - max((j.jit[-1][0] for j in self.jvms if j.jit), default=0.0) >= SCRAPE_S:
            self._scrape(now)
        if "end" in self.prime or "start" not in self.prime:
            return "end" in self.prime
        elapsed = now - self.prime["start"]
        w = self.plan.warm_window_seconds
        rps = windows(history(self.dir / locust_csv.HISTORY_FILE), self.prime["start"], w)
        cpu = cpu_windows(self.dir / CPU, self.prime["start"], w, len(rps))
        cpu_ms = [1000.0 * c / (r * w) if r > 0 and c > 0 else 0.0 for c, r in zip(cpu, rps)]
        look = judge(self.plan, elapsed, rps, self.jvms, now, cpu_ms)
        self.last = {**look, "elapsed_s": round(elapsed, 1)}
        jit = [v for v in look["jit"].values() if v is not None]
        with open(self.dir / FILE, "a") as f:
            f.write(f"{now:.3f},{elapsed:.1f},{len(rps)},{rps[-1] if rps else ''},"
                    f"{'' if look['drift'] is None else look['drift']},"
                    f"{'' if look['kendall_p'] is None else round(look['kendall_p'], 4)},"
                    f"{round(cpu_ms[-1], 4) if cpu_ms else ''},{'' if look['cpu_drift'] is None else look['cpu_drift']},"
                    f"{max(jit) if jit else ''},{'|'.join(look['full_gc'])},{int(look['steady'])}\n")
        # the rule must hold at two window ends in a row: one lucky look does not end a prime
        if not look["steady"]:
            self.steady_at = None
        elif self.steady_at is None:
            self.steady_at = len(rps)
        elif len(rps) > self.steady_at and self.released_at is None:
            (self.dir / PRIME_RELEASE).touch()
            self.released_at = now
        return False

    def status(self) -> str:
        """A few words for the progress line while the prime lasts ("" once it is over)."""
        last = self.last
        if last is None or "end" in self.prime:
            return ""
        if self.released_at is not None:
            return "warm: the first step starts"
        bits = [f"warming, ceiling {self.plan.warm_max_seconds:g} s"]
        if last.get("drift") is not None:
            bits.append(f"throughput {last['drift']:+.0%}")
        if last.get("cpu_drift") is not None:
            bits.append(f"CPU/request {last['cpu_drift']:+.0%}")
        jit = [v for v in (last.get("jit") or {}).values() if v is not None]
        if jit:
            bits.append(f"JIT ≤ {max(jit):.0%}")
        return " ".join(bits[:1]) + (": " + ", ".join(bits[1:]) if len(bits) > 1 else "")

    def evidence(self) -> dict:
        """run.json notes["warm"] once the run is over."""
        self._phase()
        p = self.plan
        rule = {"min_seconds": p.warm_min_seconds, "max_seconds": p.warm_max_seconds,
                "window_seconds": p.warm_window_seconds, "windows": p.warm_windows, "band": p.warm_band,
                "jit_share": p.warm_jit_share}
        start, end = self.prime.get("start"), self.prime.get("end")
        seconds = None if start is None or end is None else round(end - start, 1)
        last = self.last or {}
        unread = {j.name: j.error for j in self.jvms if j.error and not j.jit}
        if start is None:
            verdict, why = "not warm", "the prime never started (Locust ended first)"
        elif self.prime.get("ended_by") == "released" and self.released_at is not None:
            verdict, why = "steady", (f"steady after {seconds:g} s: " + _figures(last, p))
        elif end is None:
            verdict, why = "not warm", "the run ended during the prime"
        else:
            verdict, why = "not warm", (f"not warm at the ceiling of {p.warm_max_seconds:g} s: "
                                        + (last.get("why") or "no look completed"))
        if unread:
            why += "; JIT not read for " + ", ".join(f"{k} ({v})" for k, v in sorted(unread.items()))
        return {"verdict": verdict, "seconds": seconds, "why": why, "rule": rule,
                "last": {k: last.get(k) for k in ("windows", "drift", "kendall_p", "cpu_ms", "cpu_drift", "jit",
                                                  "full_gc", "full_gc_recurring", "elapsed_s")},
                **({"errors": self.errors} if self.errors else {})}


def _figures(look: dict, plan: LoadPlan) -> str:
    ws = look.get("windows") or []
    jit = {k: v for k, v in (look.get("jit") or {}).items() if v is not None}
    parts = []
    if ws:
        parts.append(f"the last {len(ws)} windows of {plan.warm_window_seconds:g} s {min(ws):.0f}-{max(ws):.0f}/s, "
                     f"drift {look.get('drift') or 0:+.1%} (band ±{plan.warm_band:.0%})")
    if look.get("cpu_drift") is not None:
        parts.append(f"CPU per request drift {look['cpu_drift']:+.1%}")
    if jit:
        parts.append("JIT " + ", ".join(f"{k} {v:.1%}" for k, v in sorted(jit.items()))
                     + f" of the time (≤ {plan.warm_jit_share:.0%})")
    recurring = look.get("full_gc_recurring") or {}
    if recurring:
        n = plan.warm_windows
        parts.append("full collections recurring (the steady state's own): "
                     + ", ".join(f"{k} in {v} of {n} windows" for k, v in sorted(recurring.items())))
    else:
        parts.append("no full collection")
    return "; ".join(parts)


def unprimed(plan: LoadPlan, primed: bool) -> dict:
    """run.json notes["warm"] of a run that had no prime by measurement."""
    if primed and plan.prime_seconds > 0:
        return {"verdict": "fixed", "seconds": plan.prime_seconds,
                "why": f"a fixed prime of {plan.prime_seconds:g} s (warm = \"none\")"}
    if primed:
        return {"verdict": "none", "seconds": 0.0, "why": "cold JVMs, no prime (warm = \"none\", prime_seconds = 0)"}
    return {"verdict": "none", "seconds": 0.0,
            "why": "warm JVMs: nothing restarted or added since they served this path"}
