"""Fixtures of the experiment tests: the unit tests need nothing; the end-to-end `--quick` runs
share one private stack (front, clone, axis ×1 on private ports, started once per module)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parent))     # experimentcheck, beside this file


@pytest.fixture(scope="module")
def experiment_stack():
    """The stack every quick experiment runs on; each run reconfigures it as its file says."""
    from stacks import make_stack_config             # tests/stacks.py
    from testbed.local import Stack
    from testbed import tiers
    missing = [t for t in ("front", "clone", "axis") if not tiers.TIERS[t].built()]
    if missing:
        pytest.fail(f"not built: {', '.join(missing)}; run ./testbed build (./testbed test builds)")
    st = Stack(make_stack_config("experiments"), log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1, "axis": 1}, {"CLIENT_MODE": "singleton"})
    except Exception as e:
        st.down()
        pytest.fail(f"stack did not start: {e}")
    yield st
    st.down()
