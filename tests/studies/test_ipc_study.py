"""The IPC study as a study (loadgen/experiments/ipc.toml, cli/testbed/studies/ipc.py,
analysis/studies/ipc.py): its parameters, its points, the verdicts its findings compute from
data, and end to end: a --quick run yields a complete folder, a Ctrl-C leaves nothing behind."""
from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import method_anchors
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURED
from analysis.judge.method import IPC
from analysis.studies import ipc as aipc
from testbed import ROOT
from testbed.studies import runner as study
from testbed.run.progress import Progress
from testbed.studies import ipc, ipc_objects
from verdicts import assert_verdicts, by_key, rule

TOML = ROOT / "loadgen" / "experiments" / "ipc.toml"


def params(**over) -> dict:
    return {**copy.deepcopy(ipc.PARAMS), **over}


def test_the_experiment_file_is_a_study_and_its_quick_table_is_smaller():
    full, quick = study.load(TOML), study.load(TOML, quick=True)
    assert full.kind == "ipc" and full.params["repeat"] == 5 and full.params["bytes"] == 100_000_000
    assert full.params["sizes"] == [71, 512]
    assert quick.params["bytes"] < full.params["bytes"] and len(quick.points()) < len(full.points())


@pytest.mark.parametrize("key,value,says", [
    ("mechanisms", ["fifo", "smoke-signals"], "mechanisms"),
    ("sizes", [4], "sizes"),
    ("sweep_sizes", "64", "sweep_sizes must be a list of whole numbers"),
    ("bytes", 0, "bytes"),
    ("bytes", 50, "less than one message"),
    ("min_rate", -1, "min_rate"),
])
def test_bad_parameters_are_refused_naming_the_key(key, value, says):
    with pytest.raises(study.StudyError, match=says):
        ipc.check(params(**{key: value}))


def test_points_cover_every_mechanism_and_skip_sizes_over_its_limit():
    limits = ipc.kernel_limits()
    top = limits["sysv-mq"]["max_size"]
    pts, skipped = ipc.plan(params(sweep_sizes=[16, 512, top, top * 2]))
    ids = [p.id for p in pts]
    assert len(ids) == len(set(ids))
    assert {p.params["mechanism"] for p in pts if p.params["size"] == 71} == set(ipc.MECHANISMS)
    assert [p.params["size"] for p in pts if p.params["mechanism"] == "fifo"] == [71, 512, 16, top, top * 2]
    assert f"sysv-mq-{top * 2}" not in ids and f"sysv-mq-{top}" in ids
    assert {"mechanism": "sysv-mq", "size": top * 2, "limit": top, "source": limits["sysv-mq"]["source"]} in skipped
    main = next(p for p in pts if p.id == "fifo-71")
    assert main.params["messages"] == 100_000_000 // 71 and main.params["group"] == "main"
    sweep = next(p for p in pts if p.id == "fifo-16")
    assert sweep.params["messages"] == ipc.PARAMS["sweep_messages"]       # capped: 16 B would take minutes
    assert sweep.timeout_s > sweep.params["messages"] / ipc.PARAMS["min_rate"]


# ---- the analysis, on samples made here: verdicts follow the data ---------------------------------

def _sample(mech, size, real, rep=0, status="ok"):
    n = 100_000_000 // size
    data = {"mechanism": mech, "size": size, "messages": n, "bytes": n * size, "real_s": real, "valid": True,
            "client": {"user_s": real * 0.1, "sys_s": real * 0.4}, "server": {"user_s": real * 0.1, "sys_s": real * 0.3},
            "messages_per_s": n / real, "mb_per_s": n * size / real / 1e6, "left_behind": []}
    return {"point": f"{mech}-{size}", "label": f"{mech}, {size} B", "repeat": rep, "status": status,
            "params": {"mechanism": mech, "size": size}, "data": data}


def _experiment(mechs=("unix-stream", "fifo", "sysv-mq"), sizes=(71, 512)):
    pts = []
    for s in sizes:
        for m in mechs:
            n = 100_000_000 // s
            pts.append({"id": f"{m}-{s}", "label": f"{m}, {s} B",
                        "params": {"mechanism": m, "size": s, "messages": n, "bytes": n * s, "group": "main"}})
    return {"points": pts, "params": {"repeat": 3}, "environment": {}}


