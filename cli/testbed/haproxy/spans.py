"""HAProxy's spans, derived from its log lines (docs/tracing.md): the span relay.

HAProxy 2.6 (Debian 12) is built with OpenTracing, but its filter needs a C++ tracer plugin and
Debian ships only Datadog's, which speaks neither W3C traceparent nor Zipkin. So HAProxy itself
does what a tracer's propagation does -- it gives each sampled request a span id of its own in
the traceparent it forwards (testbed/observe/tracing.py, FRONTEND_LINES) -- and logs one line per
sampled request with that id, its parent's and its timings; this relay, which HAProxy's master
runs as a `program`, turns each line into a Zipkin span:

    name       "<frontend> → <backend>" (e.g. "web → front"), kind SERVER, service "haproxy"
    timestamp  the request's first byte: accept date (%Ts.%ms) + handshake (%Th) + idle (%Ti)
    duration   %Ta (request received to response sent); HAProxy's resolution is 1 ms
    annotations "request headers read" (+%TR), "dequeued" (+%Tw), "connected" (+%Tc),
                "response headers" (+%Tr): where the time went
    tags       haproxy.derived_from = "log line (ms resolution)", the timings, status, server

Lines arrive by UDP (syslog without a header: `format raw`) on loopback. Spans leave in batches
(every second, or every BATCH lines) to Zipkin's POST /api/v2/spans from a thread of their own;
at most QUEUE_MAX wait (more are dropped and counted: the relay never slows HAProxy, which
sends and forgets). A summary goes to stderr every minute something happened.

    python -m testbed.haproxy.spans --listen 127.0.0.1:PORT --zipkin http://127.0.0.1:9411
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
import time
from collections import deque

from testbed.observe.tracing import post_spans

FIELDS = ("tag", "trace", "parent", "span", "accept", "th", "ti", "tr_hdr", "tw", "tc", "tr", "ta", "status",
          "frontend", "backend", "server", "method", "uri")
TIMINGS = ("th", "ti", "tr_hdr", "tw", "tc", "tr", "ta")
BATCH, QUEUE_MAX, FLUSH_S, POST_TIMEOUT_S = 200, 20_000, 1.0, 5.0
SUCCESSOR_S, HANDOVER_MAX_S = 1.0, 10.0     # a reload's next relay: started within, bound within


def _hex(value: str, length: int) -> bool:
    return len(value) == length and all(c in "0123456789abcdef" for c in value)


def parse(line: str) -> dict | None:
    """One log line (tracing.LOG_FORMAT) -> its fields, or None when it is not one of ours."""
    head, _, uri = line.strip().partition(' "')
    parts = head.split()
    if len(parts) != len(FIELDS) - 1 or parts[0] != "tp":
        return None
    rec = dict(zip(FIELDS, parts))
    rec["uri"] = uri[:-1] if uri.endswith('"') else uri
    if not (_hex(rec["trace"], 32) and _hex(rec["parent"], 16) and _hex(rec["span"], 16)):
        return None
    try:
        rec["accept"] = float(rec["accept"])
        for k in TIMINGS:
            rec[k] = int(rec[k])                   # -1: that phase did not happen (e.g. no connect)
    except ValueError:
        return None
    return rec


def span(rec: dict) -> dict:
    """The Zipkin v2 span of one parsed line."""
    start_ms = rec["accept"] * 1000 + max(rec["th"], 0) + max(rec["ti"], 0)
    ts = int(start_ms * 1000)
    out = {"traceId": rec["trace"], "parentId": rec["parent"], "id": rec["span"], "kind": "SERVER",
           "name": f"{rec['frontend']} → {rec['backend']}", "timestamp": ts,
           "duration": max(1, rec["ta"] * 1000) if rec["ta"] >= 0 else 1,
           "localEndpoint": {"serviceName": "haproxy"}, "remoteEndpoint": {"serviceName": rec["backend"]},
           "tags": {"haproxy.derived_from": "log line (ms resolution)", "http.method": rec["method"],
                    "http.path": rec["uri"].split("?", 1)[0], "http.status_code": rec["status"],
                    "haproxy.server": rec["server"],
                    **{f"haproxy.T{k}": str(rec[k]) for k in ("tr_hdr", "tw", "tc", "tr", "ta")}}}
    marks, at = [], start_ms
    for key, what in (("tr_hdr", "request headers read"), ("tw", "dequeued"), ("tc", "connected"),
                      ("tr", "response headers")):
        if rec[key] >= 0:
            at += rec[key]
            marks.append({"timestamp": int(at * 1000), "value": what})
    if marks:
        out["annotations"] = marks
    if rec["status"].isdigit() and int(rec["status"]) >= 500:
        out["tags"]["error"] = rec["status"]
    return out


class Relay:
    def __init__(self, zipkin: str, say=lambda text: print(text, file=sys.stderr, flush=True)):
        self.endpoint = zipkin.rstrip("/") + "/api/v2/spans"
        self.queue: deque[dict] = deque()
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.counts = {"lines": 0, "ignored": 0, "sent": 0, "dropped": 0, "post_errors": 0}
        self.say = say

    def add(self, line: str) -> None:
        rec = parse(line)
        self.counts["lines"] += 1
        if rec is None:
            self.counts["ignored"] += 1
            return
        with self.lock:
            if len(self.queue) >= QUEUE_MAX:
                self.counts["dropped"] += 1
                return
            self.queue.append(span(rec))
            if len(self.queue) >= BATCH:
                self.wake.set()

    def flush(self) -> None:
        with self.lock:
            batch = [self.queue.popleft() for _ in range(min(len(self.queue), 5 * BATCH))]
        if not batch:
            return
        try:
            post_spans(self.endpoint, batch, POST_TIMEOUT_S)
            self.counts["sent"] += len(batch)
        except OSError as e:
            self.counts["post_errors"] += 1
            self.counts["dropped"] += len(batch)
            if self.counts["post_errors"] in (1, 10, 100) or self.counts["post_errors"] % 1000 == 0:
                self.say(f"haproxy-spans: {self.endpoint}: {e} ({len(batch)} spans dropped)")

    def sender(self, stop: threading.Event) -> None:
        last_report, reported = time.monotonic(), dict(self.counts)
        while not stop.is_set():
            self.wake.wait(FLUSH_S)
            self.wake.clear()
            self.flush()
            if time.monotonic() - last_report >= 60 and self.counts != reported:
                self.say("haproxy-spans: " + ", ".join(f"{k} {v}" for k, v in self.counts.items()))
                last_report, reported = time.monotonic(), dict(self.counts)
        self.flush()


def udp_sockets_on(port: int) -> int | None:
    """How many UDP sockets of this network namespace are bound to the port (Linux's
    /proc/net/udp), None where that cannot be read."""
    try:
        with open("/proc/net/udp") as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        return None
    return sum(int(row.split()[1].rsplit(":", 1)[1], 16) == port for row in rows)


def successor_started() -> bool:
    """Whether HAProxy's master runs another relay beside this one: a reload starts one right after
    it signals this one (SIGUSR1), a stop does not."""
    me, parent = os.getpid(), os.getppid()
    try:
        with open(f"/proc/{me}/cmdline", "rb") as f:
            mine = f.read()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if int(pid) == me:
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) != parent:
                        continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read() == mine:
                        return True
            except (OSError, ValueError, IndexError):
                continue
    except OSError:
        pass
    return False


class Handover:
    """A reload's SIGUSR1: the master has signalled this relay and is starting the next. HAProxy's
    workers log on meanwhile, so this one receives until the next has bound the port beside it
    (SO_REUSEPORT) -- then it leaves -- or, when no next relay appears within SUCCESSOR_S (a stop),
    or it does not bind within HANDOVER_MAX_S, it leaves too."""

    def __init__(self, port: int):
        self.port, self.since, self.looked = port, None, 0.0

    def signalled(self) -> None:
        self.since = time.monotonic()

    def done(self) -> bool:
        now = time.monotonic()
        if self.since is None or now - self.looked < 0.1:     # a look at /proc at most every 0.1 s
            return False
        self.looked = now
        waited, bound = now - self.since, udp_sockets_on(self.port)
        if bound is None or bound >= 2 or waited >= HANDOVER_MAX_S:
            return True
        return waited >= SUCCESSOR_S and not successor_started()


def serve(listen: str, zipkin: str, stop: threading.Event | None = None,
          handover: Handover | None = None) -> Relay:
    """Receive HAProxy's lines until `stop` is set or `handover` is done, then send what is queued."""
    host, _, port = listen.rpartition(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    # an HAProxy reload starts the next relay while this one hands over: both hold the port a moment
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host or "127.0.0.1", int(port)))
    sock.settimeout(0.2)
    relay, stop = Relay(zipkin), stop or threading.Event()
    sender = threading.Thread(target=relay.sender, args=(stop,), name="sender", daemon=True)
    sender.start()
    relay.say(f"haproxy-spans: listening on udp {listen}, spans to {relay.endpoint}")
    while not stop.is_set() and not (handover and handover.done()):
        try:
            relay.add(sock.recv(8192).decode("utf-8", "replace"))
        except socket.timeout:
            continue
    sock.setblocking(False)
    while True:                                   # what arrived before leaving is sent too
        try:
            relay.add(sock.recv(8192).decode("utf-8", "replace"))
        except (BlockingIOError, InterruptedError):
            break
    sock.close()
    stop.set()
    relay.wake.set()
    sender.join(POST_TIMEOUT_S + 1)               # its last flush: the queue, not lost at exit
    return relay


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", required=True, help="UDP address HAProxy logs to, e.g. 127.0.0.1:5140")
    p.add_argument("--zipkin", required=True, help="Zipkin's base URL, e.g. http://127.0.0.1:9411")
    a = p.parse_args(argv)
    stop, handover = threading.Event(), Handover(int(a.listen.rpartition(":")[2]))
    # SIGUSR1: HAProxy's master reloads (it starts the next relay) or soft-stops; SIGTERM: it stops
    signal.signal(signal.SIGUSR1, lambda *_: handover.signalled())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        serve(a.listen, a.zipkin, stop, handover)
    except KeyboardInterrupt:
        pass
    except OSError as e:
        print(f"haproxy-spans: cannot listen on {a.listen}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
