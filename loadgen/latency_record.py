"""Exact latencies: every request's response time in an HdrHistogram, written in HdrHistogram's own
interval log format (docs/latency.md), so the analysis — and any tool that reads such logs
(HistogramLogProcessor, HdrHistogram's plotter) — computes percentiles from every request instead
of Locust's rounded ones (above 100 ms Locust keeps two significant digits).

Options (command line only):
    --latency-log PATH   the log: one line per worker report (every 0.5 s, locustfile.py's clock),
                         each the histogram of the responses that worker counted since its last one;
                         off when empty (the default)
    --latency-raw PATH   for checks only: also every response as a line "epoch_s,latency_us" in
                         PATH.<pid>, one file per process that runs users (the open loop adds
                         ",from_schedule_us")

Each process that runs users records its successful requests (failures are counted by Locust,
not timed here) in microseconds — in the open loop also from each request's intended start, its
lag, and the requests dropped at the outstanding limit (Recorder: the log's tags) — from 1 µs to one
hour at 3 significant digits. While users run, each such process also times its own event loop
(tag "loop"): every LOOP_PERIOD_S a greenlet asks to sleep that long and records how much later it
woke — the time a response that had arrived waited before its user's greenlet could run. A generator
short of CPU (a busy core, a CPU quota) shows there first; its percentiles are the step's verdict
on the load generator (analysis/generator.py). A worker sends its histograms with each report to
the master (Locust's report_to_master / worker_report events, compressed as the log holds it) and
starts a new one; the master appends each as an interval line — the worker's last report, sent
after its users stopped (locustfile.py), included. Without workers (one process), the process
writes its own intervals on the same clock. Lines carry absolute epoch times ("#[BaseTime: 0.000"):
the intervals of several workers overlap, and the sum of the lines in a time span is every
response in it. The format, its writer and reader: analysis/load/latency.py.
"""
from __future__ import annotations

import collections
import logging
import os
import statistics
import time

import gevent
import gevent.local
import locust.runners
from locust import events

from analysis.load.latency import LOWEST_US, LogWriter, new_histogram   # the log format's one home

KEY = "testbed_latency"            # in a worker's report: {"start", "end", "parts": [[tag, max_us, hdr]]}
FLUSH_S = 0.5                      # one process without workers: its own interval


def add_options(parser) -> None:
    parser.add_argument("--latency-log", dest="latency_log", default="", include_in_web_ui=False,
                        help="write every response time to this HdrHistogram interval log (exact percentiles)")
    parser.add_argument("--latency-raw", dest="latency_raw", default="", include_in_web_ui=False,
                        help="checks only: every response time also as text in PATH.<pid>")


INTENDED, LAG, DROPPED, LOOP = "intended", "lag", "dropped", "loop"    # the log's tags (below)
LOOP_PERIOD_S = 0.05               # the event loop timed this often (20 samples a second a process)
LOOP_KEY = "testbed_loop"          # in a worker's report: its loop's lateness (ms) since the last one
LOOP_KEPT = 100                    # the live figure: each process's last 100 samples (5 s)
_schedule = gevent.local.local()   # an open-loop request's greenlet: how late it started (scheduled())


def scheduled(lag_s: float) -> None:
    """Called by the open loop (locustfile.py) in a request's own greenlet before it sends: it was due
    lag_s seconds ago. Its response time is then also recorded from that intended start."""
    global _open_loop
    _open_loop = True
    _schedule.lag = lag_s


_open_loop = False                 # scheduled() was called here: look up each response's lag


class Recorder:
    """One process's responses since its last interval: per tag, a histogram in microseconds —
    "" the response time as Locust measured it (from the send); for the open loop also INTENDED
    (from the request's place in the schedule, as wrk2 times it: a stall delays the sends behind
    it, and their wait counts), LAG (how late each send was) and DROPPED (one per request dropped
    at the outstanding limit, its value its lag).

    A response costs the generator one list append (a response time in ms, as Locust gives it):
    the values are put into their histogram when the interval is taken, each distinct value once with
    its count (collections.Counter) — about 0.6 µs a response in all, a third of recording each
    value as it comes (the check: ./testbed run loadgen-efficiency, docs/latency.md)."""

    def __init__(self, raw_path: str = ""):
        self.pending: dict[str, list[float]] = {}      # tag -> values since the last take (ms)
        self.since = time.time()
        self.raw = open(f"{raw_path}.{os.getpid()}", "w", encoding="ascii") if raw_path else None
        self.out_of_range = 0
        self.sent = self.pending.setdefault("", [])     # the untagged response times: the hot path

    def _add(self, tag: str, ms: float) -> None:
        values = self.pending.get(tag)
        if values is None:
            values = self.pending[tag] = []
        values.append(ms)

    def record(self, response_time_ms: float) -> None:
        self.sent.append(response_time_ms)
        lag = getattr(_schedule, "lag", None) if _open_loop else None
        if lag is not None:
            self._add(INTENDED, response_time_ms + lag * 1e3)
            self._add(LAG, lag * 1e3)
        if self.raw is not None:
            self.raw.write(f"{time.time():.6f},{_us(response_time_ms)}"
                           + (f",{_us(response_time_ms + lag * 1e3)}" if lag is not None else "") + "\n")

    def dropped(self, lag_s: float) -> None:
        self._add(DROPPED, lag_s * 1e3)

    def loop_lag(self, late_s: float) -> None:
        """The event loop woke a sleeping greenlet late_s later than asked (LOOP)."""
        self._add(LOOP, late_s * 1e3)

    def take(self) -> tuple[float, float, list[tuple[str, int, str]]]:
        """(start, end, [(tag, max µs, the compressed histogram)]) of the interval that ends now;
        the list is empty when nothing was recorded."""
        now, pending = time.time(), self.pending
        start, self.since, self.pending = self.since, now, {}
        self.sent = self.pending.setdefault("", [])
        out = []
        for tag, values in pending.items():
            if not values:
                continue
            h = new_histogram()
            for us, n in collections.Counter([int(v * 1000.0 + 0.5) for v in values]).items():
                if not h.record_value(max(us, LOWEST_US), n):       # as _us() rounds: half up, ≥ 1 µs
                    self.out_of_range += n
            if h.get_total_count():
                out.append((tag, h.get_max_value(), h.encode().decode("ascii")))
        return start, now, out

    def close(self) -> None:
        if self.raw is not None and not self.raw.closed:
            self.raw.close()


