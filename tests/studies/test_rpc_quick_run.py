"""`./testbed run rpc --quick` end to end: the real programs, a complete result folder."""
from __future__ import annotations

import gzip
import json

import pytest

from analysis.judge.findings import HOLDS
from testbed import ROOT
from testbed.studies import runner as study
from testbed.run.progress import Progress
from verdicts import assert_verdicts, by_key, rule

# one worker for the RPC programs' tests (pytest -n): the Ctrl-C test checks that no /tmp/tb-rpc-*
# socket folder is left, which another test's running programs would hold
pytestmark = pytest.mark.xdist_group("rpc-programs")

FINDING_KEYS = {"null_rpc", "speedup_shrinks", "raw_latency", "rpc_layer", "null_split", "null_bytes"}


def expected_verdicts(rows: list[dict]) -> dict[str, str]:
    """Each finding's verdict by its rule (analysis/studies/rpc_findings.py), recomputed here from
    summary.json's rows: the timings are this host's, so the verdict is whatever they give, but
    it must be the one they give. The null call's bytes do not depend on the host: 44 and 28."""
    def row(system, transport, size):
        return next(r for r in rows if (r["system"], r["transport"], r["size"]) == (system, transport, size))

    def lightest(system):       # user-level (spinning first), else the Unix socket
        have = {r["transport"] for r in rows if r["system"] == system}
        return next(t for t in ("shm-spin", "shm-futex", "unix") if t in have)

    def speedup(system, transport, size):
        return row(system, "tcp", size)["median_us"] / row(system, transport, size)["median_us"]

    def share(system, transport):       # the RPC layer's share of the null call: null - raw round trip
        null = row(system, transport, None)["median_us"]
        return (null - 2 * row("raw", transport, 4)["half_rtt_us"]) / null

    raw_user = next(t for t in ("shm-spin", "shm-futex") if any(
        (r["system"], r["transport"], r["size"]) == ("raw", t, 4) for r in rows))
    gsoap = lightest("gsoap")
    split = row("gsoap", gsoap, None)
    onc_tcp = row("onc", "tcp", None)
    return {
        "raw_latency": rule(row("raw", "tcp", 4)["half_rtt_us"] / row("raw", raw_user, 4)["half_rtt_us"] >= 2),
        "null_rpc": rule(speedup("gsoap", gsoap, None) >= 2),
        "speedup_shrinks": rule(all(speedup(s, lightest(s), 4096) < speedup(s, lightest(s), None)
                                    for s in ("onc", "gsoap"))),
        "rpc_layer": rule(all(share(s, lightest(s)) > share(s, "tcp") for s in ("onc", "gsoap"))),
        "null_split": rule(split["transport_us"] / split["median_us"] > 0.5),
        "null_bytes": rule((onc_tcp["request_bytes"], onc_tcp["response_bytes"]) == (44, 28)),
    }


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
    expected = expected_verdicts(summary["rows"])
    assert expected["null_bytes"] == HOLDS
    assert_verdicts(by_key(summary), expected)
    assert summary["lost"] == []
    html = (folder / "report.html").read_text()
    assert html.index('id="findings"') < html.index('id="latency"') < html.index('id="method"') < html.index('id="settings"')
    for name in ("latency", "speedup", "split"):
        assert (folder / "plots" / f"{name}.png").stat().st_size > 0
