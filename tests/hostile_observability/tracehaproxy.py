"""A real HAProxy with the testbed's tracing config, for the hostile-observability tests: the
config rendered by testbed.haproxy.config with tracing on (the trace rule in every entry, the
rate table, the span relay run by its keeper), every backend's server a loopback HTTP server of
the test's that answers with the trace headers it received, and a stand-in Zipkin that records
the spans the relay posts (and can refuse some with 400, as Zipkin refuses a bad span).

    with TracedHAProxy(tmp_dir, knobs={"TRACE_MAX_RATE": "2"}) as hp:
        status, got = hp.send("web", [traceparent values])     # got: {"traceparent": [...], ...}
        hp.zipkin.spans                                          # every span received

Only 127.0.0.1; every wait is bounded."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from testbed import ROOT, procs
from testbed.config import StackConfig
from testbed.haproxy import config as haproxy
from testbed.observe import tracing
from testbed.stacks.ports import with_free_entry_ports

from polling import until

ENTRIES = {"web": "/seg/1", "clones": "/invoke", "soap": "/axis"}      # entry -> a path it routes
BACKEND_OF = {"web": "front", "clones": "clone", "soap": "axis"}


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):     # HAProxy closing an idle connection
        pass


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.server = _Quiet(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Echo(_Server):
    """Every tier: answers 200 with the trace headers it received, as JSON."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self):
                n = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(n)
                body = json.dumps({"traceparent": self.headers.get_all("traceparent") or [],
                                   "tracestate": self.headers.get_all("tracestate") or []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass
        super().__init__(Handler)


class FakeZipkin(_Server):
    """POST /api/v2/spans: records each batch's spans; a batch holding a span for which
    `refuse(span)` is true is answered 400 and recorded nowhere, as Zipkin does with a bad span."""

    def __init__(self, refuse=lambda span: False):
        self.spans: list[dict] = []
        self.posts: list[int] = []                 # status of each POST, in order
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    batch = json.loads(body)
                    bad = not isinstance(batch, list) or any(refuse(s) for s in batch)
                except ValueError:
                    batch, bad = [], True
                with fake.lock:
                    fake.posts.append(400 if bad else 202)
                    if not bad:
                        fake.spans.extend(batch)
                self.send_response(400 if bad else 202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass
        super().__init__(Handler)
        self.url = f"http://127.0.0.1:{self.port}"

    def received(self) -> list[dict]:
        with self.lock:
            return list(self.spans)


def relay_pids(socket_path: Path) -> list[int]:
    """The span relays on this socket path (not their keeper): processes running
    `-m testbed.haproxy.spans --socket <path>`."""
    import psutil
    out = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if cmd[1:3] == ["-m", "testbed.haproxy.spans"] and str(socket_path) in cmd:
            out.append(p.pid)
    return out


class TracedHAProxy:
    def __init__(self, state_dir: Path, knobs: dict[str, str] | None = None, refuse=lambda span: False):
        self.dir = state_dir
        self.knobs = dict(knobs or {})
        self.refuse = refuse
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "TracedHAProxy":
        self.echo, self.zipkin = Echo(), FakeZipkin(self.refuse)
        self.cfg = with_free_entry_ports(StackConfig(bind="127.0.0.1"), 20000, self.dir, self.knobs)
        self.socket = tracing.relay_socket(self.cfg)
        servers = {b: f"    server {b}1 127.0.0.1:{self.echo.port}" for b in haproxy.BACKENDS}
        trace = (tracing.haproxy_frontend_lines(self.socket, tracing.trace_max_rate(self.cfg.knobs)),
                 tracing.haproxy_relay_program(self.socket, self.zipkin.url, python=sys.executable,
                                               env={"PYTHONPATH": str(ROOT / "cli")}))
        path = self.dir / "haproxy.cfg"
        path.write_text(haproxy.render(self.cfg, servers, trace=trace))
        (self.dir / "haproxy.state").write_text("1\n")
        haproxy.check(path)
        self.log = open(self.dir / "haproxy.log", "ab")
        self.proc = subprocess.Popen(["haproxy", "-f", str(path)], stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        try:
            until("HAProxy's bound entry to answer", lambda: self.bound_ok() or self.proc.poll() is not None, 30)
            assert self.proc.poll() is None, f"HAProxy exited: {self.log_tail()}"
            until("the span relay to bind its sockets", lambda: self.bound() and relay_pids(self.socket), 60)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        deadline = time.monotonic() + 15
        while relay_pids(self.socket) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.echo.stop()
        self.zipkin.stop()
        self.log.close()

    def bound(self) -> bool:
        return all(p.exists() for p in tracing.relay_paths(self.socket))

    def log_tail(self) -> str:
        return procs.tail(self.dir / "haproxy.log", 30)

    def port(self, entry: str) -> int:
        return {"web": self.cfg.web_port, "clones": self.cfg.clones_port, "soap": self.cfg.soap_port,
                "bound": self.cfg.bound_port}[entry]

    def bound_ok(self) -> bool:
        return procs.http_ok(f"http://127.0.0.1:{self.cfg.bound_port}/", timeout=2)

    def send(self, entry: str, traceparents: list[str], tracestate: str | None = "vendor=kept",
             path: str | None = None) -> tuple[int, dict | None]:
        """One request with these traceparent header lines (bytes as given, latin-1), through the
        entry: (status, the headers the tier behind received -- None when HAProxy answered itself)."""
        lines = [f"GET {path or ENTRIES[entry]} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
        lines += [f"traceparent: {v}" for v in traceparents]
        if tracestate is not None:
            lines.append(f"tracestate: {tracestate}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        with socket.create_connection(("127.0.0.1", self.port(entry)), timeout=30) as s:
            s.sendall(raw)
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        try:
            return status, json.loads(body) if status == 200 else None
        except ValueError:
            return status, None
