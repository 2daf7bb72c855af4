"""Fixtures of the experiment tests: the unit tests need nothing; the end-to-end `--quick` runs
share one private stack (front, clone, axis ×1 on private ports, started once per module)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parent))     # experimentcheck, beside this file


@pytest.fixture(scope="module")
def experiment_stack():
    """The stack every quick experiment runs on; each run reconfigures it as its file says.
    Local processes by default; TESTBED_STACK_MODE=docker: the compose stack (a private
    project on free ports; needs a Docker engine and the images, CI's container section)."""
    from stacks import make_stack_config             # tests/stacks.py
    from testbed import tiers
    from testbed.stacks.compose import ComposeStack
    from testbed.stacks.local import LocalStack
    docker = os.environ.get("TESTBED_STACK_MODE", "local") == "docker"
    cfg = make_stack_config("experiments-docker" if docker else "experiments")
    if docker:
        worker = os.environ.get("PYTEST_XDIST_WORKER")          # one project per parallel worker
        cfg.knobs["COMPOSE_PROJECT_NAME"] = "testbed-experiments" + (f"-{worker}" if worker else "")
        st = ComposeStack(cfg, log=lambda *a: None)
    else:
        missing = [t for t in ("front", "clone", "axis") if not tiers.TIERS[t].built()]
        if missing:
            pytest.fail(f"not built: {', '.join(missing)}; run ./testbed build (./testbed test builds)")
        st = LocalStack(cfg, log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1, "axis": 1}, {"CLIENT_MODE": "singleton"})
    except Exception as e:
        st.down()
        pytest.fail(f"stack did not start: {e}")
    yield st
    st.down()