def loop_now(environment) -> dict | None:
    """The live figure of the load generator's event loop: {"p50_ms", "max_ms", "process"} of the
    process whose median lateness over its last LOOP_KEPT samples is the worst (a master: its
    workers'; one process: its own), or None before users ran."""
    per = dict(getattr(environment, "testbed_loop_workers", None) or {})
    own = getattr(environment, "testbed_loop_recent", None)
    if own:
        per["local"] = own
    worst = None
    for name, samples in per.items():
        values = list(samples)
        if values:
            med = statistics.median(values)
            if worst is None or med > worst["p50_ms"]:
                worst = {"p50_ms": round(med, 3), "max_ms": round(max(values), 3), "process": str(name)}
    return worst


def _us(ms: float) -> int:
    """A time in ms as the histogram's µs, at least LOWEST_US."""
    return max(LOWEST_US, int(ms * 1000.0 + 0.5))


def wanted(options) -> bool:
    return bool(getattr(options, "latency_log", "") or getattr(options, "latency_raw", ""))


@events.init.add_listener
def _record(environment, **_kwargs):
    runner = environment.runner
    master = isinstance(runner, locust.runners.MasterRunner)
    worker = isinstance(runner, locust.runners.WorkerRunner)
    log_path = getattr(environment.parsed_options, "latency_log", "")
    writer = LogWriter(log_path) if log_path and not worker else None
    made: list[Recorder] = []

    def recorder() -> Recorder | None:
        # a worker learns the master's options with its first spawn message, after init: decided then
        if not made and wanted(environment.parsed_options):
            made.append(Recorder(getattr(environment.parsed_options, "latency_raw", "")))
        return made[0] if made else None

    if not master:
        @environment.events.request.add_listener
        def _timed(response_time, exception=None, context=None, **_kw):
            r = made[0] if made else recorder()
            if r is None:
                return
            if exception is None:
                r.record(response_time)
            elif context and DROPPED in context:
                r.dropped(context[DROPPED])

        recent = environment.testbed_loop_recent = collections.deque(maxlen=LOOP_KEPT)   # ms, this process

        def _time_the_loop() -> None:
            """LOOP: how late this process's event loop wakes a greenlet, while its users run."""
            while True:
                asked = time.perf_counter()
                gevent.sleep(LOOP_PERIOD_S)
                late = max(time.perf_counter() - asked - LOOP_PERIOD_S, 0.0)
                if runner.user_count > 0:
                    recent.append(late * 1e3)
                    r = made[0] if made else None
                    if r is not None:
                        r.loop_lag(late)
        gevent.spawn(_time_the_loop)

    if worker:
        @environment.events.report_to_master.add_listener
        def _send(client_id, data, **_kw):
            if made:
                start, end, parts = made[0].take()
                if parts:
                    data[KEY] = {"start": start, "end": end, "parts": parts}
            if recent:                     # the live figure (the Testbed tab): the samples since the last report
                data[LOOP_KEY] = [round(x, 3) for x in recent]
                recent.clear()

    if master:
        seen = environment.testbed_loop_workers = {}       # worker id -> deque of its last samples (ms)

        @environment.events.worker_report.add_listener
        def _loop_of(client_id, data, **_kw):
            got = data.get(LOOP_KEY)
            if isinstance(got, list):
                seen.setdefault(client_id, collections.deque(maxlen=LOOP_KEPT)).extend(
                    float(x) for x in got if isinstance(x, (int, float)))

        @environment.events.test_start.add_listener
        def _new_test(**_kw):
            seen.clear()                   # a new test: the last one's figures are not its own

    def write(start: float, end: float, parts) -> None:
        for tag, max_us, encoded in parts:
            writer.interval(float(start), float(end), int(max_us), str(encoded), str(tag))

    if master and writer is not None:
        @environment.events.worker_report.add_listener
        def _write(client_id, data, **_kw):
            part = data.get(KEY)
            if part:
                try:
                    write(part["start"], part["end"], part["parts"])
                except (KeyError, TypeError, ValueError, OSError) as e:
                    logging.warning(f"loadgen: a latency interval from {client_id} not written: {e}")

    if not master and not worker and writer is not None:
        def _flush() -> None:
            if made:
                write(*made[0].take())

        def _loop() -> None:
            while True:
                gevent.sleep(FLUSH_S)
                _flush()
        gevent.spawn(_loop)

        @environment.events.quit.add_listener
        def _last(**_kw):
            _flush()

    @environment.events.quit.add_listener
    def _close(**_kw):
        for r in made:
            if r.out_of_range:
                logging.warning(f"loadgen: {r.out_of_range} response time(s) beyond one hour not recorded")
            r.close()
        if writer is not None:
            writer.close()
