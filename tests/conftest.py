"""Fixtures that start real tier processes (built by `./testbed build`) on free loopback
ports, one per test session (per worker under `./testbed test`, which runs pytest-xdist),
and stop them afterwards. The helpers are in stacks.py; how to write a test that needs a
stack, and how the suite runs in parallel: tests/README.md."""
from __future__ import annotations

import os
import signal
import sys

import pytest

from testbed import procs
import durations
from stacks import make_stack_config, start_tier


# A shell starts a background job (`./testbed test &`, nohup, a CI runner's step) with SIGINT
# ignored, and an ignored signal stays ignored across exec: the Ctrl-C tests' `./testbed run`
# children would then never see their SIGINT and run to the end. The tests stand for a user at
# a terminal, so SIGINT is handled here and every child starts with the default action.
signal.signal(signal.SIGINT, signal.default_int_handler)


def _worker_port_slice() -> None:
    """Each pytest-xdist worker picks its free ports (procs.free_port) from a slice of the range
    of its own (TESTBED_FREE_PORTS, inherited by the ./testbed commands it runs): a stack's
    configuration takes its entry ports well before HAProxy binds them (Zipkin starts first),
    and another worker that picked the same port meanwhile made that stack fail to start
    ("port in use", a CI rehearsal on 2026-11-28)."""
    import os
    got = procs.worker_port_slice(os.environ.get("PYTEST_XDIST_WORKER", ""),
                                  os.environ.get("PYTEST_XDIST_WORKER_COUNT", ""))
    if got:
        os.environ["TESTBED_FREE_PORTS"] = f"{got[0]}-{got[1]}"


_worker_port_slice()

CHUNK = 25     # tests per group when a file is split (pytest -n): its session fixtures start once per worker


def _uses_module_fixtures(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return bool(info) and any(d.scope in ("module", "package", "class")
                              for defs in info.name2fixturedefs.values() for d in defs)


@pytest.hookimpl(tryfirst=True)      # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Parallel runs (pytest -n N --dist loadgroup, as ./testbed test does) hand out groups of
    tests, each run on one worker. A test can name its group (@pytest.mark.xdist_group("name"):
    e.g. each end-to-end experiment run, on a stack of its worker's own). Otherwise a file's
    tests form one group, so that its module fixtures start once; a file without module
    fixtures is split: each slow test alone, the others in groups of CHUNK (session fixtures
    start once per worker anyway). The groups are handed out longest first (durations.py: the
    last run's seconds per group, or the committed table, or an estimate from the markers)."""
    def group(item):
        mark = item.get_closest_marker("xdist_group")
        return mark.args[0] if mark and mark.args else mark.kwargs.get("name") if mark else None

    by_file: dict[str, list] = {}
    for item in items:
        if group(item) is None:
            by_file.setdefault(item.nodeid.split("::")[0], []).append(item)
    for path, tests in by_file.items():
        if any(_uses_module_fixtures(t) for t in tests):
            for t in tests:
                t.add_marker(pytest.mark.xdist_group(path))
            continue
        rest = [t for t in tests if not t.get_closest_marker("slow")]
        for t in tests:
            if t.get_closest_marker("slow"):
                t.add_marker(pytest.mark.xdist_group(t.nodeid))
        chunks = -(-len(rest) // CHUNK)
        for i, t in enumerate(rest):
            t.add_marker(pytest.mark.xdist_group(f"{path}#{i * chunks // len(rest)}" if chunks > 1 else path))
    # the longest groups first (stable: a group's tests stay together), so that no worker is
    # left with a long one at the end; ./testbed test passes --no-loadscope-reorder so that
    # pytest-xdist hands the groups out in this order
    cost = durations.estimates(items, group)
    items.sort(key=lambda item: -cost[group(item)])


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
    from testbed.stacks.local import LocalStack as Stack
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


def _controller() -> bool:
    """The controller, or a run without workers (pytest-xdist names each worker in this variable)."""
    return "PYTEST_XDIST_WORKER" not in os.environ


def pytest_runtest_logreport(report):
    """Each group's seconds (setup, call and teardown of its tests), for the next run's order;
    under pytest-xdist the controller sees every worker's reports (node ids end in @group), and
    only the controller saves them."""
    if _controller():
        durations.note(report)


def pytest_sessionfinish(session, exitstatus):
    if _controller():
        durations.save(session.config, exitstatus == 0)
