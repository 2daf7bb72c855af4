"""A normal start of the local stack leaves HAProxy without a single DOWN transition or ALERT:
servers are rendered in maintenance and put in rotation once their replica is healthy
(issue: every server used to show one DOWN and the log an ALERT at every start)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stacks import make_stack_config

pytestmark = [pytest.mark.stack, pytest.mark.own_stack]    # a stack of its own, started and watched


def test_a_normal_start_leaves_no_down_transition_and_no_alert():
    from testbed.stacks.local import LocalStack
    st = LocalStack(make_stack_config("haproxy-start"), log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1, "axis": 1, "gsoap": 1}, {"CLIENT_MODE": "singleton"})
        rows = [r for r in st.runtime.stats() if r["pxname"] not in ("locust_ui", "prometheus_ui", "zipkin_ui")]   # tiers
        assert {r["svname"] for r in rows} == {"front1", "clone1", "axis1", "gsoap1"}
        assert [(r["svname"], r["status"], r["chkdown"]) for r in rows if r["status"] != "UP" or r["chkdown"] != "0"] == []
        log = (Path(st.dir) / "logs" / "haproxy.log").read_text(errors="replace")
        assert "ALERT" not in log and " is DOWN" not in log, log[-2000:]
    finally:
        st.down()
