"""Fault injection (cli/testbed/faults/, analysis/load/faults.py): parsing, the counts inside a
fault's window, and, end to end on a private local stack, one of two clones killed mid-run."""
from __future__ import annotations

import json
import time

import pytest

from analysis.load import faults as afaults
from analysis.load.locust_csv import History, HistoryRow
from testbed.faults import spec as faults
from testbed.experiment import definition
from testbed.run.runner import Runner


def test_a_fault_is_parsed_with_its_defaults_and_bad_ones_name_the_fix():
    f = faults.parse("pause", "clone#2", at=5)
    assert (f.tier, f.replica, f.at, f.duration) == ("clone", 2, 5.0, 10.0)
    assert faults.parse("kill", "gsoap").duration is None and faults.parse("kill", "gsoap").replica is None
    with pytest.raises(faults.FaultError, match="one of kill, pause, slow"):
        faults.parse("explode", "clone")
    with pytest.raises(faults.FaultError, match="TIER or TIER#i"):
        faults.parse("kill", "haproxy")
    with pytest.raises(faults.FaultError, match="is not a run of this file"):
        faults.from_tables([{"action": "kill", "target": "clone#2", "run": "nope"}], ["a", "b"], "x.toml")
    with pytest.raises(faults.FaultError, match="unknown key"):
        faults.from_tables([{"action": "kill", "target": "clone", "when": 3}], ["a"], "x.toml")


def _row(t, req, fail):
    return HistoryRow(t, 8, req, fail, 10.0, 20.0, 30.0)


def test_requests_and_failures_inside_a_window_come_from_the_cumulative_counts():
    h = History(rows=[_row(100, 0, 0), _row(101, 100, 0), _row(102, 180, 3), _row(103, 260, 4), _row(104, 360, 4)])
    assert afaults.window_counts(h, 101, 103) == (160, 4)
    assert afaults.window_counts(h, 200, 210) == (None, None)       # the history does not reach it
    line = afaults.timeline(h)
    assert [p["throughput"] for p in line] == [100, 80, 80, 100] and line[1]["failures"] == 3



def test_a_node_faults_window_lasts_until_its_stuck_requests_time_out():
    # fault-kill-node on 4 nodes: the clone was back elsewhere 24 s after the kill, and the 15
    # requests in flight on the vanished node failed (504) 30 s after it, past end + 5 s
    h = History(rows=[_row(100 + i, 10 * i, 16 if i >= 31 else 0) for i in range(40)])
    rec = {"start": 100.5, "end": 124.5, "action": "kill", "target": "node-3"}
    assert afaults.summarize("c1", [rec], h)[0]["failures_in_window"] == 0            # a replica's window
    f = afaults.summarize("c1", [{**rec, "node": "node-3"}], h)[0]
    assert f["failures_in_window"] == 16 and f["requests_in_window"] == 350


@pytest.mark.slow
@pytest.mark.stack
@pytest.mark.own_stack
def test_a_clone_killed_mid_run_is_ejected_fails_at_most_its_requests_in_flight_and_comes_back(tmp_path):
    from stacks import make_stack_config
    from testbed.stacks.local import LocalStack
    st = LocalStack(make_stack_config("faults"), log=lambda *a: None)
    if st.running():
        st.down()
    exp = definition.parse({
        "name": "kill-a-clone", "kind": "clones",
        "load": {"users": [8, 8, 8], "step_seconds": 8, "warmup_seconds": 2, "workers": 0},
        "defaults": {"tiers": {"front": 1, "clone": 2, "axis": 1, "gsoap": 0},
                     "demands": {"SERVICE": {"wait_us": 2000}}},
        "runs": [{"id": "c2"}],
        "faults": [{"action": "kill", "target": "clone#2", "at": 6, "for": 8}]}, tmp_path / "k.toml", "")
    (tmp_path / "k.toml").write_text("# made by the test\n")
    try:
        folder = Runner(exp, st, results_dir=tmp_path / "results", keep_stack=True).run()
        rec = [json.loads(x) for x in (folder / "runs" / "c2-r0" / "faults.jsonl").read_text().splitlines()]
        assert len(rec) == 1 and rec[0]["error"] is None and rec[0]["server"] == "clone2"
        assert rec[0]["ejected_after_s"] is not None          # HAProxy took it out of rotation
        assert rec[0]["back_after_s"] is not None             # ... and back after the restart
        summary = json.loads((folder / "summary.json").read_text())
        assert json.loads((folder / "experiment.json").read_text())["status"] == "complete"
        f = summary["faults"][0]
        assert f["failures_in_window"] is not None and f["failures_in_window"] <= (f["in_flight"] or 0)
        assert (folder / "plots" / "timeline-c2-r0.png").is_file() and 'id="faults"' in (folder / "report.html").read_text()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(
                r["haproxy"] == "UP" for r in st.status()["replicas"] if r["tier"] == "clone"):
            time.sleep(0.5)
        assert sorted((r["replica"], r["haproxy"]) for r in st.status()["replicas"] if r["tier"] == "clone") == \
            [(1, "UP"), (2, "UP")]
    finally:
        st.down()
