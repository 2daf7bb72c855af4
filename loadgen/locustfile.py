"""Locust users for the testbed's request paths.

One user class per cumulative path of the segment experiment (docs/method.md, "The request path
and its segments"); the first line of each class's docstring is what the web UI shows beside it:

    Seg1StaticPage      /seg/1  ① HAProxy + the front's Tomcat serve a static page
    Seg2Jsp             /seg/2  + a JSP renders the page
    Seg3AccessBean      /seg/3  + the JSP calls the AccessBean
    Seg4SessionBean     /seg/4  + the AccessBean calls the EJB-like session bean
    Seg5ViaClonesAxis   /seg/5  + the bean's Invoker calls Axis2 via the SOAP client tier
    Seg5ViaClonesGsoap  /seg/5  the same, to gSOAP

Options (command line, or "Custom parameters" of the web UI, in this order; in brackets the
earlier names, still accepted on the command line):
    --soap-op                    contract operation of /seg/5's SOAP call [--op]
    --soap-payload-items         items in its payload array [--n]
    --closed-loop-think-time     seconds between an answer and the user's next request [--think-time]
    --open-loop-rate             requests/s per user on a fixed clock, whether or not earlier ones
                                 returned; 0 = closed loop [--arrival-rate]
    --open-loop-max-outstanding  each user's requests in flight at most; the excess is counted
                                 as dropped [--max-outstanding]
    --backend                    command line only: must agree with the Seg5 class run
    --trace-sample               with tracing on: share of requests traced through every tier
                                 (loadgen/trace_context.py, docs/tracing.md)
    --latency-log                command line only: every response time in an HdrHistogram interval
                                 log (loadgen/latency_record.py, docs/latency.md)

The web UI (`./testbed up`: --class-picker) lists the classes in this order with their
descriptions and ticks only Seg5ViaClonesAxis, so START alone runs /seg/5 through the clone
tier to Axis2 rather than every path at once (_describe_in_web_ui).

Timing of the statistics (docs/experiments.md, "Precision"): a step's throughput is the
increase of the cumulative request count between two rows of the stats history divided by the
difference of their Timestamps, which Locust truncates to whole seconds. Two small changes
make that difference exact:
  - history rows are written at the middle of every wall-clock second (Locust writes one
    every 1 s + the time the write takes, so the fraction drifts and, when it wraps, one step
    gains a second it did not have: ~1/window too low);
  - each worker reports its counts to the master at .4 and .9 of every second (Locust: every
    3 s from whenever it started), so the counts in a row are always 0.1 s old instead of
    0-3 s: the lag cancels in a difference.
Both hook Locust internals; if a Locust version lacks them, Locust's own timing is kept and a
warning is logged.

Nothing lost at the end (the runner's accounting: Locust's successes = the front's own count):
when a headless run ends, Locust's master tells its workers to quit and waits a fixed 0.5 s for
their last reports; a worker sends its last report only once its users' requests in flight have
returned (--stop-timeout), so on a loaded host the answers of the last half second were counted
by the front but not by Locust (up to 64 in 27 of 121 runs of this machine's result folders).
Each worker marks a report sent after its users stopped, and the master waits for every
worker's marked report (at most --stop-timeout + FINAL_REPORT_GRACE_S) before it ends
(_final_reports_before_quit). And Locust rewrites its totals (PREFIX_stats.csv, _failures,
_exceptions) about once a second but not when it ends, so the answers of its last second were in
its printed summary but not in the CSV: they are written once more as it quits (_final_totals).
"""
from __future__ import annotations

import logging
import time

import gevent
import gevent.pool
import locust.runners
import locust.stats
from locust import FastHttpUser, events, task

import latency_record     # --latency-log: every response time in HdrHistogram's interval log (docs/latency.md)
import trace_context      # --trace-sample: W3C traceparent and Locust's client spans (docs/tracing.md)
import ui_guard  # noqa: F401  (its init listener: what a post to the web UI may set, cross-origin posts refused)

HISTORY_AT = 0.5                 # fraction of each second when a history row is written
REPORT_AT = (0.4, 0.9)           # fractions of each second when a worker reports


def _sleep_until(fractions: tuple[float, ...]) -> None:
    """Sleep to the next wall-clock instant whose fraction of a second is in `fractions`."""
    frac = time.time() % 1.0
    gevent.sleep(min((f - frac) % 1.0 or 1.0 for f in fractions))


