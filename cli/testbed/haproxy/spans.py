"""HAProxy's spans, derived from its log lines (docs/tracing.md): the span relay.

HAProxy 2.6 (Debian 12) is built with OpenTracing, but its filter needs a C++ tracer plugin and
Debian ships only Datadog's, which speaks neither W3C traceparent nor Zipkin. So HAProxy itself
does what a tracer's propagation does -- it gives each sampled request a span id of its own in
the traceparent it forwards (testbed/observe/tracing.py, FRONTEND_LINES) -- and logs one line per
sampled request with that id, its parent's and its timings; this relay, which HAProxy's master
runs as a `program` (through testbed.haproxy.keeper, which starts it again should it die), turns
each line into a Zipkin span (spanline.py):

    name       "<frontend> → <backend>" (e.g. "web → front"), kind SERVER, service "haproxy"
    timestamp  the request's first byte: accept date (%Ts.%ms) + handshake (%Th) + idle (%Ti)
    duration   %Ta (request received to response sent); HAProxy's resolution is 1 ms
    annotations "request headers read" (+%TR), "dequeued" (+%Tw), "connected" (+%Tc),
                "response headers" (+%Tr): where the time went
    tags       haproxy.derived_from = "log line (ms resolution)", the timings, status, server

Lines arrive as datagrams (syslog without a header: `format raw`) on Unix sockets in a directory
only this user may enter, so only HAProxy's processes can send one; HAProxy deals its lines out
to the sockets in turn, as each queues only a few (net.unix.max_dgram_qlen). Each is checked; one
that is not a line of ours is counted and dropped, and nothing in a datagram can end the relay.
Spans leave in batches (every second, or every BATCH spans, at most BATCH_BYTES) to Zipkin's POST
/api/v2/spans from a thread of their own; at most QUEUE_MAX spans or QUEUE_MAX_BYTES wait (more
are dropped and counted: the relay never slows HAProxy, which sends and forgets). A batch Zipkin
refuses (HTTP 400) is split in halves and sent again, down to the span it refuses, which alone is
dropped. A summary goes to stderr every minute something happened.

    python -m testbed.haproxy.spans --socket DIR/spans.sock --sockets 4 --zipkin http://127.0.0.1:9411
"""
from __future__ import annotations

import argparse
import os
import selectors
import signal
import socket
import stat
import sys
import threading
import time
import urllib.error
from collections import deque
from pathlib import Path

from testbed.haproxy.spanline import LINE_MAX, encode, parse, span
from testbed.observe.tracing import post_json, relay_paths

BATCH, BATCH_BYTES, FLUSH_S, POST_TIMEOUT_S = 200, 512 * 1024, 1.0, 5.0
QUEUE_MAX, QUEUE_MAX_BYTES = 20_000, 16 * 1024 * 1024
BATCHES_A_FLUSH, POSTS_A_BATCH = 5, 32    # a flush sends at most this many; a refused batch's halves at most
SUCCESSOR_S, HANDOVER_MAX_S = 1.0, 10.0     # a reload's next relay: started within, bound within
LAST_FLUSH_S = 10.0                         # at exit, what is queued is sent for at most this long


class RelayError(RuntimeError):
    """The relay cannot listen as asked; the text says why."""


