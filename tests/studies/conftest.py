"""Fixtures and helpers of the studies' tests (helpers beside this file, e.g. rpcprograms)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))