def _precise_stats_timing() -> None:
    writer = getattr(locust.stats, "StatsCSVFileWriter", None)
    worker = getattr(locust.runners, "WorkerRunner", None)
    if not (writer and hasattr(writer, "_stats_history_data_rows") and hasattr(locust.stats, "CSV_STATS_INTERVAL_SEC")
            and worker and hasattr(worker, "_send_stats") and hasattr(worker, "stats_reporter")):
        logging.warning("loadgen: this Locust has no hooks for precise stats timing; using its own")
        return
    plain_rows = writer._stats_history_data_rows

    def history_rows_mid_second(self, csv_writer, now):
        _sleep_until((HISTORY_AT,))
        plain_rows(self, csv_writer, time.time())

    def report_on_the_clock(self):
        while True:
            try:
                self._send_stats()
            except locust.runners.RPCError as e:
                logging.error(f"Temporary connection lost to master server: {e}, will retry later.")
            _sleep_until(REPORT_AT)

    locust.stats.CSV_STATS_INTERVAL_SEC = 0.5       # the loop sleeps this, then waits for mid-second
    writer._stats_history_data_rows = history_rows_mid_second
    worker.stats_reporter = report_on_the_clock


_precise_stats_timing()

FINAL_REPORT_GRACE_S = 5.0       # beyond --stop-timeout, for a worker's last report to arrive
STOPPED_KEY = "testbed_users_stopped"     # in a worker's report: sent after its users stopped
_workers_stopped: set[str] = set()       # master: the workers whose latest report has STOPPED_KEY


def _final_reports_before_quit() -> None:
    master, message = getattr(locust.runners, "MasterRunner", None), getattr(locust.runners, "Message", None)
    if not (master and message and hasattr(master, "quit") and all(hasattr(locust.runners, k) for k in ("STATE_STOPPED", "STATE_MISSING"))):
        logging.warning("loadgen: this Locust has no hooks to wait for the workers' last reports")
        return

    def quit_after_final_reports(self):
        # Locust's MasterRunner.quit, its fixed 0.5 s sleep replaced by waiting for the reports
        self.stop(send_stop_to_client=False)
        workers = [c.id for c in self.clients.all if c.state != locust.runners.STATE_MISSING]
        for cid in workers:
            self.server.send_to_client(message("quit", None, cid))
        limit = (self.environment.stop_timeout or 0) + FINAL_REPORT_GRACE_S
        deadline = time.monotonic() + limit
        while not _workers_stopped.issuperset(workers) and time.monotonic() < deadline:
            gevent.sleep(0.05)
        if missing := set(workers) - _workers_stopped:
            logging.warning(f"loadgen: no last report from {len(missing)} of {len(workers)} worker(s) "
                            f"within {limit:g} s: their last requests are not counted")
        self.greenlet.kill(block=True)

    master.quit = quit_after_final_reports


_final_reports_before_quit()


_csv_writers: list = []            # this process's StatsCSVFileWriter (--csv)


def _final_totals() -> None:
    writer = getattr(locust.stats, "StatsCSVFileWriter", None)
    parts = ("requests", "failures", "exceptions")
    if not (writer and all(hasattr(writer, f"_{p}_data_rows") for p in parts)):
        logging.warning("loadgen: this Locust has no hooks to write its totals as it quits")
        return
    plain_init = writer.__init__

    def init_and_remember(self, *args, **kwargs):
        plain_init(self, *args, **kwargs)
        _csv_writers.append(self)

    writer.__init__ = init_and_remember

    @events.quit.add_listener
    def _write_totals_once_more(**_kwargs):
        for w in _csv_writers:
            for p in parts:
                try:
                    fh, out = getattr(w, f"{p}_csv_filehandle"), getattr(w, f"{p}_csv_writer")
                    columns = w.requests_csv_columns if p == "requests" else getattr(w, f"{p}_columns")
                    if fh.closed:
                        continue
                    fh.seek(0)
                    out.writerow(columns)
                    getattr(w, f"_{p}_data_rows")(out)
                    fh.truncate()
                    fh.flush()
                except (AttributeError, OSError, ValueError) as e:   # Locust's last rewrite stands
                    logging.warning(f"loadgen: could not write the {p} totals once more: {e}")


_final_totals()


LAST_MESSAGES_LINGER_MS = 5000    # a worker's last report and quit message: how long they may take to leave


def _flush_to_master(runner) -> None:
    """A worker queues its last report and its quit message on ZeroMQ, then Locust exits at once;
    the context is never terminated, so the process can end before its I/O thread has sent them
    (a CI rehearsal, the host at 199 %: one worker's never arrived, the master waited out its
    grace and the run counted 28 requests fewer than the front served). Close the socket with a
    linger and terminate its context: the messages leave first, or LAST_MESSAGES_LINGER_MS passes."""
    sock = getattr(getattr(runner, "client", None), "socket", None)
    if sock is None or sock.closed:
        return
    try:
        sock.context.destroy(linger=LAST_MESSAGES_LINGER_MS)
    except Exception as e:            # the process exits anyway: say why the messages may be lost
        logging.warning(f"loadgen: could not wait for the last messages to the master: {e}")


