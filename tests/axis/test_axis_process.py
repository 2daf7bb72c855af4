"""The axis process interface of docs/tiers.md: one start-up line with the effective
configuration, a bad knob stops start-up with a message naming it, SIGTERM stops it."""
from __future__ import annotations

import signal

import pytest

from axis.axistools import AxisProcess, run_axis_until_exit
from testbed import procs

pytestmark = pytest.mark.own_stack     # Axis2 services of its own, started and stopped


def test_start_up_logs_one_line_with_the_effective_configuration(axis_server):
    lines = [l for l in axis_server.log_text().splitlines() if "listening on" in l]
    assert lines, axis_server.log_text()[-2000:]
    line = lines[-1]
    for knob in ("TOMCAT_MAX_THREADS=200", "TOMCAT_MAX_CONNECTIONS=8192", "MAX_MESSAGE_BYTES=67108864",
                 "MAX_XML_DEPTH=64", "MAX_XML_OCCURS=10000000", "DEMAND_SERVICE_CPU_US=0",
                 f"PORT={axis_server.port}", "BIND=127.0.0.1"):
        assert knob in line, line


def test_a_bad_tomcat_max_threads_stops_start_up_with_a_clear_message():
    r = run_axis_until_exit({"TOMCAT_MAX_THREADS": "lots"})
    assert r.returncode == 2, (r.returncode, r.stdout[-1000:], r.stderr[-1000:])
    assert "TOMCAT_MAX_THREADS='lots'" in r.stderr and "integer" in r.stderr, r.stderr[-1000:]


def test_an_out_of_range_max_xml_depth_stops_start_up():
    r = run_axis_until_exit({"MAX_XML_DEPTH": "0"})
    assert r.returncode == 2 and "MAX_XML_DEPTH" in r.stderr, r.stderr[-1000:]


def test_demand_knobs_are_read_and_reported():
    server = AxisProcess("axis-demand", {"DEMAND_SERVICE_CPU_US": "500", "DEMAND_SERVICE_LOCKED": "1"})
    try:
        log = server.log_text()
        assert "DEMAND_SERVICE_CPU_US=500" in log and "DEMAND_SERVICE_LOCKED=1" in log
    finally:
        server.stop()


def test_sigterm_stops_the_service():
    server = AxisProcess("axis-sigterm", {})
    assert procs.stop(server.proc, timeout=30, sig=signal.SIGTERM)
    assert not server.proc.alive()
    assert "axis stopping" in server.log_text()   # logged by the shutdown hook, so not a SIGKILL
