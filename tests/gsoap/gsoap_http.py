"""Helpers of the gSOAP service tests: raw HTTP to a service on loopback (so hostile input
reaches it byte for byte), SOAP envelopes, fault parsing, and the gSOAP command-line client."""
from __future__ import annotations

import json
import socket
import subprocess

from soapwire import Reader, Reply as Response
from testbed import contract, tiers

SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
TIMEOUT = 30.0   # seconds any single exchange may take on a busy machine


def envelope(body: str, prolog: str = '<?xml version="1.0" encoding="UTF-8"?>') -> bytes:
    return (f'{prolog}<soap:Envelope xmlns:soap="{SOAP_ENV}" xmlns:tb="{contract.NAMESPACE}">'
            f"<soap:Body>{body}</soap:Body></soap:Envelope>").encode()


PING = envelope("<tb:ping/>")


def read_response(sock: socket.socket) -> Response:
    return Reader(sock).response()


def exchange(port: int, raw: bytes, shutdown_write: bool = False) -> Response:
    """Sends raw bytes on a new connection and reads one response."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        s.sendall(raw)
        if shutdown_write:
            s.shutdown(socket.SHUT_WR)
        return read_response(s)


def post_bytes(body: bytes, path: str = "/gsoap", content_length: int | None = None,
               extra: str = "") -> bytes:
    n = len(body) if content_length is None else content_length
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
            f'SOAPAction: ""\r\nContent-Length: {n}\r\nConnection: close\r\n{extra}\r\n').encode() + body


def chunked_post(body: bytes, chunk: int = 4096, path: str = "/gsoap") -> bytes:
    out = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
           "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode()
    for i in range(0, len(body), chunk):
        part = body[i:i + chunk]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def get(port: int, target: str, host: str | None = None) -> Response:
    host = host or f"127.0.0.1:{port}"
    return exchange(port, f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())


def ping_works(port: int) -> bool:
    r = exchange(port, post_bytes(PING))
    return r.status == 200 and b"pingResponse" in r.body


def client(*args: str, timeout: float = 180) -> tuple[int, dict | None, str]:
    """Runs tb-gsoap-client; (exit status, its JSON or None, stderr)."""
    r = subprocess.run([str(tiers.GSOAP_CLIENT), *args], capture_output=True, text=True,
                       timeout=timeout)
    try:
        out = json.loads(r.stdout)
    except json.JSONDecodeError:
        out = None
    return r.returncode, out, r.stderr


def call(endpoint: str, op: str, n: int = 0, seed: int = 1, *extra: str) -> dict:
    """One checked call through the gSOAP client; fails the test with its output otherwise."""
    rc, out, err = client("--endpoint", endpoint, "--op", op, "--n", str(n), "--seed", str(seed),
                          "--json", *extra)
    assert out is not None, f"tb-gsoap-client printed no JSON (exit {rc}): {err}"
    out["exit"] = rc
    return out
