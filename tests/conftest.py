"""Fixtures that start real tier processes (built by `./testbed build`) on free loopback
ports, one per test session, and stop them afterwards. The helpers are in stacks.py."""
from __future__ import annotations

import sys

import pytest

from testbed import procs
from stacks import make_stack_config, start_tier


def pytest_collection_finish(session):
    """Importing locust monkey-patches the importing process with gevent (threads become
    greenlets, signals land in whichever greenlet runs), which silently changes every later
    test. Tests ask Locust things in a subprocess; this keeps it that way."""
    if "locust" in sys.modules or "gevent.monkey" in sys.modules:
        raise pytest.UsageError("a test module imported locust/gevent at collection; import it "
                                "in a subprocess instead (it monkey-patches the test process)")


@pytest.fixture(scope="session", params=["iterative", "thread", "pool", "pool-generated"])
def gsoap_server(request):
    """The gSOAP service, once per server model (the default, tuned serializers), and once more
    in the pool model with the generated serializers (GSOAP_SERIALIZERS); client_args make
    tb-gsoap-client use the same serializers as the service."""
    model, _, generated = request.param.partition("-")
    serializers = "generated" if generated else "tuned"
    server = start_tier("gsoap", f"gsoap-{request.param}", "/gsoap",
                        {"GSOAP_SERVER_MODEL": model, "GSOAP_SERIALIZERS": serializers})
    server.model, server.serializers = model, serializers
    server.client_args = ("--serializers", serializers)
    yield server
    procs.stop(server.proc)


@pytest.fixture(scope="session")
def gsoap_pool_server():
    server = start_tier("gsoap", "gsoap-pool-single", "/gsoap", {"GSOAP_SERVER_MODEL": "pool"})
    yield server
    procs.stop(server.proc)


@pytest.fixture(scope="session")
def gsoap_mtom_server():
    """The pool model with MTOM accepted (GSOAP_ACCEPT_MTOM=1; off by default: docs/tiers.md)."""
    server = start_tier("gsoap", "gsoap-pool-mtom", "/gsoap", {"GSOAP_SERVER_MODEL": "pool", "GSOAP_ACCEPT_MTOM": "1"})
    yield server
    procs.stop(server.proc)


@pytest.fixture(scope="session")
def axis_server():
    server = start_tier("axis", "axis", "/axis")
    yield server
    procs.stop(server.proc)


@pytest.fixture(scope="session")
def stack():
    """The whole request path behind HAProxy: front, clone (singleton), axis, gsoap ×1.
    Tests that change it (scale, client mode, a killed replica) put it back as it was."""
    from testbed.local import LocalStack as Stack
    st = Stack(make_stack_config("stack"), log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1, "axis": 1, "gsoap": 1}, {"CLIENT_MODE": "singleton"})
    except Exception as e:
        st.down()
        pytest.fail(f"stack did not start: {e}")
    yield st
    st.down()
