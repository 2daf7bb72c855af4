"""Helpers of the front's own tests: a fake client tier, a front process, page reading."""
from __future__ import annotations

import json
import os
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from stacks import RUN_DIR
from testbed import procs, tiers

FRONT = tiers.TIERS["front"]


def get(url: str, timeout: float = 10.0) -> tuple[int, dict[str, str], str]:
    """(status, headers, body) of a GET; an HTTP error status is an answer, not an exception."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def field(page: str, name: str) -> str | None:
    """The value of a page's `name: value` line, or None."""
    m = re.search(rf"^{re.escape(name)}: ([^<\n]*)", page, re.MULTILINE)
    return m.group(1).strip() if m else None


class FakeClones:
    """A stand-in for the client tier's `GET /invoke` on 127.0.0.1, answering in its format
    (client-clones' InvokeServlet).

    mode -- "ok": 200 naming this fake as the serving clone;
            "error": 500 without a tier (the client tier's own failure);
            "service-down": 502 blaming the SOAP service;
            "slow": 200 only after `delay` seconds, or when release() is called;
                    `slow_now` counts the requests it is keeping now.
    """

    HOST = "fake-clone"

    def __init__(self):
        self.mode = "ok"
        self.delay = 3.0
        self.queries: list[dict[str, str]] = []
        self.slow_now = 0
        self._released = threading.Event()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"          # keep-alive, like HAProxy

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                fake.queries.append(query)
                if url.path != "/invoke":
                    return self._send(404, {"ok": False, "error": "no such path"})
                head = {"clone": {"host": FakeClones.HOST, "pid": os.getpid(), "mode": "fake"},
                        "backend": query.get("backend"), "op": query.get("op"), "n": int(query.get("n", 0)),
                        "seed": "1"}
                if fake.mode == "error":
                    return self._send(500, {"ok": False, "error": "fake clone: internal error"})
                if fake.mode == "service-down":
                    return self._send(502, {**head, "ok": False, "tier": "soap-service",
                                            "error": "connection refused: fake service"})
                if fake.mode == "slow":
                    fake._keep()
                self._send(200, {**head, "ok": True, "count": head["n"], "checksum": 2166136261,
                                 "echo_equal": None, "work": None, "millis": 0.1})

            def _send(self, status, obj):
                body = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    pass                             # the front gave up waiting: expected in "slow"

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _keep(self) -> None:
        with self._lock:
            self.slow_now += 1
        try:
            self._released.wait(self.delay)
        finally:
            with self._lock:
                self.slow_now -= 1

    def release(self) -> None:
        """Let the requests kept in "slow" mode answer now (and later ones without delay,
        until reset())."""
        self._released.set()

    def reset(self) -> None:
        self.mode = "ok"
        self.queries.clear()
        self._released.clear()

    def close(self):
        self.release()
        self.server.shutdown()
        self.server.server_close()


class Front:
    """One running front process."""

    def __init__(self, label: str, env: dict[str, str]):
        if not FRONT.built():
            pytest.fail("services/front/target/front.jar is missing; build it: ./testbed build")
        self.port = procs.free_port()
        log = RUN_DIR / f"{label}.log"
        log.unlink(missing_ok=True)                  # procs.start appends: one run per log
        self.proc = procs.start(label, FRONT.argv(), log,
                                env=tiers.process_env(FRONT, self.port, extra=env), port=self.port)
        self.base = f"http://127.0.0.1:{self.port}"
        try:
            procs.wait_healthy(self.proc, self.base + "/health", FRONT.start_timeout)
        except procs.ProcError as e:
            procs.stop(self.proc)
            pytest.fail(str(e))

    def log_text(self) -> str:
        return Path(self.proc.log).read_text(errors="replace")

    def stop(self) -> bool:
        return procs.stop(self.proc)
