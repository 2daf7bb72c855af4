"""Locust users for the testbed's request paths.

One user class per cumulative path of the segment experiment (EXPERIMENTS.md §1):

    Seg1User  /seg/1   HTTP entry: HAProxy + the front's web server, a static page
    Seg2User  /seg/2   + a JSP renders
    Seg3User  /seg/3   + the JSP calls the AccessBean
    Seg4User  /seg/4   + the AccessBean calls the EJB-like session bean
    Seg5User  /seg/5   + the bean's Invoker calls the SOAP service through the client tier
    Seg5AxisUser, Seg5GsoapUser   /seg/5 pinned to one backend

Options (command line, or the "Custom parameters" of the web UI):
    --backend      axis | gsoap, the service Seg5User reaches
    --op, --n      contract operation and payload size of /seg/5
    --think-time   seconds between a user's requests (0 = closed loop at full speed)
    --arrival-rate requests/s per user, open loop: requests leave on a fixed clock whether
                   or not earlier ones returned (0 = closed loop); --max-outstanding bounds
                   each user's requests in flight, the excess is counted as dropped

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
"""
from __future__ import annotations

import logging
import time

import gevent
import gevent.pool
import locust.runners
import locust.stats
from locust import FastHttpUser, events, task

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

OPERATIONS = ["ping", "sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer",
              "echoInts", "work"]


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--backend", choices=["axis", "gsoap"], default="axis",
                        help="SOAP service reached by /seg/5 (Seg5User)")
    parser.add_argument("--op", choices=OPERATIONS, default="ping", help="contract operation of /seg/5")
    parser.add_argument("--n", type=int, default=0, help="payload items of /seg/5")
    parser.add_argument("--think-time", type=float, default=0.0,
                        help="seconds a user waits between requests (0 = none)")
    parser.add_argument("--arrival-rate", type=float, default=0.0,
                        help="open loop: requests/s each user sends on a fixed clock (0 = closed loop)")
    parser.add_argument("--max-outstanding", type=int, default=100,
                        help="open loop: most requests in flight per user; the excess is dropped")


class PathUser(FastHttpUser):
    """A user that requests one path of the front as fast as its think time allows."""
    abstract = True
    path = "/"
    concurrency = 128          # connection pool of one user: the open loop needs many
    insecure = False

    def wait_time(self):
        return self.environment.parsed_options.think_time

    def target(self) -> tuple[str, str]:
        """(url, name in the statistics)"""
        return self.path, self.path

    def request(self) -> None:
        url, name = self.target()
        self.client.get(url, name=name)

    @task
    def hit(self):
        rate = self.environment.parsed_options.arrival_rate
        if rate <= 0:
            self.request()
            return
        self._open_loop(rate)

    def _open_loop(self, rate: float) -> None:
        pool = gevent.pool.Pool(max(1, self.environment.parsed_options.max_outstanding))
        interval, due = 1.0 / rate, time.monotonic()
        _, name = self.target()
        while True:
            if pool.full():
                self.environment.events.request.fire(
                    request_type="GET", name=name, response_time=0, response_length=0, context={},
                    exception=RuntimeError("dropped: --max-outstanding requests already in flight"))
            else:
                pool.spawn(self.request)
            due += interval
            gevent.sleep(max(0.0, due - time.monotonic()))


class Seg1User(PathUser):
    path = "/seg/1"


class Seg2User(PathUser):
    path = "/seg/2"


class Seg3User(PathUser):
    path = "/seg/3"


class Seg4User(PathUser):
    path = "/seg/4"


class Seg5User(PathUser):
    path = "/seg/5"
    backend: str | None = None       # None: the --backend option

    def target(self) -> tuple[str, str]:
        o = self.environment.parsed_options
        backend = self.backend or o.backend
        return f"/seg/5?backend={backend}&op={o.op}&n={o.n}", f"/seg/5 {backend} {o.op} n={o.n}"


class Seg5AxisUser(Seg5User):
    backend = "axis"


class Seg5GsoapUser(Seg5User):
    backend = "gsoap"
