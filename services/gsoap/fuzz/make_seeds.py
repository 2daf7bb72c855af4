"""Writes the fuzz harness's seed corpus: real requests of every contract operation.

Each seed is the raw bytes of one client connection, as the harness replays them: the
envelopes of cli/testbed/contract.py (what the testbed's clients send) for each operation
and a few sizes, with Content-Length and chunked framing, SOAPAction headers, two
pipelined requests on one connection, GETs of /health and ?wsdl, and a few legal oddities
(comments, CDATA, a Latin-1 declaration, namespace prefixes). Run at fuzz time
(run.sh); the seeds are not committed.

    python3 services/gsoap/fuzz/make_seeds.py OUT_DIR
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "cli"))
from testbed import contract  # noqa: E402  (no third-party imports: plain python3 will do)

SIZES = (0, 1, 3, 17, 100)


def post(body: bytes, op: str | None = None, chunk: int | None = None, close: bool = True) -> bytes:
    head = ["POST /gsoap HTTP/1.1", "Host: 127.0.0.1:8082", "Content-Type: text/xml; charset=utf-8"]
    if op:
        head.append(f'SOAPAction: "urn:{op}"')
    if close:
        head.append("Connection: close")
    if chunk is None:
        head.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(head) + "\r\n\r\n").encode() + body
    head.append("Transfer-Encoding: chunked")
    out = ("\r\n".join(head) + "\r\n\r\n").encode()
    for i in range(0, len(body), chunk):
        part = body[i:i + chunk]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def seeds() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for op in contract.OPERATIONS:
        sizes = (0,) if op in ("ping", "work") else SIZES
        for n in sizes:
            body = contract.envelope(op, n, seed=n + 1, cpu_us=n, wait_us=0)
            out[f"{op}-{n}"] = post(body, op)
            out[f"{op}-{n}-chunked"] = post(body, chunk=61)
    ping = contract.envelope("ping")
    ints = contract.envelope("sendInts", 3)
    env, ns = contract.SOAP_ENV, contract.NAMESPACE
    out["pipelined-ping-sendInts"] = post(ping, "ping", close=False) + post(ints, "sendInts")
    out["keepalive-three"] = post(ping, close=False) * 2 + post(ints)
    out["get-health"] = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
    out["get-wsdl"] = b"GET /gsoap?wsdl HTTP/1.1\r\nHost: 127.0.0.1:8082\r\nConnection: close\r\n\r\n"
    out["oddities"] = post((
        f'<?xml version="1.0"?><!-- c --><s:Envelope xmlns:s="{env}" xmlns:x="{ns}" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s:Header/><s:Body>'
        f'<x:echoInts><x:items xsi:type="xsd:int"> 7 </x:items><?pi x?>'
        f"<x:items><![CDATA[8]]></x:items><x:items>&#57;</x:items></x:echoInts></s:Body></s:Envelope>"
    ).encode(), "echoInts")
    out["latin1"] = post(contract.envelope("ping").replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"'))
    out["default-namespace"] = post((
        f'<Envelope xmlns="{env}"><Body><sendBytes xmlns="{ns}"><items>1</items><items>255</items>'
        f"</sendBytes></Body></Envelope>").encode())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", type=Path, help="folder to write the seeds into (created)")
    args = ap.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in seeds().items():
        (args.out_dir / f"{name}-{hashlib.sha1(data).hexdigest()[:8]}").write_bytes(data)
    print(f"make_seeds: {len(seeds())} seeds in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
