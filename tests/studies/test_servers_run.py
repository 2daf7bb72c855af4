"""The servers study end to end: real server and client JVMs (studies/servers/target/servers.jar,
built by ./testbed build) driven by the study runner. Every model answers every message at small N
with the threads it promises, a stuck point is marked and stopped, and `--quick` yields a complete
result folder."""
from __future__ import annotations

import json
import re
import statistics
import subprocess
from pathlib import Path

import pytest

from testbed import ROOT
from testbed.studies import runner as study
from testbed.run.progress import Progress
from analysis.judge.findings import NOT_MEASURED
from analysis.studies.servers import sweeps
from verdicts import assert_verdicts, by_key, rule

# one worker runs the three: each checks that no servers.jar JVM is left running, which another
# of them running at the same time on another worker would break
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("servers-study")]


def _run(tmp_path: Path, body: str | None = None, quick: bool = False) -> tuple[study.StudyRunner, Path]:
    """Runs `body` (a study file's [params]), or the shipped servers.toml when None."""
    f = ROOT / "loadgen" / "experiments" / "servers.toml"
    if body is not None:
        f = tmp_path / "servers-test.toml"
        f.write_text('name = "servers-test"\nkind = "servers"\n' + body)
    runner = study.StudyRunner(study.load(f, quick=quick), tmp_path / "results",
                               progress=Progress(stream=open("/dev/null", "w")))
    return runner, runner.run()


def _samples(folder: Path) -> dict[str, dict]:
    return {json.loads(x)["point"]: json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()}


def _java_children() -> set[int]:
    out = subprocess.run(["pgrep", "-f", "studies/servers/target/servers.jar"], capture_output=True, text=True)
    return {int(x) for x in out.stdout.split()}


def test_every_model_answers_every_message_with_the_threads_it_promises(tmp_path):
    before = _java_children()
    _, folder = _run(tmp_path, """
[params]
repeat = 1
clients = [12]
lengths = [700]
pools = [3]
pool = 5
base_clients = 12
base_length = 700
messages = 5
min_total_messages = 0
work = ["wait:20000"]      # 5 messages of >= 20 ms: every connection stays open while all are accepted
with_work = { messages = 5, min_total_messages = 0 }
warmup_messages = 200
""")
    s = _samples(folder)
    assert {p: r["status"] for p, r in s.items()} == {
        "wait20000-thread-n12-l700": "ok", "wait20000-poller-n12-l700": "ok",
        "wait20000-pooled-n12-l700-k5": "ok", "wait20000-pooled-n12-l700-k3": "ok"}
    for r in s.values():
        d = r["data"]
        assert d["verified"] == d["expected"] == 12 * 5
        assert d["server"]["messages"] == 60 and d["server"]["ownership_violations"] == 0
    threads = {p.split("-", 1)[1]: r["data"]["server"]["threads_peak"] for p, r in s.items()}
    # one per open connection + the acceptor: all 12 are open at once on a quiet host, fewer when
    # a loaded one (a parallel suite) lets a client finish its 5 messages before the last connects
    # (11 threads for 10 connections seen once): the promise is the relation, not the 12
    conns = s["wait20000-thread-n12-l700"]["data"]["server"]["connections_peak"]
    assert 2 <= conns <= 12 and threads["thread-n12-l700"] == conns + 1
    assert threads["poller-n12-l700"] == 1
    assert threads["pooled-n12-l700-k5"] == 5 + 1                  # the pool + the selector
    assert threads["pooled-n12-l700-k3"] == 3 + 1
    assert s["wait20000-pooled-n12-l700-k3"]["data"]["server"]["busy_peak"] <= 3
    assert all(r["data"]["server"]["rss_peak_kb"] > 0 for r in s.values())
    assert _java_children() <= before                               # no server or client left running


