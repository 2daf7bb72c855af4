"""Traces start here (docs/tracing.md): a W3C `traceparent` with the sampled flag on a share of
Locust's requests, and Locust's own client span of each of them, sent to Zipkin.

Options (command line; --trace-sample also in the web UI's custom parameters):
    --trace-sample  share of requests traced, 0..1 (default 0.01 = 1 %; 1 = every request),
                    when tracing is on
    --zipkin-url    Zipkin's base URL (default: ZIPKIN_URL of the environment, which ./testbed up
                    --tracing and the runner set, and compose sets for the tracing profile)
Tracing is on when the URL is set and its host resolves (in compose: the zipkin service of the
profile "tracing" runs), unless TRACING=0. Off, no request carries a traceparent and nothing is
sent. An unsampled request carries none either: the tiers start no trace of their own.

Spans leave from a greenlet of each process that runs users, every second (or every BATCH
spans), to POST /api/v2/spans; at most QUEUE_MAX spans and QUEUE_MAX_BYTES wait (the excess is
dropped and counted: a slow Zipkin never slows the load), and a failed post drops its batch with
one log line. Each span is bounded in bytes as the tiers' are (the name NAME_MAX, a tag value
VALUE_MAX, with a marker where clipped): a user's URL can be as long as the server accepts.
Locust reads no incoming context: it only starts traces. Each client span carries Locust's own
response time of its request (tag locust.response_ms): the latency the statistics count, beside
the span's duration, so the traces' parts can be set against it (docs/tracing.md, "The anatomy").
"""
from __future__ import annotations

import logging
import os
import random
import socket
import time
from collections import deque
from urllib.parse import urlsplit

import gevent
from locust import events

from testbed.observe.tracing import (NAME_MAX, VALUE_MAX, clip, json_bytes,   # the relay's bounds too
                                     post_spans)       # the same sender as HAProxy's span relay

BATCH, QUEUE_MAX, FLUSH_S = 200, 10_000, 1.0
SERVICE = "locust"
QUEUE_MAX_BYTES = 8 << 20
FIXED = 360          # a span's JSON besides its name and tag values (ids, times, keys), at most
RESPONSE_TAG = "locust.response_ms"   # the client span's tag: Locust's response time of the request (ms)
TIMED = "testbed_traced"              # a traced request's context key (_timed)


