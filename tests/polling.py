"""Waiting for a state instead of sleeping for it: `until` polls a predicate, bounded."""
from __future__ import annotations

import time


def until(what: str, predicate, timeout: float = 30.0, interval: float = 0.05):
    """predicate()'s first truthy value, polled every `interval` s; AssertionError naming `what`
    (and the last value) when none came within `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout:g} s: {what} (last: {got!r})")
        time.sleep(interval)