def test_a_point_past_its_deadline_is_marked_timeout_and_the_study_goes_on(tmp_path):
    before = _java_children()
    _, folder = _run(tmp_path, """
[params]
repeat = 1
models = ["poller"]
clients = [4]
lengths = [64]
pools = [1]
base_clients = 4
base_length = 64
messages = 3
min_total_messages = 0
work = ["none", "wait:2000000"]     # a poller doing 4 × 3 waits of 2 s one by one: 24 s > 5 s
with_work = { pools = [1] }
warmup_messages = 0
deadline_s = 5
""")
    s = _samples(folder)
    assert s["none-poller-n4-l64"]["status"] == "ok"
    stuck = s["wait2000000-poller-n4-l64"]
    assert stuck["status"] == "timeout" and "deadline of 5 s" in stuck["error"]
    done, expected = map(int, re.search(r"after (\d+) of (\d+) messages", stuck["error"]).groups())
    assert done < expected == 4 * 3                                  # stopped, not waited out
    assert json.loads((folder / "experiment.json").read_text())["status"] == "complete"
    assert _java_children() <= before


def expected_verdicts(summary: dict) -> dict[str, str]:
    """Each finding's verdict by its rule (analysis/studies/servers_findings.py), recomputed here
    from summary.json's rows (grouped by sweep as the report groups them): every one rests on
    completion times measured on this host, so the verdict is whatever they give, but it must be
    the one they give."""
    def med(r):
        return r["completion"]["median"] if r else None

    def tolerance(rs):        # X: the larger of 10 % and the median run-to-run spread
        spreads = [(c["p75"] - c["p25"]) / c["median"] for c in (r["completion"] for r in rs)
                   if c["n"] >= 2 and c["median"]]
        return max(0.10, statistics.median(spreads)) if spreads else 0.10

    base, out = summary["base"], {}
    n0 = base["base_clients"]
    for work, s in sweeps(summary["rows"], base).items():
        pools = [r for r in s["pools"] if med(r)]
        limit, k_star = med(s["thread"]) * (1 + tolerance([s["thread"]] + pools)), None
        for r in reversed(pools):             # the smallest pool from which every larger one matches
            if med(r) > limit:
                break
            k_star = r["pool"]
        out[f"pool-matches-{work}"] = rule(k_star is not None and k_star <= 30 and k_star < n0)

        counts = sorted(n for n, m in s["clients"].items() if med(m.get("poller")) and len(m) > 1)
        x = tolerance([r for n in counts for r in s["clients"][n].values()])
        behind = {n: med(s["clients"][n]["poller"]) / min(med(r) for k, r in s["clients"][n].items() if k != "poller")
                  for n in counts}
        out[f"poller-{work}"] = rule(behind[counts[0]] <= 1 + x and all(behind[n] > 1 + x for n in counts[1:]))

        lengths = sorted(s["lengths"])
        models = {m for row in s["lengths"].values() for m in row}
        ends = {m: [med(s["lengths"][n][m]) for n in lengths if m in s["lengths"][n]] for m in models}
        ends = {m: v for m, v in ends.items() if len(v) >= 2}
        limit = max(0.25, tolerance([r for row in s["lengths"].values() for r in row.values()]))
        out[f"length-{work}"] = (rule(all(abs(v[-1] / v[0] - 1) <= limit for v in ends.values())) if ends
                                 else NOT_MEASURED)

        out[f"default-{work}"] = rule(med(s["default"]["pooled"]) < med(s["default"]["thread"]))
    return out


def test_quick_run_yields_a_complete_folder(tmp_path):
    _, folder = _run(tmp_path, quick=True)
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete" and exp["quick"] is True
    assert exp["environment"]["nofile"]["soft_used"] != "" and "jvm_options" in exp["environment"]
    assert exp["measurements"]["ok"] == len(exp["points"])
    summary = json.loads((folder / "summary.json").read_text())
    assert [f["key"] for f in summary["findings"]][:4] == ["pool-matches-none", "poller-none", "length-none",
                                                          "default-none"]
    unjudged = [f["key"] for f in summary["findings"] if f["verdict"] == "not measured"]
    assert unjudged == ["length-wait:1000"]                          # --quick runs one length with work
    assert_verdicts(by_key(summary), expected_verdicts(summary))
    for name in ("clients", "pools", "lengths", "threads"):
        assert (folder / "plots" / f"{name}.png").stat().st_size > 0
    html = (folder / "report.html").read_text()
    assert html.index('id="findings"') < html.index('id="default-none"') < html.index('id="settings"')
