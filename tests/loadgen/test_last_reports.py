"""Nothing lost at the end of a headless run (loadgen/locustfile.py, _final_reports_before_quit
and _final_totals): every request a slow server answered is in Locust's locust_stats.csv,
including the answers to the requests still in flight when the last step ended — which
returned after Locust's own fixed 0.5 s wait for the workers' last reports, and after its last
rewrite of the CSV."""
from __future__ import annotations

import pytest

from locust_runs import Server, run_locust

pytestmark = pytest.mark.timeout(120)

ANSWER_S = 1.5          # each answer this late: longer than Locust's 0.5 s, shorter than --stop-timeout


@pytest.mark.parametrize("workers", [0, 1])
def test_the_answers_to_requests_in_flight_at_the_end_are_counted(workers, tmp_path):
    users = 4
    server = Server(lambda: ANSWER_S)
    total = run_locust(tmp_path, server, workers, users=users, stop_timeout=10, latency_log=False)
    counted = int(total["Request Count"]) - int(total["Failure Count"])
    # each user had a request in flight when the step ended: its answer came ANSWER_S later
    assert server.answered >= 2 * users
    assert counted == server.answered, (tmp_path / "master.log").read_text()[-2000:]
