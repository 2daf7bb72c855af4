"""Every contract operation, called with the Axis2 interop client (contract.jar) against the
Axis2 service: counts, checksums and echoes agree with the contract's Python reference, for
payloads of 0, 1, 1000 and 100000 items."""
from __future__ import annotations

import pytest

from clients import call, expected

SIZES = (0, 1, 1000, 100000)
SEND_OPS = ("sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", SEND_OPS)
def test_send_operation_count_and_checksum_agree_with_the_reference(axis_server, op, n):
    r = call("axis", axis_server.endpoint, op, n, seed=1)
    assert (r["exit"], r["ok"], r["errors"], r["fault"]) == (0, 1, 0, None), r
    want_count, want_checksum = expected(op, n)
    assert (r["count"], r["checksum"]) == (want_count, want_checksum)
    assert r["expected_checksum"] == want_checksum


@pytest.mark.parametrize("n", SIZES)
def test_echo_ints_returns_exactly_what_was_sent(axis_server, n):
    r = call("axis", axis_server.endpoint, "echoInts", n, seed=3)
    assert (r["exit"], r["ok"], r["echo_equal"]) == (0, 1, True), r


def test_a_seed_above_2_to_the_63_gives_the_reference_checksum(axis_server):
    seed = 2**64 - 1
    r = call("axis", axis_server.endpoint, "sendInts", 1000, seed=seed)
    assert r["exit"] == 0, r
    assert r["seed"] == seed
    assert r["checksum"] == expected("sendInts", 1000, seed)[1]


def test_ping_succeeds_and_reports_both_body_sizes(axis_server):
    r = call("axis", axis_server.endpoint, "ping")
    assert (r["exit"], r["ok"], r["client"], r["op"]) == (0, 1, "axis", "ping"), r
    assert r["request_bytes"] > 0 and r["response_bytes"] > 0
    assert r["count"] is None and r["echo_equal"] is None and r["work"] is None


def test_work_is_served_by_the_axis_process_itself(axis_server):
    r = call("axis", axis_server.endpoint, "work", cpu_us=2000, wait_us=1000)
    assert r["exit"] == 0, r
    assert r["work"]["implementation"] == "axis"
    assert r["work"]["pid"] == axis_server.proc.pid
    assert r["work"]["host"]


def test_work_over_60_seconds_is_refused_with_a_client_fault(axis_server):
    from axis.axistools import post
    from testbed import contract
    reply = post(axis_server.port, contract.envelope("work", wait_us=60_000_001), contract.soap_headers("work"))
    assert (reply.status, reply.fault_code) == (500, "Client"), reply.text
    assert "waitMicros" in reply.text


def test_200_calls_over_8_connections_have_no_errors(axis_server):
    r = call("axis", axis_server.endpoint, "sendInts", 1000, calls=200, connections=8)
    assert (r["exit"], r["ok"], r["errors"], r["connections"]) == (0, 200, 0, 8), r
    assert r["latency_ms"]["max"] >= r["latency_ms"]["p50"] > 0


def test_200_pings_over_8_connections_have_no_errors(axis_server):
    r = call("axis", axis_server.endpoint, "ping", calls=200, connections=8)
    assert (r["exit"], r["ok"], r["errors"]) == (0, 200, 0), r


@pytest.mark.parametrize("op,n,refused", [("sendInts", 1000, False), ("ping", 0, True)])
def test_the_command_line_and_its_serve_mode_answer_alike(axis_server, op, n, refused):
    """The suites call through `contract.jar serve` (tests/clients.py); the command line's own
    JSON and exit status are the same, for an answer and for a refused connection."""
    from testbed import procs
    endpoint = f"http://127.0.0.1:{procs.free_port()}/axis" if refused else axis_server.endpoint
    served = call("axis", endpoint, op, n)
    run = call("axis", endpoint, op, n, process=True)
    timing = ("seconds", "throughput_rps", "latency_ms")
    assert {k: v for k, v in served.items() if k not in timing} == \
        {k: v for k, v in run.items() if k not in timing}
    assert run["exit"] == (3 if refused else 0), run