@events.init.add_listener
def _mark_final_reports(environment, **_kwargs):
    runner = environment.runner
    if isinstance(runner, locust.runners.WorkerRunner):
        @environment.events.report_to_master.add_listener
        def _stopped(client_id, data, **_kw):
            data[STOPPED_KEY] = runner.state == locust.runners.STATE_STOPPED

        @environment.events.quit.add_listener
        def _deliver_the_last_messages(**_kw):
            _flush_to_master(runner)
    elif isinstance(runner, locust.runners.MasterRunner):
        @environment.events.worker_report.add_listener
        def _report(client_id, data, **_kw):
            (_workers_stopped.add if data.get(STOPPED_KEY) else _workers_stopped.discard)(client_id)

UI_DEFAULT_USER = "Seg5ViaClonesAxis"     # the one class ticked in the web UI


def description(user_class) -> str:
    """The first line of a user class's docstring: what the web UI shows beside its name."""
    doc = (user_class.__doc__ or "").strip()
    return doc.splitlines()[0].strip() if doc else ""


@events.init.add_listener
def _describe_in_web_ui(environment, web_ui=None, **_kwargs):
    """Locust's class picker lists the classes by name, alphabetically, each with its own `host`
    (these classes have none: -H applies to all), and ticks every one, so START would mix every
    path; it sorts the custom parameters alphabetically too. Locust has no setting for either, so
    this adjusts what the page is built from (WebUI.template_args, recomputed at every page load):
    the classes in this file's order, each described where its host would show, ui_hidden ones
    left out, and only UI_DEFAULT_USER ticked (the picker ticks what `available_user_classes`
    lists, and its tick-all box then ticks that one); the page's JSON keeps declaration order,
    so the custom parameters read as declared (options of locustfile.py, then of shapes.py). Hooks Locust internals: if they are missing, the
    page stays Locust's own and a warning is logged."""
    if web_ui is None:                       # workers, --headless
        return
    plain = getattr(web_ui, "update_template_args", None)
    jinja = getattr(getattr(web_ui, "app", None), "jinja_env", None)
    if (plain is None or not isinstance(getattr(web_ui, "template_args", None), dict)
            or not isinstance(getattr(jinja, "policies", None), dict)
            or not hasattr(environment, "available_user_classes")):
        logging.warning("loadgen: this Locust's web UI has no hooks for class descriptions; using its own")
        return

    def described():
        plain()
        args = web_ui.template_args
        users = args.get("users")
        if not users:                        # no class picker
            return
        shown = {name: cls for name, cls in environment.available_user_classes.items()
                 if name in users and not getattr(cls, "ui_hidden", False)}
        args["users"] = {name: {**users[name], "host": description(cls)} for name, cls in shown.items()}
        args["available_user_classes"] = [UI_DEFAULT_USER] if UI_DEFAULT_USER in shown else list(shown)
        if args.get("available_user_tasks"):
            args["available_user_tasks"] = {n: t for n, t in args["available_user_tasks"].items() if n in shown}

    web_ui.update_template_args = described
    jinja.policies["json.dumps_kwargs"] = {"sort_keys": False}    # the page's `tojson` (Jinja sorts)


OPERATIONS = ["ping", "sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer",
              "echoInts", "work"]


@events.init_command_line_parser.add_listener
def _options(parser):
    # The web UI shows these by their dest, in the order declared here (_describe_in_web_ui): keep
    # a dest's parts free of digits after letters ("seg5_op"), which the UI's form does not send
    # back under the same name.
    parser.add_argument("--soap-op", "--op", dest="soap_op", choices=OPERATIONS, default="ping",
                        help="/seg/5: the contract operation its SOAP call makes")
    parser.add_argument("--soap-payload-items", "--n", dest="soap_payload_items", type=int, default=0,
                        help="/seg/5: items in that operation's payload array; ping and work carry none")
    parser.add_argument("--closed-loop-think-time", "--think-time", dest="closed_loop_think_time",
                        type=float, default=0.0,
                        help="seconds a user waits after an answer before its next request; 0 = none")
    parser.add_argument("--open-loop-rate", "--arrival-rate", dest="open_loop_rate", type=float, default=0.0,
                        help="requests/s each user sends on a fixed clock, answered or not; "
                             "0 = closed loop")
    parser.add_argument("--open-loop-max-outstanding", "--max-outstanding", dest="open_loop_max_outstanding",
                        type=int, default=100,
                        help="most requests in flight per user; the excess is dropped, counted as failures")
    parser.add_argument("--backend", choices=["axis", "gsoap", "own"], default="", include_in_web_ui=False,
                        help="the backend of the Seg5 class run (a check: the class decides; the runner "
                             "passes both)")
    trace_context.add_options(parser)
    latency_record.add_options(parser)


