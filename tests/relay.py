"""An HTTP relay between a tier and the service it calls, for tests that check the order of
events at the service rather than wall time: it forwards every request to the real service
(the WSDL too), records when each POST arrived and when its answer went back, and can hold the
POSTs at a gate — until a number of them are held at once, or until the test opens it.

    relay = Relay("http://127.0.0.1:8080")            # the service's base URL
    clone = start_clone(..., relay.url("/axis/services/..."), ...)
    relay.close(at_once=4)     # each POST waits until 4 are held together (or open() is called)
    ...                        # 4 concurrent calls: they all reached the service before any answer
    assert relay.most_at_once == 4

Only to 127.0.0.1; a held POST is let through at the latest after `at_most_s`, so a test whose
tier never sends the others ends instead of hanging (and its assertion on the order fails)."""
from __future__ import annotations

import http.client
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# not passed on (the relay makes its own connection and length); Host is: the service's WSDL then
# names the relay in its soap:address, so the calls of a tier that follows it come through too
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "te", "trailer",
              "upgrade", "proxy-connection"}


@dataclass
class Call:
    """One POST through the relay, in time.monotonic() seconds of this process."""
    path: str
    arrived: float
    forwarded: float | None = None     # let through the gate to the service
    replied: float | None = None       # the service's answer read, before it goes back to the caller
    answered: float | None = None      # done: its answer written back, or the caller gone


class Relay:
    def __init__(self, upstream: str, at_most_s: float = 60.0, on_request=None):
        """on_request(headers): called with each request's headers before it is passed on."""
        u = urllib.parse.urlsplit(upstream)
        self.upstream = (u.hostname, u.port or 80)
        self.at_most_s = at_most_s
        self.calls: list[Call] = []
        self.most_at_once = 0               # POSTs arrived and not yet answered, at most
        self._cond = threading.Condition()
        self._at_once: int | None = None    # the gate: None open, else how many must be held together
        self._held = 0
        self._now = 0
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                self._relay(b"", None)

            def do_POST(self):
                body = self._body()
                call = relay._arrive(self.path)
                try:
                    relay._gate()
                    call.forwarded = time.monotonic()
                    self._relay(body, call)
                finally:
                    relay._leave(call)

            def _body(self) -> bytes:
                if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                    out = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass                 # trailers
                            return out
                        out += self.rfile.read(size)
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _relay(self, body: bytes, call: Call | None) -> None:
                if on_request is not None:
                    on_request(self.headers)
                conn = http.client.HTTPConnection(*relay.upstream, timeout=relay.at_most_s + 60)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                    conn.request(self.command, self.path, body=body if self.command == "POST" else None,
                                 headers=headers)
                    r = conn.getresponse()
                    data = r.read()
                    if call is not None:
                        call.replied = time.monotonic()
                    self.send_response(r.status, r.reason)
                    for k, v in r.getheaders():
                        if k.lower() not in HOP_BY_HOP:
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:
                    self.close_connection = True      # the caller gave up (its timeout): nothing to answer
                finally:
                    conn.close()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return self.base + path

    def close(self, at_once: int | float = float("inf")) -> None:
        """From now on each POST waits at the gate until `at_once` POSTs are held there together
        (then all of them pass and the gate stays open), until open(), or at most at_most_s."""
        with self._cond:
            self._at_once = at_once

    def open(self) -> None:
        """Let every held POST through, and the later ones without waiting."""
        with self._cond:
            self._at_once, self._held = None, 0
            self._cond.notify_all()

    def held(self) -> int:
        with self._cond:
            return self._held

    def pending(self) -> list[Call]:
        """The POSTs that arrived and have no answer yet."""
        with self._cond:
            return [c for c in self.calls if c.answered is None]

    def _arrive(self, path: str) -> Call:
        with self._cond:
            call = Call(path, time.monotonic())
            self.calls.append(call)
            self._now += 1
            self.most_at_once = max(self.most_at_once, self._now)
            return call

    def _gate(self) -> None:
        deadline = time.monotonic() + self.at_most_s
        with self._cond:
            if self._at_once is None:
                return
            self._held += 1
            if self._held >= self._at_once:
                self._at_once, self._held = None, 0   # the last of the group opens the gate for all
                self._cond.notify_all()
                return
            while self._at_once is not None and time.monotonic() < deadline:
                self._cond.wait(deadline - time.monotonic())
            if self._at_once is not None:             # let through at the latest: no longer held
                self._held -= 1

    def _leave(self, call: Call) -> None:
        with self._cond:
            call.answered = time.monotonic()
            self._now -= 1

    def posts_since(self, n: int) -> list[Call]:
        """The POSTs after the first n, in order of arrival."""
        with self._cond:
            return list(self.calls[n:])

    def stop(self) -> None:
        self.open()
        self.server.shutdown()
        self.server.server_close()


def in_front_of(endpoint: str, at_most_s: float = 60.0) -> tuple[Relay, str]:
    """A relay to the service of `endpoint` (a full URL), and that endpoint through the relay."""
    u = urllib.parse.urlsplit(endpoint)
    relay = Relay(f"{u.scheme}://{u.netloc}", at_most_s)
    return relay, relay.url(urllib.parse.urlunsplit(("", "", u.path, u.query, "")))
