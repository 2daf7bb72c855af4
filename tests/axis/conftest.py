"""Fixtures of the axis-service tests. The default service is tests/conftest.py's
axis_server; axis_small_limits is a second one whose size and element limits are small
enough to cross cheaply."""
from __future__ import annotations

import pytest

from axis.axistools import AxisProcess

SMALL_MAX_MESSAGE_BYTES = 65536
SMALL_MAX_XML_OCCURS = 1000


@pytest.fixture(scope="session")
def axis_small_limits():
    server = AxisProcess("axis-small-limits", {"MAX_MESSAGE_BYTES": str(SMALL_MAX_MESSAGE_BYTES),
                                                "MAX_XML_OCCURS": str(SMALL_MAX_XML_OCCURS)})
    yield server
    server.stop()
