"""`./testbed run serialization --quick` end to end: both programs, both services started
on free ports by the study, a complete result folder whose report opens with the findings."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURABLE, NOT_MEASURED
from testbed.studies import runner as study
from testbed.run.progress import Progress
from verdicts import assert_verdicts, by_key, rule

FILE = Path(__file__).resolve().parents[2] / "loadgen" / "experiments" / "serialization.toml"
KEYS = {"bloat", "array-vs-buffer", "ser-vs-deser", "doubles-vs-floats", "formatting-dominates"}


ITEM = {"sendBytes": 1, "sendInts": 4, "sendFloats": 4, "sendDoubles": 8}   # bytes of one item
# message sizes: the same seeded items make the same XML on any machine
FIXED = {"bloat": HOLDS, "array-vs-buffer": DOES_NOT_HOLD, "shortest-floats": HOLDS}


def expected_verdicts(summary: dict, params: dict) -> dict[str, str]:
    """Each finding's verdict by its rule (analysis/studies/serialization_findings.py and
    serialization_proposals.py), recomputed here from summary.json's rows. Sizes are fixed by the
    data, so their verdicts are asserted (FIXED) and recomputed; times are this host's, so their
    verdict is whatever the rows give, but it must be the one they give."""
    rows, writers = summary["messages"], {w["impl"]: w for w in summary["writers"]}

    def row(impl, op, n):
        return next((r for r in rows if (r["impl"], r["op"], r["n"]) == (impl, op, n)), None)

    def ms(impl, op, n, what="ser_ms"):
        return row(impl, op, n)[what]["median"]
    classic = sorted({r["raw_size"] for r in rows if "classic" in r["groups"] and r["raw_size"]})
    tuned = [r for r in rows if r["impl"] == "gsoap-tuned" and "classic" in r["groups"]]
    out = {
        "bloat": rule(all(max(ov, key=ov.get) == "sendBytes" and min(ov, key=ov.get) == "sendDoubles"
                          for ov in ({op: row("gsoap", op, raw // k)["overhead_pct"] for op, k in ITEM.items()}
                                     for raw in classic))),
        "array-vs-buffer": rule(all(1.6 * 0.85 <= row("gsoap", "sendInts", n)["xml_bytes"]
                                    / row("gsoap", "sendIntBuffer", n)["xml_bytes"] <= 1.6 * 1.15
                                    for n in params["buffer_counts"])),
        "shortest-floats": rule(all(r["xml_bytes"] < row("gsoap", r["op"], r["n"])["xml_bytes"]
                                    for r in tuned if r["op"] in ("sendFloats", "sendDoubles"))),
        "ser-vs-deser": rule(all(r["ser_over_deser"] > 1 for r in rows
                                 if (r["impl"], r["op"]) == ("gsoap", "sendInts") and r["ser_over_deser"])),
        "doubles-vs-floats": rule(all(ms("gsoap", "sendDoubles", n) > ms("gsoap", "sendFloats", n)
                                      for n in params["float_counts"] if n >= 1000)),
        "formatting-dominates": rule(all(ms("gsoap", op, 100_000) >= 2 * ms("gsoap", "sendInts", 100_000)
                                         for op in ("sendFloats", "sendDoubles"))),
        "tuned-vs-generated": rule(all(ms("gsoap", r["op"], r["n"], k) > r[k]["median"]
                                       for r in tuned for k in ("ser_ms", "deser_ms"))),
        "tuned-vs-axis": rule(all(ms("gsoap-tuned", op, raw // ITEM[op], k) < ms("axis", op, raw // ITEM[op], k)
                                  for raw in (1 << 10, 1 << 20) for op in ("sendFloats", "sendDoubles")
                                  for k in ("ser_ms", "deser_ms"))),
    }
    calls = {(x["option"], x["raw_size"]): x["call_ms"]["median"] for x in summary["transmit"]
             if x.get("impl", "gsoap") == "gsoap"}
    for key, option, better in (("chunked", "chunk", lambda a, b: b < a), ("store", "store", lambda a, b: b < a),
                                ("keepalive", "close", lambda a, b: a < b)):
        pairs = [(calls[o, raw], calls[option, raw]) for o, raw in calls if o == "length" and (option, raw) in calls]
        out[key] = rule(all(better(a, b) for a, b in pairs)) if pairs else NOT_MEASURED
    tech = writers["gsoap"]["techniques"]
    out["hand-writer"] = rule(tech["hand"]["ms"]["median"] < tech["printf"]["ms"]["median"])
    over = tech["tuned"]["over_itoa"]
    out["writer-goal"] = NOT_MEASURABLE if over is None else rule(over <= 2.0)
    return out


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
    found = by_key(summary)
    expected = expected_verdicts(summary, s.params)
    assert KEYS <= set(found) and set(found) == set(expected)
    assert {k: expected[k] for k in FIXED} == FIXED
    assert_verdicts(found, expected)
    assert summary["lost"] == [] and summary["unstable_sizes"] == []
    assert all(r["ser_ms"]["median"] > 0 and r["deser_ms"]["median"] > 0 for r in summary["messages"])
    html = (folder / "report.html").read_text()
    assert html.index('id="findings"') < html.index('id="sizes"') < html.index('id="settings"')
    assert {p.name for p in (folder / "plots").iterdir()} >= {"overhead.png", "writers.png", "transmit.png"}
    for svc in (exp["environment"].get("services") or {}).values():
        port = int(svc.split(":")[2].split("/")[0])
        from testbed import procs
        assert procs.port_free(port), f"the study's service on {port} is still running"
