"""Helpers of the tier trace tests: a stand-in Zipkin that keeps what the tiers post, a tap
between two tiers that records the traceparent headers of every call it passes on, and a raw
request with any number of traceparent header lines (the catalogue's cases)."""
from __future__ import annotations

import json
import threading

from relay import Relay
from soapwire import Reply, stream_exchange
from standin import serve

NAMES = ("traceparent", "Traceparent", "TRACEPARENT")     # the name in several cases: HTTP's are any case


class FakeZipkin:
    """POST /api/v2/spans: keeps every span, with the size of its JSON as posted."""

    def __init__(self):
        self.spans: list[dict] = []
        self.lock = threading.Lock()
        self.server = serve(lambda method, path: (202, b""), keep=self._keep)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def _keep(self, body: bytes) -> None:
        try:
            got = json.loads(body)
        except ValueError:
            got = []
        with self.lock:
            for span in got if isinstance(got, list) else []:
                span["_bytes"] = len(json.dumps(span, separators=(",", ":"), ensure_ascii=False).encode())
                self.spans.append(span)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def of(self, service: str | None = None, trace_id: str | None = None) -> list[dict]:
        with self.lock:
            return [s for s in self.spans if (service is None or s.get("localEndpoint", {}).get("serviceName") == service)
                    and (trace_id is None or s.get("traceId") == trace_id)]


class Tap(Relay):
    """Passes every request on to upstream (tests/relay.py) and records, in order, the
    traceparent values of each."""

    def __init__(self, upstream: str):
        self.lock = threading.Lock()
        self.traceparents: list[list[str]] = []     # of each request, in order
        super().__init__(upstream, on_request=self._seen)

    def _seen(self, headers) -> None:
        with self.lock:
            self.traceparents.append(list(headers.get_all("traceparent") or []))

    def count(self) -> int:
        with self.lock:
            return len(self.traceparents)

    def since(self, n: int) -> list[list[str]]:
        with self.lock:
            return self.traceparents[n:]


def request(port: int, method: str, target: str, traceparents: list[str], body: bytes = b"",
            headers: tuple[str, ...] = ()) -> Reply:
    """One request on a new connection, with one traceparent line per value (latin-1 bytes)."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close", *headers]
    lines += [f"{NAMES[i % len(NAMES)]}: {v}" for i, v in enumerate(traceparents)]
    if method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return stream_exchange("127.0.0.1", port, head, [body] if body else [], timeout=60)
