"""zeep reads the WSDL the Axis2 service serves and calls it: a basic check that a third,
independent SOAP stack agrees (the full client × service matrix is tests/test_interop.py)."""
from __future__ import annotations

from clients import call, expected


def test_zeep_pings_through_the_served_wsdl(axis_server):
    r = call("zeep", axis_server.endpoint, "ping")
    assert r["exit"] == 0


def test_zeep_send_doubles_checksum_agrees_with_the_reference(axis_server):
    r = call("zeep", axis_server.endpoint, "sendDoubles", 1000, seed=5)
    assert (r["count"], r["checksum"]) == expected("sendDoubles", 1000, 5)


def test_zeep_int_buffer_checksum_equals_the_int_array_checksum(axis_server):
    r = call("zeep", axis_server.endpoint, "sendIntBuffer", 1000, seed=2)
    assert (r["count"], r["checksum"]) == expected("sendInts", 1000, 2)


def test_zeep_echo_ints_round_trips(axis_server):
    r = call("zeep", axis_server.endpoint, "echoInts", 100, seed=4)
    assert r["echo_equal"] is True
