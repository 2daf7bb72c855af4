"""`./testbed run rpc --quick` end to end: the real programs, a complete result folder."""
from __future__ import annotations

import gzip
import json

import pytest

from testbed import ROOT
from testbed.studies import runner as study
from testbed.run.progress import Progress

# one worker for the RPC programs' tests (pytest -n): the Ctrl-C test checks that no /tmp/tb-rpc-*
# socket folder is left, which another test's running programs would hold
pytestmark = pytest.mark.xdist_group("rpc-programs")

FINDING_KEYS = {"null_rpc", "speedup_shrinks", "raw_latency", "rpc_layer", "null_split", "null_bytes"}


@pytest.mark.slow
def test_quick_run_yields_a_complete_folder(tmp_path):
    s = study.load(ROOT / "loadgen" / "experiments" / "rpc.toml", quick=True)
    runner = study.StudyRunner(s, tmp_path, progress=Progress(stream=open("/dev/null", "w")))
    folder = runner.run()
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete" and exp["quick"] is True
    assert exp["measurements"] == {"ok": len(s.points()), "failed": 0, "timeout": 0, "invalid": 0}
    assert "server on CPU" in exp["environment"]["pinning"] or "not pinned" in exp["environment"]["pinning"]
    samples = [json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()]
    assert {x["point"] for x in samples} == {p.id for p in s.points()}
    for x in samples:                                  # every call's time is kept, gzipped
        for name in x["data"]["raw_files"]:
            with gzip.open(folder / "raw" / name, "rt") as f:
                assert len(f.read().splitlines()) == s.params["calls"] + 1 or name.endswith(".server.tsv.gz")
    summary = json.loads((folder / "summary.json").read_text())
    assert {f["key"] for f in summary["findings"]} == FINDING_KEYS
    assert all(f["verdict"] != "not measured" for f in summary["findings"])
    assert summary["lost"] == []
    html = (folder / "report.html").read_text()
    assert html.index('id="findings"') < html.index('id="latency"') < html.index('id="method"') < html.index('id="settings"')
    for name in ("latency", "speedup", "split"):
        assert (folder / "plots" / f"{name}.png").stat().st_size > 0