def _verdicts(times: dict) -> dict:
    """times: (mech, size) -> [real seconds of each run]"""
    samples = [_sample(m, s, t, i) for (m, s), ts in times.items() for i, t in enumerate(ts)]
    found = aipc.summarize(_experiment(), samples)["findings"]
    method_anchors.check(found, IPC)            # each names its section of docs/method.md
    return {f["key"]: f for f in found}


CLASSIC = {("unix-stream", 71): [4.6, 4.7, 4.9], ("fifo", 71): [2.8, 2.9, 3.1], ("sysv-mq", 71): [2.7, 3.0, 3.0],
           ("unix-stream", 512): [0.60, 0.62, 0.61], ("fifo", 512): [0.45, 0.47, 0.5], ("sysv-mq", 512): [0.48, 0.5, 0.5]}


def test_the_classic_figures_make_every_finding_hold():
    v = _verdicts(CLASSIC)
    assert {k: f["verdict"] for k, f in v.items()} == {
        "fifo-equals-queue": HOLDS, "socket-slower": HOLDS, "gap-narrows": HOLDS, "rate-floor": HOLDS}
    assert "4.70 s [4.60–4.90]" in v["socket-slower"]["measured"]


def test_verdicts_turn_when_the_data_does():
    slow_queue = {**CLASSIC, ("sysv-mq", 71): [4.0, 4.1, 4.2]}
    assert _verdicts(slow_queue)["fifo-equals-queue"]["verdict"] == DOES_NOT_HOLD
    fast_socket = {**CLASSIC, ("unix-stream", 71): [3.0, 3.1, 3.2]}
    v = _verdicts(fast_socket)
    assert v["socket-slower"]["verdict"] == DOES_NOT_HOLD
    wider = {**CLASSIC, ("unix-stream", 512): [1.0, 1.0, 1.0]}
    assert _verdicts(wider)["gap-narrows"]["verdict"] == DOES_NOT_HOLD
    slow = {**CLASSIC, ("unix-stream", 71): [7.0, 7.1, 7.2]}            # 1.41 M messages in 7.1 s: 198 000/s
    assert _verdicts(slow)["rate-floor"]["verdict"] == DOES_NOT_HOLD


def test_invalid_runs_never_enter_a_median_and_missing_points_are_not_measured():
    samples = [_sample(m, s, t, i) for (m, s), ts in CLASSIC.items() for i, t in enumerate(ts)]
    bad = _sample("fifo", 71, 100.0, 3, status="invalid")
    rows = {(r["mechanism"], r["size"]): r for r in aipc.summarize(_experiment(), samples + [bad])["rows"]}
    assert rows[("fifo", 71)]["n"] == 3 and rows[("fifo", 71)]["real"]["max"] < 4
    only_fifo = [s for s in samples if s["params"]["mechanism"] == "fifo"]
    f = {x["key"]: x for x in aipc.summarize(_experiment(), only_fifo)["findings"]}
    assert f["socket-slower"]["verdict"] == NOT_MEASURED and f["fifo-equals-queue"]["verdict"] == NOT_MEASURED


# ---- end to end -------------------------------------------------------------------------------------

def expected_verdicts(rows: list[dict]) -> dict[str, str]:
    """Each finding's verdict by its rule (analysis/studies/ipc.py), recomputed here from
    summary.json's rows: every one rests on times measured on this host, so the verdict is
    whatever they give, but it must be the one they give."""
    real = {(r["mechanism"], r["size"]): r["real"]["median"] for r in rows}
    rate = {(r["mechanism"], r["size"]): r["messages_per_s"]["median"] for r in rows}
    gap = {s: real["unix-stream", s] / ((real["fifo", s] + real["sysv-mq", s]) / 2) for s in (71, 512)}
    return {
        "fifo-equals-queue": rule(all(max(real["fifo", s], real["sysv-mq", s]) / min(real["fifo", s], real["sysv-mq", s])
                                      <= 1.25 for s in (71, 512))),
        "socket-slower": rule(real["unix-stream", 71] / max(real["fifo", 71], real["sysv-mq", 71]) >= 1.10),
        "gap-narrows": rule(gap[71] > 1 and gap[512] <= gap[71] - 0.05),
        "rate-floor": rule(min(v for (_, s), v in rate.items() if s in (71, 512) and v is not None)
                           >= 240_000 * 0.95),
    }