class Relay:
    def __init__(self, zipkin: str, say=lambda text: print(text, file=sys.stderr, flush=True)):
        self.endpoint = zipkin.rstrip("/") + "/api/v2/spans"
        self.queue: deque[bytes] = deque()
        self.queued_bytes = 0
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.counts = {"lines": 0, "ignored": 0, "sent": 0, "dropped": 0, "post_errors": 0, "refused": 0}
        self.say = say

    def add(self, data: bytes | str) -> None:
        """One datagram: a span queued, or counted as ignored (not a line of ours) or refused."""
        self.counts["lines"] += 1
        rec = parse(data)
        if rec is None:
            self.counts["ignored"] += 1
            return
        body = encode(span(rec))
        if body is None:
            self.counts["refused"] += 1
            return
        with self.lock:
            if len(self.queue) >= QUEUE_MAX or self.queued_bytes + len(body) > QUEUE_MAX_BYTES:
                self.counts["dropped"] += 1
                return
            self.queue.append(body)
            self.queued_bytes += len(body)
            if len(self.queue) >= BATCH:
                self.wake.set()

    def _take(self) -> list[bytes]:
        batch, size = [], 0
        with self.lock:
            while self.queue and len(batch) < BATCH and size + len(self.queue[0]) <= BATCH_BYTES:
                body = self.queue.popleft()
                batch.append(body)
                size += len(body)
            self.queued_bytes -= size
        return batch

    def flush(self) -> None:
        for _ in range(BATCHES_A_FLUSH):
            batch = self._take()
            if not batch:
                return
            self._send(batch, [POSTS_A_BATCH])

    def _send(self, batch: list[bytes], posts_left: list[int]) -> None:
        """POST the batch; when Zipkin refuses it (400), each half again, down to single spans --
        within posts_left posts: what is left then is dropped."""
        if posts_left[0] <= 0:
            self.counts["dropped"] += len(batch)
            return
        posts_left[0] -= 1
        try:
            post_json(self.endpoint, b"[" + b",".join(batch) + b"]", POST_TIMEOUT_S)
            self.counts["sent"] += len(batch)
        except urllib.error.HTTPError as e:
            if e.code != 400:
                self._failed(batch, e)
            elif len(batch) == 1:
                self.counts["refused"] += 1
                if self.counts["refused"] in (1, 10, 100) or self.counts["refused"] % 1000 == 0:
                    self.say(f"haproxy-spans: Zipkin refused a span (HTTP 400; {self.counts['refused']} so far)")
            else:
                half = len(batch) // 2
                self._send(batch[:half], posts_left)
                self._send(batch[half:], posts_left)
        except OSError as e:
            self._failed(batch, e)

    def _failed(self, batch: list[bytes], e: OSError) -> None:
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
        deadline = time.monotonic() + LAST_FLUSH_S
        while self.queue and time.monotonic() < deadline:        # what is queued at the end is sent too
            self.flush()


def private_dir(path: Path) -> None:
    """The socket's directory: made 0700 when missing; it must be a directory of this user's that
    nobody else may enter (a looser one of ours is tightened, anyone else's refused)."""
    folder = path.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise RelayError(f"{folder}: not a directory of this user's (uid {os.geteuid()}); the relay's socket "
                         "must be where nobody else can send to it")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)


def bind(path: Path) -> tuple[socket.socket, int]:
    """A datagram socket bound at `path`: bound beside it, then renamed onto it in one step, so
    that a relay already there (a reload's) receives every line until that moment and this one
    every line after. (socket, the inode now at path)."""
    if len(os.fsencode(path)) > 107:
        raise RelayError(f"{path}: longer than a Unix socket's path may be (107 bytes)")
    private_dir(path)
    tmp = path.parent / f".{os.getpid()}"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind(str(tmp))
        inode = os.stat(tmp).st_ino
        os.rename(tmp, path)
    except OSError:
        sock.close()
        raise
    return sock, inode


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def successor_started(anchor: int | None = None) -> bool:
    """Whether HAProxy's master runs another relay beside this one: a reload starts one right after
    it signals this one (SIGUSR1), a stop does not. anchor: the process the master started -- this
    one, or its keeper -- whose twin a reload starts."""
    me = anchor or os.getpid()
    parent = _ppid(me)
    try:
        with open(f"/proc/{me}/cmdline", "rb") as f:
            mine = f.read()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if int(pid) == me or _ppid(int(pid)) != parent:
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read() == mine:
                        return True
            except OSError:
                continue
    except OSError:
        pass
    return False


