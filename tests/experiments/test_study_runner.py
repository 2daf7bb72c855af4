"""The study runner (cli/testbed/studies/runner.py) and the study report (analysis/render/study_report.py),
with a small study defined here: its measurement is a real Python process run by run_json."""
from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from analysis.judge.findings import HOLDS, NOT_MEASURED, Finding
from analysis.render import pages
from testbed.studies import runner as study
from testbed.run.progress import Progress

PY = sys.executable


def _measure(ctx, point, rep):
    mode = point.params["mode"]
    if mode == "ok":
        code = f"import json; print('noise'); print(json.dumps({{'value': {point.params['value']} + {rep}}}))"
    elif mode == "slow":
        code = "import time; time.sleep(30)"
    elif mode == "crash":
        code = "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"
    else:                                  # the program ran, but its data is wrong
        code = "import json; print(json.dumps({'valid': False, 'invalid_reason': 'checksum mismatch'}))"
    return ctx.run_json([PY, "-c", code], timeout=point.timeout_s)


def _summarize(experiment, samples):
    ok = [s["data"]["value"] for s in samples if s["status"] == "ok"]
    f = Finding("values are positive", ", ".join(map(str, ok)) or "—", "", HOLDS if ok else NOT_MEASURED,
                "every value > 0", key="positive", method="")     # a made-up study: no section of the method
    return {"values": ok, "findings": [f.to_json()]}


def _figures(summary):
    from matplotlib.figure import Figure
    fig = Figure()
    fig.add_subplot().plot(summary["values"] or [0])
    return {"values": fig}


@pytest.fixture
def echo_study(monkeypatch):
    cleaned = []
    m = types.ModuleType("testbed.studies.echo")
    m.PARAMS = {"repeat": 2, "modes": ["ok"], "value": 1}

    def check(params):
        bad = [x for x in params["modes"] if x not in ("ok", "slow", "crash", "wrong")]
        if bad:
            raise study.StudyError(f"modes: unknown {bad}")
    m.check = check
    m.points = lambda p: [study.Point(f"m-{x}", f"mode {x}", {"mode": x, "value": p["value"]},
                                      timeout_s=1.5 if x == "slow" else 30) for x in p["modes"]]
    m.prepare = lambda ctx: ctx.facts.update(prepared=True)
    m.measure = _measure
    m.cleanup = lambda ctx: cleaned.append(ctx.folder)
    m.describe = lambda d: f"value {d['value']}"
    a = types.ModuleType("analysis.studies.echo")
    a.METHOD = "run a Python process that prints a number"
    a.summarize = _summarize
    a.figures = _figures
    a.TEMPLATE = pages.ENV.from_string('{% extends "study.html.j2" %}{% from "macros.html.j2" import image %}'
                                       '{% block sections %}<h2>Values</h2>{{ image(images["values"], "values") }}'
                                       '{% endblock %}')
    monkeypatch.setitem(sys.modules, "testbed.studies.echo", m)
    monkeypatch.setitem(sys.modules, "analysis.studies.echo", a)
    return cleaned