class PathUser(FastHttpUser):
    """A user that requests one path of the front as fast as its think time allows."""
    abstract = True
    path = "/"
    concurrency = 128          # connection pool of one user: the open loop needs many
    insecure = False
    ui_hidden = False          # True: runs from the command line, not listed in the web UI

    def wait_time(self):
        return self.environment.parsed_options.closed_loop_think_time

    def target(self) -> tuple[str, str]:
        """(url, name in the statistics)"""
        return self.path, self.path

    def request(self) -> None:
        url, name = self.target()
        trace_context.get(self, url, name)

    @task
    def hit(self):
        rate = self.environment.parsed_options.open_loop_rate
        if rate <= 0:
            self.request()
            return
        self._open_loop(rate)

    def _open_loop(self, rate: float) -> None:
        """Requests on a fixed clock: each is due at its place in the schedule, whether or not the
        earlier ones returned; its latency is also recorded from then (latency_record.scheduled:
        a stall's wait counts, as wrk2 times it), and one dropped at the outstanding limit is counted
        with its lag."""
        pool = gevent.pool.Pool(max(1, self.environment.parsed_options.open_loop_max_outstanding))
        interval, due = 1.0 / rate, time.monotonic()
        _, name = self.target()
        while True:
            if pool.full():
                self.environment.events.request.fire(
                    request_type="GET", name=name, response_time=0, response_length=0,
                    context={latency_record.DROPPED: max(0.0, time.monotonic() - due)},
                    exception=RuntimeError("dropped: --open-loop-max-outstanding requests already in flight"))
            else:
                pool.spawn(self._scheduled, due)
            due += interval
            gevent.sleep(max(0.0, due - time.monotonic()))

    def _scheduled(self, due: float) -> None:
        latency_record.scheduled(max(0.0, time.monotonic() - due))
        self.request()


class Seg1StaticPage(PathUser):
    """/seg/1 · ① HAProxy + the front's Tomcat serve a static page"""
    path = "/seg/1"


class Seg2Jsp(PathUser):
    """/seg/2 · ①–② + a JSP renders the page"""
    path = "/seg/2"


class Seg3AccessBean(PathUser):
    """/seg/3 · ①–③ + the JSP calls the AccessBean (a facade)"""
    path = "/seg/3"


class Seg4SessionBean(PathUser):
    """/seg/4 · ①–④ + the AccessBean calls the EJB-like session bean"""
    path = "/seg/4"


class Seg5ViaClones(PathUser):
    """/seg/5 · ①–⑤ + the bean's Invoker calls a SOAP service through the client tier"""
    abstract = True
    path = "/seg/5"
    backend = "axis"

    def on_start(self):
        asked = self.environment.parsed_options.backend
        if asked and asked != self.backend:
            raise ValueError(f"--backend {asked} with {type(self).__name__}, which calls {self.backend}: "
                             f"run Seg5ViaClones{asked.capitalize()} instead")

    def target(self) -> tuple[str, str]:
        o = self.environment.parsed_options
        op, n = o.soap_op, o.soap_payload_items
        return f"/seg/5?backend={self.backend}&op={op}&n={n}", f"/seg/5 {self.backend} {op} n={n}"


class Seg5ViaClonesAxis(Seg5ViaClones):
    """/seg/5 · ①–⑤ + the bean calls Axis2 via the SOAP client tier

    The call: --soap-op, --soap-payload-items."""
    backend = "axis"


class Seg5ViaClonesGsoap(Seg5ViaClones):
    """/seg/5 · ①–⑤ + the bean calls gSOAP via the SOAP client tier

    The call: --soap-op, --soap-payload-items."""
    backend = "gsoap"


class Seg5ViaClonesOwn(Seg5ViaClones):
    """/seg/5 · ①–⑤ + the bean calls your own SOAP service via the client tier (./testbed up --service)

    The call: the operation and request the stack was started with, arrays of --soap-payload-items."""
    backend = "own"

    def target(self) -> tuple[str, str]:
        n = self.environment.parsed_options.soap_payload_items
        return f"/seg/5?backend=own&n={n}", f"/seg/5 own n={n}"