class Handover:
    """A reload's SIGUSR1: the master has signalled this relay and is starting the next. HAProxy's
    workers log on meanwhile, so this one receives until the next has renamed its sockets onto the
    paths -- then it leaves -- or, when no next relay appears within SUCCESSOR_S (a stop), or it
    does not bind within HANDOVER_MAX_S, it leaves too."""

    def __init__(self, paths: list[Path], anchor: int | None = None):
        self.paths, self.anchor = [Path(p) for p in paths], anchor
        self.since, self.looked, self.inodes = None, 0.0, None

    def signalled(self) -> None:
        self.since = time.monotonic()

    def replaced(self) -> bool:
        """Whether every path now names another relay's socket."""
        try:
            return self.inodes is not None and all(os.stat(p).st_ino != i for p, i in zip(self.paths, self.inodes))
        except OSError:
            return False

    def done(self) -> bool:
        now = time.monotonic()
        if self.since is None or now - self.looked < 0.1:     # a look at the path at most every 0.1 s
            return False
        self.looked = now
        waited = now - self.since
        if self.replaced() or waited >= HANDOVER_MAX_S:
            return True
        return waited >= SUCCESSOR_S and not successor_started(self.anchor)


def _drain(relay: Relay, sock: socket.socket, at_most: int | None = None) -> None:
    """What the socket holds (non-blocking), at most `at_most` datagrams."""
    n = 0
    while at_most is None or n < at_most:
        try:
            data = sock.recv(LINE_MAX + 2)
        except (BlockingIOError, InterruptedError):
            return
        n += 1
        try:
            relay.add(data)
        except Exception as e:        # parse() and span() refuse rather than raise; should one raise,
            relay.counts["ignored"] += 1            # the datagram is lost, never the relay
            relay.say(f"haproxy-spans: a datagram was dropped: {type(e).__name__}: {e}")


def serve(path: str | Path, zipkin: str, stop: threading.Event | None = None,
          handover: Handover | None = None, sockets: int = 1) -> Relay:
    """Receive HAProxy's lines on the `sockets` sockets of `path` (tracing.relay_paths) until
    `stop` is set or `handover` is done, then send what is queued."""
    bound = [bind(p) for p in relay_paths(path, sockets)]
    if handover is not None:
        handover.inodes = [inode for _, inode in bound]
    sel = selectors.DefaultSelector()
    for sock, _ in bound:
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ)
    relay, stop = Relay(zipkin), stop or threading.Event()
    sender = threading.Thread(target=relay.sender, args=(stop,), name="sender", daemon=True)
    sender.start()
    relay.say(f"haproxy-spans: listening on {path} ({sockets} sockets), spans to {relay.endpoint}")
    while not stop.is_set() and not (handover and handover.done()):
        for key, _ in sel.select(0.2):
            _drain(relay, key.fileobj, at_most=64)
    for sock, _ in bound:                         # what arrived before leaving is sent too
        _drain(relay, sock)
        sock.close()
    sel.close()
    stop.set()
    relay.wake.set()
    sender.join(LAST_FLUSH_S + 2 * POST_TIMEOUT_S)    # its last flushes: the queue, not lost at exit
    return relay


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--socket", required=True, help="the Unix datagram socket HAProxy logs to (with --sockets N: "
                                                   "its N siblings), in a directory only this user may enter")
    p.add_argument("--sockets", type=int, default=1, choices=range(1, 17), metavar="1..16",
                   help="how many sockets HAProxy deals its lines out to (tracing.relay_paths)")
    p.add_argument("--zipkin", required=True, help="Zipkin's base URL, e.g. http://127.0.0.1:9411")
    a = p.parse_args(argv)
    keeper = os.environ.get("TESTBED_KEEPER", "")
    anchor = int(keeper) if keeper.isdigit() and int(keeper) == os.getppid() else None
    stop, handover = threading.Event(), Handover(relay_paths(a.socket, a.sockets), anchor)
    # SIGUSR1: HAProxy's master reloads (it starts the next relay) or soft-stops; SIGTERM: it stops
    signal.signal(signal.SIGUSR1, lambda *_: handover.signalled())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    sys.setswitchinterval(0.001)     # the receiving thread waits little for the sender's: the socket's
    try:                             # queue holds few datagrams (net.unix.max_dgram_qlen)
        serve(a.socket, a.zipkin, stop, handover, a.sockets)
    except KeyboardInterrupt:
        pass
    except (OSError, RelayError) as e:
        print(f"haproxy-spans: cannot listen on {a.socket}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