def _file(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "echo.toml"
    p.write_text('name = "echo"\nkind = "echo"\ndescription = "test"\n' + body)
    return p


def _run(tmp_path, body, quick=False, repeat=None):
    s = study.load(_file(tmp_path, body), quick=quick, repeat=repeat)
    r = study.StudyRunner(s, tmp_path / "results", progress=Progress(stream=open("/dev/null", "w")))
    return r, r.run()


def test_study_writes_samples_summary_and_a_findings_first_report(tmp_path, echo_study):
    runner, folder = _run(tmp_path, "[params]\nvalue = 5\n")
    samples = [json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()]
    assert [(s["point"], s["repeat"], s["status"], s["data"]["value"]) for s in samples] == \
        [("m-ok", 0, "ok", 5), ("m-ok", 1, "ok", 6)]
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete" and exp["study"] is True and exp["environment"] == {"prepared": True}
    assert exp["params"]["value"] == 5 and (folder / "experiment.toml").exists()
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["findings"][0]["verdict"] == HOLDS and summary["lost"] == []
    html = (folder / "report.html").read_text()
    assert html.index('id="findings"') < html.index("<h2>Values</h2>") < html.index('id="settings"')
    assert (folder / "plots" / "values.png").stat().st_size > 0
    assert echo_study == [folder]                 # cleanup ran


def test_quick_table_replaces_params_and_repeat_overrides(tmp_path, echo_study):
    s = study.load(_file(tmp_path, "[params]\nvalue = 5\n[quick]\nvalue = 7\nrepeat = 1\n"), quick=True)
    assert s.params["value"] == 7 and s.params["repeat"] == 1
    s = study.load(_file(tmp_path, "[params]\nvalue = 5\n[quick]\nvalue = 7\n"), quick=False, repeat=4)
    assert s.params["value"] == 5 and s.params["repeat"] == 4


def test_unknown_parameter_names_the_key_and_what_the_study_knows(tmp_path, echo_study):
    with pytest.raises(study.StudyError, match=r"unknown key\(s\) valeu; echo knows: modes, repeat, value"):
        study.load(_file(tmp_path, "[params]\nvaleu = 5\n"))
    with pytest.raises(study.StudyError, match="modes: unknown"):
        study.load(_file(tmp_path, '[params]\nmodes = ["nope"]\n'))


def test_failed_timed_out_and_invalid_measurements_are_recorded_and_the_study_goes_on(tmp_path, echo_study):
    runner, folder = _run(tmp_path, '[params]\nrepeat = 1\nmodes = ["crash", "slow", "wrong", "ok"]\n')
    by = {json.loads(x)["point"]: json.loads(x) for x in (folder / "samples.jsonl").read_text().splitlines()}
    assert by["m-crash"]["status"] == "failed" and "exited 3: boom" in by["m-crash"]["error"]
    assert by["m-slow"]["status"] == "timeout" and by["m-slow"]["seconds"] < 10
    assert by["m-wrong"]["status"] == "invalid" and by["m-wrong"]["error"] == "checksum mismatch"
    assert by["m-ok"]["status"] == "ok"
    summary = json.loads((folder / "summary.json").read_text())
    assert {r["where"] for r in summary["lost"]} >= {"mode crash", "mode slow", "mode wrong"}
    assert summary["measurements"] == {"ok": 1, "failed": 1, "timeout": 1, "invalid": 1}
    assert json.loads((folder / "experiment.json").read_text())["status"] == "complete"


def test_interrupted_study_keeps_finished_measurements_and_says_what_is_missing(tmp_path, echo_study, monkeypatch):
    calls = []
    mod = sys.modules["testbed.studies.echo"]

    def measure(ctx, point, rep):
        calls.append(rep)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return _measure(ctx, point, rep)
    monkeypatch.setattr(mod, "measure", measure)
    s = study.load(_file(tmp_path, "[params]\nrepeat = 3\n"))
    r = study.StudyRunner(s, tmp_path / "results", progress=Progress(stream=open("/dev/null", "w")))
    with pytest.raises(KeyboardInterrupt):
        r.run()
    exp = json.loads((r.folder / "experiment.json").read_text())
    assert exp["status"] == "interrupted"
    assert len((r.folder / "samples.jsonl").read_text().splitlines()) == 1
    summary = json.loads((r.folder / "summary.json").read_text())
    assert {"where": "mode ok", "what": "1 of 3 measurements valid"} in summary["lost"]
    assert echo_study == [r.folder]               # cleanup ran after the interrupt too


def test_report_verb_regenerates_a_study_folder_from_its_raw_files(tmp_path, echo_study):
    from analysis.render.report import regenerate
    _, folder = _run(tmp_path, "")
    (folder / "report.html").unlink()
    (folder / "summary.json").unlink()
    written = regenerate(folder, tmp_path / "again")
    assert set(written) >= {"summary.json", "report.html", "plots/values.png"}
    assert "values are positive" in (tmp_path / "again" / "report.html").read_text()


def test_a_cut_off_last_line_is_reported_not_fatal(tmp_path, echo_study):
    from analysis.render.study_report import summarize
    _, folder = _run(tmp_path, "")
    with open(folder / "samples.jsonl", "a") as f:
        f.write('{"point": "m-ok", "sta')
    s = summarize(folder)
    assert any("cut off" in r["what"] for r in s["lost"])
    assert s["values"] == [1, 2]


@pytest.mark.parametrize("value", [0, 11, True, 2.0, "3", None])
def test_whole_refuses_what_is_not_a_whole_number_in_range_naming_key_and_range(value):
    with pytest.raises(study.StudyError, match=r"with_work\.calls must be a whole number from 1 to 10 \(got "):
        study.whole({"calls": value}, "calls", 1, 10, where="with_work.")
    assert study.whole({"calls": 10}, "calls", 1, 10) == 10


@pytest.mark.parametrize("value", [[], [1, 0], [1, True], (1, 2), 5])
def test_wholes_refuses_an_empty_list_or_one_member_out_of_range(value):
    with pytest.raises(study.StudyError, match=r"^sizes must be a non-empty list of whole numbers from 1 to 9 \(got "):
        study.wholes({"sizes": value}, "sizes", 1, 9)
    assert study.wholes({"sizes": [1, 9]}, "sizes", 1, 9) == [1, 9]
    assert study.wholes({"sizes": []}, "sizes", 1, 9, empty=True) == []