def _ours(pid: int) -> list[str]:
    return ipc_objects.leftovers(ipc_objects.names(pid))


@pytest.mark.parametrize("times", [CLASSIC, {**CLASSIC, ("sysv-mq", 71): [4.0, 4.1, 4.2]},
                                   {**CLASSIC, ("unix-stream", 71): [3.0, 3.1, 3.2]},
                                   {**CLASSIC, ("unix-stream", 512): [1.0, 1.0, 1.0]},
                                   {**CLASSIC, ("unix-stream", 71): [7.0, 7.1, 7.2]}])
def test_the_end_to_end_check_recomputes_each_verdict_as_the_analysis_gives_it(times):
    samples = [_sample(m, s, t, i) for (m, s), ts in times.items() for i, t in enumerate(ts)]
    summary = aipc.summarize(_experiment(), samples)
    assert expected_verdicts(summary["rows"]) == {k: f["verdict"] for k, f in by_key(summary).items()}


@pytest.mark.slow
@pytest.mark.xdist_group("ipc")      # beside test_ipc_programs.py's objects of dead pids, never at once
@pytest.mark.skipif(not ipc.BINARY.exists(), reason="tb-ipc not built: ./testbed build")
def test_a_quick_run_yields_a_complete_folder_and_leaves_nothing(tmp_path):
    s = study.load(TOML, quick=True, repeat=1)
    runner = study.StudyRunner(s, tmp_path, progress=Progress(stream=open(os.devnull, "w")))
    folder = runner.run()
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete" and exp["measurements"]["ok"] == len(s.points())
    assert set(exp["environment"]["limits"]) == set(ipc.MECHANISMS)
    summary = json.loads((folder / "summary.json").read_text())
    assert [f["key"] for f in summary["findings"]] == ["fifo-equals-queue", "socket-slower", "gap-narrows", "rate-floor"]
    assert_verdicts(by_key(summary), expected_verdicts(summary["rows"]))
    assert summary["lost"] == [] and summary["left_behind"] == []
    html = (folder / "report.html").read_text()
    for anchor in ('id="findings"', 'id="ipc-main"', 'id="ipc-sweep"', 'id="ipc-choice"', 'id="ipc-limits"',
                   'id="settings"'):
        assert anchor in html
    assert html.index('id="findings"') < html.index('id="ipc-main"') < html.index('id="settings"')
    assert (folder / "plots" / "times.png").stat().st_size > 0 and (folder / "plots" / "sweep.png").stat().st_size > 0
    assert _ours(os.getpid()) == [] and not ipc_objects.names().dir.exists()


@pytest.mark.slow
@pytest.mark.xdist_group("ipc")      # beside test_ipc_programs.py's objects of dead pids, never at once
@pytest.mark.skipif(not ipc.BINARY.exists(), reason="tb-ipc not built: ./testbed build")
def test_ctrl_c_keeps_finished_measurements_and_leaves_no_queue_fifo_or_segment(tmp_path):
    p = subprocess.Popen([str(ROOT / "testbed"), "run", "ipc", "--quick", "--results", str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    names = ipc_objects.names(p.pid)                       # `testbed` execs the Python CLI: same pid
    until = time.monotonic() + 60
    samples = None
    while time.monotonic() < until and p.poll() is None:   # wait for a few measurements and a live channel
        found = list(tmp_path.glob("ipc-*/samples.jsonl"))
        if found and len(found[0].read_text().splitlines()) >= 3 and ipc_objects.leftovers(names):
            samples = found[0]
            break
        time.sleep(0.02)
    assert samples is not None, "the run did not get going"
    os.killpg(p.pid, signal.SIGINT)                        # Ctrl-C on a terminal reaches the group
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 130, out
    exp = json.loads((samples.parent / "experiment.json").read_text())
    assert exp["status"] == "interrupted" and exp["measurements"]["ok"] >= 3
    assert (samples.parent / "report.html").exists()
    assert _ours(p.pid) == [] and not names.dir.exists()
    ipcs = subprocess.run(["ipcs", "-q"], capture_output=True, text=True, check=True).stdout
    assert f"{names.key:#010x}" not in ipcs
    assert not Path("/dev/shm", names.base).exists()
