"""Both serializers of the arrays (GSOAP_SERIALIZERS, services/gsoap/custom) speak the same
WSDL and wire format: a gSOAP service with each answers every client -- tb-gsoap-client with
either serializers, the Axis2 client and zeep -- with the contract's count and checksum; the
gSOAP client with either serializers is understood by the Axis2 service; and floating-point
values every writer may send (subnormals, +-0, +-INF, NaN, 1e+-308, FLT_MAX, the smallest
denormals, values that need 9 and 17 digits; as %.9G / %.17G, shortest round trip, and Java's
toString) are read to the same bits by both services.

(ctest items_test checks the serializers in-process, byte for byte and value for value; the
interop matrix through HAProxy, tests/test_interop.py, runs with the stack's serializers.)"""
from __future__ import annotations

import math

import numpy
import pytest

from clients import call as client_call, expected
from gsoap.gsoap_http import envelope, exchange, post_bytes
from testbed import contract, procs

ARRAY_OPS = ("sendBytes", "sendInts", "sendFloats", "sendDoubles", "echoInts")
SIZES = (0, 1, 1000)
CLIENTS = ("gsoap-tuned", "gsoap-generated", "axis", "zeep")


@pytest.fixture(scope="module", params=["tuned", "generated"])
def service(request):
    from stacks import start_tier
    server = start_tier("gsoap", f"gsoap-serializers-{request.param}", "/gsoap",
                        {"GSOAP_SERVER_MODEL": "pool", "GSOAP_SERIALIZERS": request.param})
    server.serializers = request.param
    yield server
    procs.stop(server.proc)


def call(client: str, endpoint: str, op: str, n: int) -> dict:
    if client.startswith("gsoap-"):
        return client_call("gsoap", endpoint, op, n, seed=11, serializers=client.split("-")[1])
    return client_call(client, endpoint, op, n, seed=11)


def check(r: dict, op: str, n: int) -> None:
    assert r["exit"] == 0, r
    if op == "echoInts":
        assert r["count"] == n and r["echo_equal"] is True, r
    else:
        assert (r["count"], r["checksum"]) == expected(op, n, seed=11), r


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("op", ARRAY_OPS)
def test_every_client_gets_the_contract_answer_from_either_serializers(service, client, op):
    for n in SIZES:
        check(call(client, service.endpoint, op, n), op, n)


@pytest.mark.parametrize("serializers", ["tuned", "generated"])
@pytest.mark.parametrize("op", ARRAY_OPS)
def test_the_axis2_service_reads_the_gsoap_client_with_either_serializers(axis_server, serializers, op):
    for n in SIZES:
        check(call(f"gsoap-{serializers}", axis_server.endpoint, op, n), op, n)


# --- floating point: the values every writer may send -----------------------------------
F32 = numpy.finfo(numpy.float32)
F64 = numpy.finfo(numpy.float64)
FLOATS = [0.0, -0.0, math.inf, -math.inf, float(F32.max), -float(F32.max), float(F32.tiny),
          float(F32.smallest_subnormal), -float(F32.smallest_subnormal), float(F32.tiny) / 2,
          0.1, 1 / 3, 16777217.0, 1.17549435e-38, 3.4028235e38, 1e-45, 123456.789, float(F32.eps)]
DOUBLES = [0.0, -0.0, math.inf, -math.inf, 1e308, -1e308, 1e-308, float(F64.max), float(F64.tiny),
           5e-324, -5e-324, 2.2250738585072011e-308, 0.1, 1 / 3, 0.30000000000000004,
           9007199254740993.0, 1.7976931348623157e308, float(F64.eps)]


def shortest(x) -> str:
    fixed = numpy.format_float_positional(x, unique=True, trim="-")
    sci = numpy.format_float_scientific(x, unique=True, trim="-", exp_digits=2)
    return fixed if len(fixed) <= len(sci) else sci


def texts(kind: str, values: list[float]) -> dict[str, list[str]]:
    """The items as each writer formats them: gSOAP generated, gSOAP tuned, Java (Axis2/ADB:
    Float/Double.toString), Python's repr (zeep)."""
    real = numpy.float32 if kind == "float" else numpy.float64

    def special(v):
        return "NaN" if math.isnan(v) else ("INF" if v > 0 else "-INF") if math.isinf(v) else None

    def java(v):  # Float.toString / Double.toString: fixed from 1e-3 to 1e7, else d.dddE-n
        s = special(v)
        if s:
            return {"INF": "Infinity", "-INF": "-Infinity"}.get(s, s)
        x = real(v)
        if x == 0 or 1e-3 <= abs(x) < 1e7:
            return numpy.format_float_positional(x, unique=True, trim="0")
        return numpy.format_float_scientific(x, unique=True, trim="0", exp_digits=1).replace("e+", "E").replace("e", "E")
    fmt = "%.9G" if kind == "float" else "%.17G"
    return {"generated": [special(v) or fmt % real(v) for v in values],
            "tuned": [special(v) or shortest(real(v)) for v in values],
            "java": [java(v) for v in values],
            "python": [special(v) or repr(float(real(v))) for v in values]}


@pytest.mark.parametrize("kind", ["float", "double"])
def test_special_and_boundary_values_read_to_the_same_bits_by_both_services(service, kind):
    values = FLOATS if kind == "float" else DOUBLES
    op = "sendFloats" if kind == "float" else "sendDoubles"
    want = contract.checksum(kind, values)     # bit patterns (Python rounds to float32 as C does)
    for writer, items in texts(kind, values).items():
        body = envelope(f"<tb:{op}>" + "".join(f"<tb:items>{t}</tb:items>" for t in items) + f"</tb:{op}>")
        r = exchange(service.port, post_bytes(body))
        assert r.status == 200, (writer, r.status, r.body[:300])
        assert f"<tb:count>{len(values)}</tb:count>".encode() in r.body
        assert f"<tb:checksum>{want}</tb:checksum>".encode() in r.body, (service.serializers, writer, items)


def test_nan_reads_to_the_same_bits_with_both_serializers(request):
    """gSOAP reads "NaN" (and "nan") as its one NaN; the tuned reader leaves NaN to gSOAP."""
    from stacks import start_tier
    sums = {}
    for serializers in ("tuned", "generated"):
        server = start_tier("gsoap", f"gsoap-nan-{serializers}", "/gsoap", {"GSOAP_SERIALIZERS": serializers})
        try:
            for op in ("sendFloats", "sendDoubles"):
                body = envelope(f"<tb:{op}><tb:items>NaN</tb:items><tb:items>nan</tb:items>"
                                f"<tb:items>1</tb:items></tb:{op}>")
                r = exchange(server.port, post_bytes(body))
                assert r.status == 200 and b"<tb:count>3</tb:count>" in r.body, r.body[:300]
                sums.setdefault(op, set()).add(r.body.split(b"checksum>")[1])
        finally:
            procs.stop(server.proc)
    assert all(len(v) == 1 for v in sums.values()), sums
