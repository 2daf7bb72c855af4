"""Python reference of the contract's seeded payload generator and checksum.

Defined in services/contract/README.md; the C++ and Java implementations are checked
against the vectors this module produced (tests/contract/vectors.json).
"""
from __future__ import annotations

import struct
from pathlib import Path

WSDL = Path(__file__).resolve().parents[2] / "services" / "contract" / "testbed.wsdl"
NAMESPACE = "http://soaptestbed.org/contract/v1"
OPERATIONS = ("ping", "sendBytes", "sendInts", "sendFloats", "sendDoubles",
              "sendIntBuffer", "echoInts", "work")
SEND_OPERATIONS = ("sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer")

FNV_OFFSET = 2166136261
FNV_PRIME = 16777619
_M64 = (1 << 64) - 1


def fnv1a(data: bytes, h: int = FNV_OFFSET) -> int:
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFF
    return h


def splitmix64(seed: int):
    state = seed & _M64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        yield z ^ (z >> 31)


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) else value


def _float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def items(kind: str, n: int, seed: int = 1) -> list:
    """The n items of kind 'byte' | 'int' | 'float' | 'double' for this seed."""
    gen = splitmix64(seed)
    rs = [next(gen) for _ in range(n)]
    if kind == "byte":
        return [r & 0xFF for r in rs]
    if kind == "int":
        return [_signed(r >> 32, 32) for r in rs]
    if kind == "float":
        return [_float32(_signed(r >> 32, 32) / 1024.0) for r in rs]
    if kind == "double":
        return [float(_signed(r, 64)) / 1048576.0 for r in rs]
    raise ValueError(f"unknown item kind {kind!r}")


def canonical_bytes(kind: str, values) -> bytes:
    if kind == "byte":
        return bytes(values)
    fmt = {"int": "i", "float": "f", "double": "d"}[kind]
    return struct.pack(f"<{len(values)}{fmt}", *values)


def checksum(kind: str, values) -> int:
    return fnv1a(canonical_bytes(kind, values))


def int_buffer(values) -> bytes:
    return canonical_bytes("int", values)


KIND_OF = {"sendBytes": "byte", "sendInts": "int", "sendFloats": "float",
           "sendDoubles": "double", "sendIntBuffer": "int", "echoInts": "int"}


SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"


def envelope(op: str, n: int = 0, seed: int = 1, cpu_us: int = 0, wait_us: int = 0) -> bytes:
    """The SOAP 1.1 request a contract client sends for (op, n, seed), as bytes — for raw
    HTTP drivers (wrk, hostile-input tests) that do not use a SOAP stack."""
    import base64
    if op not in OPERATIONS:
        raise ValueError(f"unknown operation {op!r}; one of {', '.join(OPERATIONS)}")
    if op == "ping":
        body = "<tb:ping/>"
    elif op == "work":
        body = (f"<tb:work><tb:cpuMicros>{cpu_us}</tb:cpuMicros>"
                f"<tb:waitMicros>{wait_us}</tb:waitMicros></tb:work>")
    elif op == "sendIntBuffer":
        data = base64.b64encode(int_buffer(items("int", n, seed))).decode()
        body = f"<tb:sendIntBuffer><tb:data>{data}</tb:data></tb:sendIntBuffer>"
    else:
        kind = KIND_OF[op]
        values = items(kind, n, seed)
        fmt = repr if kind in ("float", "double") else str
        inner = "".join(f"<tb:items>{fmt(v)}</tb:items>" for v in values)
        body = f"<tb:{op}>{inner}</tb:{op}>"
    return (f'<?xml version="1.0" encoding="UTF-8"?>'
            f'<soap:Envelope xmlns:soap="{SOAP_ENV}" xmlns:tb="{NAMESPACE}">'
            f"<soap:Body>{body}</soap:Body></soap:Envelope>").encode()


def soap_headers(op: str) -> dict[str, str]:
    return {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": f'"urn:{op}"'}
