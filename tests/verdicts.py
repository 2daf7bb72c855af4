"""The verdicts a test asserts of a result's findings (analysis/judge/findings.py), in one place.

A test checks behaviour, so a finding whose rule rests on a timing measured on this host is
never asserted as a bare measurement against a constant. Either the analysis itself says the
host could not test it — "not testable on this host", with the cause (analysis/judge/regime.py: other
programs' share of the host, or the host or the load generator out of CPU) — and the test asserts
that cause; or the finding was judged, and the test asserts the verdict its rule gives on the
run's own numbers (recomputed in the test from summary.json's rows), or the relation the data
must show. Where the data do not depend on the machine (message sizes, byte counts), the test
asserts the verdict itself.

    found = by_key(summary)
    if was_judged(found["segment5_dominates"], SHARED):
        assert found["segment5_dominates"]["verdict"] == rule(t5 <= t4 / 2) == HOLDS
"""
from __future__ import annotations

from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_TESTABLE

# a cause analysis/judge/regime.py names in a "not testable" finding's why: shared(), another program's
# share of the host (host_bound() names "host CPU", "the stack's pinned CPUs" or "the load generator")
SHARED = "other programs used"


def by_key(summary: dict) -> dict[str, dict]:
    """summary.json's findings by their key."""
    return {f["key"]: f for f in summary["findings"]}


def was_judged(finding: dict, *causes: str) -> bool:
    """The guard: False when the finding reads "not testable on this host" — after asserting that
    its why names one of `causes`; True when the finding was judged, and the caller asserts its
    verdict or the relation its data must show."""
    if finding["verdict"] == NOT_TESTABLE:
        assert causes and any(c in finding["why"] for c in causes), finding
        return False
    return True


def rule(ok: bool) -> str:
    """The verdict a finding's rule gives: holds when its condition is met, else does not hold."""
    return HOLDS if ok else DOES_NOT_HOLD


def assert_verdicts(found: dict[str, dict], expected: dict[str, str]) -> None:
    """Each finding named in `expected` has that verdict; the message lists every mismatch."""
    wrong = {k: (found[k]["verdict"], v, found[k]["measured"], found[k]["why"])
             for k, v in expected.items() if found[k]["verdict"] != v}
    assert not wrong, wrong
