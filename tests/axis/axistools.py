"""Helpers of the axis-service tests: raw HTTP to the service (http.client, no SOAP stack),
fault parsing, and starting an extra axis process with its own knobs."""
from __future__ import annotations

import http.client
import os
import subprocess
from pathlib import Path

from soapwire import Reply
from stacks import RUN_DIR
from testbed import contract, procs, tiers

AXIS_ARGV = tiers.TIERS["axis"].argv()


def post(port: int, body: bytes, headers: dict[str, str] | None = None, path: str = "/axis",
         chunk: int | None = None, timeout: float = 30) -> Reply:
    """POSTs body; with chunk=N it is sent chunked in N-byte pieces (no Content-Length).
    A server that answers before reading everything may close early: sending stops then."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        if chunk is None:
            conn.request("POST", path, body=body, headers=headers or {})
        else:
            conn.putrequest("POST", path)
            for k, v in (headers or {}).items():
                conn.putheader(k, v)
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders()
            try:
                for i in range(0, len(body), chunk):
                    part = body[i:i + chunk]
                    conn.send(b"%x\r\n%s\r\n" % (len(part), part))
                conn.send(b"0\r\n\r\n")
            except OSError:
                pass                       # refused mid-body: read the answer below
        r = conn.getresponse()
        return Reply(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


def get(port: int, path: str, headers: dict[str, str] | None = None) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return Reply(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


def soap(body: str, prolog: str = '<?xml version="1.0"?>', header: str = "") -> bytes:
    """A SOAP 1.1 envelope around body (prefix tb: is the contract namespace)."""
    head = f"<soap:Header>{header}</soap:Header>" if header else ""
    return (f'{prolog}<soap:Envelope xmlns:soap="{contract.SOAP_ENV}" xmlns:tb="{contract.NAMESPACE}">'
            f"{head}<soap:Body>{body}</soap:Body></soap:Envelope>").encode()


def ping(port: int) -> Reply:
    return post(port, contract.envelope("ping"), contract.soap_headers("ping"))


class AxisProcess:
    """One extra axis.jar on a free loopback port, with its own environment."""

    def __init__(self, label: str, env: dict[str, str]):
        log = RUN_DIR / f"{label}.log"
        self._log_start = log.stat().st_size if log.exists() else 0   # the log is appended to
        self.port = procs.free_port()
        self.proc = procs.start(label, AXIS_ARGV, RUN_DIR / f"{label}.log",
                                env=tiers.process_env(tiers.TIERS["axis"], self.port, extra=env),
                                port=self.port)
        try:
            procs.wait_healthy(self.proc, f"http://127.0.0.1:{self.port}/health",
                               tiers.TIERS["axis"].start_timeout)
        except procs.ProcError:
            procs.stop(self.proc)
            raise

    def stop(self) -> None:
        procs.stop(self.proc)

    def log_text(self) -> str:
        """What this run of the process logged."""
        with open(self.proc.log, "rb") as f:
            f.seek(self._log_start)
            return f.read().decode(errors="replace")


def run_axis_until_exit(env: dict[str, str], timeout: float = 90) -> subprocess.CompletedProcess:
    """Runs axis.jar in the foreground (for start-up failures); kills it after timeout."""
    full = dict(os.environ)
    full.update(tiers.process_env(tiers.TIERS["axis"], procs.free_port(), extra=env))
    return subprocess.run(AXIS_ARGV, env=full, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