def share(text: str) -> float:
    """--trace-sample: a fraction 0..1 (also '5%')."""
    raw = str(text).strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ValueError(f"--trace-sample: expected a share of requests from 0 to 1 (or 0%..100%), got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"--trace-sample: expected a share of requests from 0 to 1 (or 0%..100%), got {text!r}")
    return value


def add_options(parser):
    """Its options, where locustfile.py's own are declared (the web UI lists them in that order)."""
    parser.add_argument("--trace-sample", dest="trace_sample", type=float, default=0.01,
                        help="tracing on (./testbed up --tracing): share of requests traced through every "
                             "tier, 0..1 (1 = all); their traces are in Zipkin")
    parser.add_argument("--zipkin-url", dest="zipkin_url", default=os.environ.get("ZIPKIN_URL", ""),
                        include_in_web_ui=False,
                        help="Zipkin's base URL for Locust's client spans (default: ZIPKIN_URL); empty: no tracing")


def resolves(url: str) -> bool:
    """Is the URL's host known here (compose: is the zipkin service running)?"""
    host = urlsplit(url).hostname
    if not host:
        return False
    try:
        socket.getaddrinfo(host, None)
    except OSError:
        return False
    return True


class Tracer:
    """One per process: samples requests, keeps their client spans, sends them in batches."""

    def __init__(self, zipkin_url: str, p: float):
        self.p = p
        self.endpoint = zipkin_url.rstrip("/") + "/api/v2/spans"
        self.queue: deque[tuple[dict, int]] = deque()      # (span, its bytes at most)
        self.queued_bytes = 0
        self.counts = {"traced": 0, "sent": 0, "dropped": 0, "post_errors": 0}
        self.sender = None

    @staticmethod
    def ids() -> tuple[str, str]:
        return f"{random.getrandbits(128) or 1:032x}", f"{random.getrandbits(64) or 1:016x}"

    def record(self, trace_id: str, span_id: str, name: str, url: str, start: float, seconds: float,
               status: int, error: str | None, response_ms: float | None = None) -> None:
        self.counts["traced"] += 1
        name = clip(name, NAME_MAX)
        tags = {"http.method": "GET", "http.url": clip(url, VALUE_MAX), "http.status_code": str(status)}
        if response_ms is not None:     # Locust's own response time of this request (its statistics, latency.hlog)
            tags[RESPONSE_TAG] = f"{response_ms:.3f}"
        if error:
            tags["error"] = clip(error, VALUE_MAX)
        size = FIXED + sum(json_bytes(v) for v in (name, *tags.values()))
        if len(self.queue) >= QUEUE_MAX or self.queued_bytes + size > QUEUE_MAX_BYTES:
            self.counts["dropped"] += 1
            return
        self.queued_bytes += size
        self.queue.append(({"traceId": trace_id, "id": span_id, "kind": "CLIENT", "name": name,
                            "timestamp": int(start * 1e6), "duration": max(1, int(seconds * 1e6)),
                            "localEndpoint": {"serviceName": SERVICE}, "tags": tags}, size))
        if self.sender is None:
            self.sender = gevent.spawn(self._loop)

    def flush(self) -> None:
        taken = [self.queue.popleft() for _ in range(min(len(self.queue), 5 * BATCH))]
        if not taken:
            return
        self.queued_bytes -= sum(size for _, size in taken)
        batch = [span for span, _ in taken]
        try:
            post_spans(self.endpoint, batch, timeout=5)
            self.counts["sent"] += len(batch)
        except OSError as e:
            self.counts["post_errors"] += 1
            self.counts["dropped"] += len(batch)
            if self.counts["post_errors"] in (1, 10, 100):
                logging.warning(f"loadgen: tracing: {self.endpoint}: {e}; {len(batch)} spans dropped")

    def _loop(self) -> None:
        while True:
            due = time.monotonic() + FLUSH_S
            while time.monotonic() < due and len(self.queue) < BATCH:
                gevent.sleep(0.1)
            self.flush()


_tracer: Tracer | None = None


def configure(environment, strict: bool) -> None:
    """Tracing on or off, and the share sampled, from the options: at start-up (strict: a bad
    --trace-sample stops Locust) and at every test start (the web UI, or a worker's options as
    its master sent them: then a bad share traces nothing, with one error line)."""
    global _tracer
    o = environment.parsed_options
    if o is None:
        return
    try:
        p = share(o.trace_sample)
    except ValueError as e:
        logging.error(f"loadgen: {e}" + ("" if strict else "; this test traces nothing"))
        if strict:
            raise SystemExit(2) from None
        p = 0.0
    url = getattr(o, "zipkin_url", "") or ""
    if not url or os.environ.get("TRACING", "auto") == "0":
        _tracer = None
    elif _tracer is None or _tracer.endpoint != url.rstrip("/") + "/api/v2/spans":
        if resolves(url):
            _tracer = Tracer(url, p)
        elif os.environ.get("TRACING") == "1":
            logging.warning(f"loadgen: TRACING=1 but {url} does not resolve: no tracing")
    if _tracer is not None:
        _tracer.p = p


@events.init.add_listener
def _init(environment, **_kwargs):
    configure(environment, strict=True)


@events.test_start.add_listener
def _test_start(environment, **_kwargs):
    configure(environment, strict=False)


@events.quitting.add_listener
def _quitting(environment, **_kwargs):
    if _tracer is not None:
        _tracer.flush()
        if _tracer.counts["traced"]:
            logging.info("loadgen: tracing: " + ", ".join(f"{k} {v}" for k, v in _tracer.counts.items()))


def sampled(environment) -> bool:
    """Is this request traced? Never when tracing is off."""
    if _tracer is None:
        return False
    return _tracer.p >= 1.0 or (_tracer.p > 0.0 and random.random() < _tracer.p)


def get(user, url: str, name: str):
    """user.client.get(url, name=name), traced when sampled: a traceparent that makes every tier
    record its spans under a new trace, and Locust's client span of the whole request."""
    if not sampled(user.environment):
        return user.client.get(url, name=name)
    trace_id, span_id = Tracer.ids()
    timed: dict = {}                     # _timed puts Locust's response time of the request here
    start, t0 = time.time(), time.perf_counter()
    resp = user.client.get(url, name=name, headers={"traceparent": f"00-{trace_id}-{span_id}-01"},
                           context={TIMED: timed})
    seconds = time.perf_counter() - t0
    error = getattr(resp, "error", None)
    _tracer.record(trace_id, span_id, f"GET {name}", url, start, seconds, getattr(resp, "status_code", 0) or 0,
                   str(error) if error else None, timed.get("ms"))
    return resp


@events.request.add_listener
def _timed(response_time=None, context=None, **_kwargs):
    """A traced request's response time as Locust counts it (the client's latency: what its
    statistics and latency.hlog hold), for its client span's RESPONSE_TAG."""
    if context and TIMED in context and response_time is not None:
        context[TIMED]["ms"] = float(response_time)
