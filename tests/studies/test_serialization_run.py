"""`./testbed run serialization --quick` end to end: both programs, both services started
on free ports by the study, a complete result folder whose report opens with the findings."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.judge.findings import VERDICTS
from testbed.studies import runner as study
from testbed.run.progress import Progress

FILE = Path(__file__).resolve().parents[2] / "loadgen" / "experiments" / "serialization.toml"
KEYS = {"bloat", "array-vs-buffer", "ser-vs-deser", "doubles-vs-floats", "formatting-dominates"}


@pytest.mark.slow
def test_quick_run_yields_a_complete_folder(tmp_path):
    s = study.load(FILE, quick=True)
    runner = study.StudyRunner(s, tmp_path / "results", progress=Progress(stream=open("/dev/null", "w")))
    folder = runner.run()
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete" and exp["quick"] is True
    samples = [json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == len(s.points()) and {x["status"] for x in samples} == {"ok"}, \
        [(x["point"], x["error"]) for x in samples if x["status"] != "ok"]
    summary = json.loads((folder / "summary.json").read_text())
    found = {f["key"]: f for f in summary["findings"]}
    assert KEYS <= set(found) and all(f["verdict"] in VERDICTS for f in found.values())
    assert summary["lost"] == [] and summary["unstable_sizes"] == []
    assert all(r["ser_ms"]["median"] > 0 and r["deser_ms"]["median"] > 0 for r in summary["messages"])
    html = (folder / "report.html").read_text()
    assert html.index('id="findings"') < html.index('id="sizes"') < html.index('id="settings"')
    assert {p.name for p in (folder / "plots").iterdir()} >= {"overhead.png", "writers.png", "transmit.png"}
    for svc in (exp["environment"].get("services") or {}).values():
        port = int(svc.split(":")[2].split("/")[0])
        from testbed import procs
        assert procs.port_free(port), f"the study's service on {port} is still running"
