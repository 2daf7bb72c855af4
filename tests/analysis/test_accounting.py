"""Nothing lost: Locust's successes against the front's own count (analysis.summary.accounting),
and the runner's snapshot of the fronts' counters waiting for the previous run's requests."""
from __future__ import annotations

import json
from types import SimpleNamespace

from analysis.summary import accounting
from standin import serve
from testbed.run.results import served_counts


def _run(before: dict, after: dict, requests: int, users: int):
    return SimpleNamespace(meta={"notes": {"served": {"before": before, "after": after}},
                                 "steps": [{"users": 4}, {"users": users}]},
                           stats={"requests": requests, "failures": 0})


def test_agreement_within_the_users_in_flight():
    a = accounting(_run({"front-0": {"ok": 100, "in_flight": 0}}, {"front-0": {"ok": 1132}}, 1000, 32))
    assert a["difference"] == 32 and a["allowance"] == 32 and a["within"]
    a = accounting(_run({"front-0": {"ok": 100, "in_flight": 0}}, {"front-0": {"ok": 1133}}, 1000, 32))
    assert not a["within"]                                  # one more than can have been in flight


def test_requests_in_flight_at_the_start_widen_the_allowance_by_as_many():
    a = accounting(_run({"front-0": {"ok": 100, "in_flight": 3}}, {"front-0": {"ok": 1135}}, 1000, 32))
    assert a["allowance"] == 35 and a["within"]
    a = accounting(_run({"front-0": {"ok": 100, "in_flight": 3}}, {"front-0": {"ok": 1136}}, 1000, 32))
    assert not a["within"]


def test_the_snapshot_waits_until_no_front_has_a_request_in_flight():
    answers = iter([1, 1, 1, 0])          # the previous run's last request finishes on the 4th read
    reads = []

    def served(method, path):
        n = next(answers, 0)
        reads.append(n)
        return 200, json.dumps({"ok": 10 + (n == 0), "in_flight": n}).encode()

    srv = serve(served)
    try:
        replicas = [{"tier": "front", "replica": 0, "alive": True, "url": f"http://127.0.0.1:{srv.server_port}"}]
        out = served_counts(replicas, settle_s=10)
        assert out["front-0"] == {"ok": 11, "in_flight": 0} and reads == [1, 1, 1, 0]
        answers = iter([5] * 100)         # never settles: the snapshot is taken at the deadline
        out = served_counts(replicas, settle_s=0.5)
        assert out["front-0"]["in_flight"] == 5
    finally:
        srv.shutdown()
