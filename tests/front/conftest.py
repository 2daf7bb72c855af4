"""Fixtures of the front's own tests: front.jar started directly on a free loopback port,
its CLONES_URL aimed at a fake client tier (frontcheck.FakeClones, a test double: the
end-to-end tests through HAProxy and the real client tier live elsewhere)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))     # frontcheck, beside this file
from frontcheck import FakeClones, Front  # noqa: E402
from testbed import procs  # noqa: E402


@pytest.fixture(scope="session")
def fake_clones():
    fake = FakeClones()
    yield fake
    fake.close()


@pytest.fixture(scope="session")
def front(fake_clones):
    """A front with default knobs, its client tier the fake, INVOKER_TIMEOUT_MS=1000."""
    f = Front("front-unit", {"CLONES_URL": fake_clones.url, "INVOKER_TIMEOUT_MS": "1000"})
    _first_call_answered(f, fake_clones)
    yield f
    f.stop()


def _first_call_answered(front, fake, within_s: float = 60.0) -> None:
    """The front's first /seg/5 loads and initializes its HTTP client: on a loaded machine that
    took longer than the 1 s INVOKER_TIMEOUT_MS (rehearsal ci51: a 504 where the test expected
    the fake's 502). Made here once, against the fake in "ok" mode, until it answers 200."""
    fake.mode = "ok"
    procs.wait_healthy(front.proc, f"{front.base}/seg/5", within_s)


@pytest.fixture(scope="session")
def slow_front():
    """A front whose client tier is unreachable, with a 0.2 s JSP demand and a one-instance
    bean pool held 1 s per call, waited for 0.3 s at most (knobs its start-up line shows)."""
    f = Front("front-unit-slow", {
        "CLONES_URL": f"http://127.0.0.1:{procs.free_port()}",
        "DEMAND_SEG2_WAIT_US": "200000",
        "DEMAND_SEG4_WAIT_US": "1000000",
        "BEAN_POOL_SIZE": "1",
        "BEAN_POOL_TIMEOUT_MS": "300",
    })
    yield f
    f.stop()


@pytest.fixture
def reset_fake(fake_clones):
    fake_clones.reset()
    yield fake_clones
    fake_clones.release()              # nothing kept past the test
    fake_clones.reset()
