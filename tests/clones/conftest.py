"""Fixtures of the client-tier tests: one clone.jar per client mode, started directly on a
free loopback port and calling the real services of tests/conftest.py (axis_server,
gsoap_pool_server) — no HAProxy."""
from __future__ import annotations

import pytest

from clones.clonetools import POOL_SIZE, start_clone
from testbed import procs


@pytest.fixture(scope="session")
def services(axis_server, gsoap_pool_server):
    return {"axis": axis_server.endpoint, "gsoap": gsoap_pool_server.endpoint}


def _clone_fixture(mode: str, **env: str):
    @pytest.fixture(scope="session")
    def fixture(services):
        clone = start_clone(f"clone-{mode}", services["axis"], services["gsoap"], CLIENT_MODE=mode, **env)
        yield clone
        procs.stop(clone.proc)
    return fixture


clone_singleton = _clone_fixture("singleton")
clone_request = _clone_fixture("request")
clone_pool = _clone_fixture("pool", CLIENT_POOL_SIZE=str(POOL_SIZE))


@pytest.fixture(params=["singleton", "request", "pool"])
def any_clone(request):
    """Each mode's clone in turn."""
    return request.getfixturevalue(f"clone_{request.param}")
