"""The report header's "Where the time went" (analysis/render/timetable.py), from experiment.json
"time" as the runner's ledger writes it; an older folder without it: no table, no error."""
import json
import shutil

import pytest

from analysis.render import report, timetable

TIME = {"wall_s": 1200.0, "report_s": 14.0, "unaccounted_s": 6.0,
        "phases": {"start-up": 60.0, "calibration": 0.0, "reconfiguration": 30.0, "priming": 240.0,
                   "measuring": 780.0, "hold": 20.0, "load generator": 64.0, "prediction": 0.0, "analysis": 0.0},
        "runs": [{"id": "path1-r0", "reconfiguration_s": 30.0, "priming_s": 240.0, "measuring_s": 780.0,
                  "hold_s": 20.0, "locust_s": 64.0, "steps": 6,
                  "warm": {"verdict": "steady", "seconds": 212.0, "why": "throughput within 3 % for 60 s"}},
                 {"id": "path2-r0", "reconfiguration_s": 0.0, "priming_s": 0.0, "warm": None,
                  "measuring_s": 0.0, "hold_s": 0.0, "locust_s": 0.0, "steps": 0}]}


@pytest.fixture(scope="module")
def pages(tmp_path_factory, data):
    """The same sample's report with experiment.json "time" and without it."""
    out = {}
    for name, time in (("with", TIME), ("without", None)):
        folder = tmp_path_factory.mktemp(name) / "segments"
        shutil.copytree(data / "segments-handmade", folder)
        if time is not None:
            e = json.loads((folder / "experiment.json").read_text())
            (folder / "experiment.json").write_text(json.dumps({**e, "time": time}))
        report.regenerate(folder)
        out[name] = (folder / "report.html").read_text()
    return out


def test_the_header_shows_where_the_time_went_with_each_runs_priming_evidence(pages):
    html = pages["with"]
    assert 'id="time"' in html and '<table id="time-phases">' in html and '<table id="time-runs">' in html
    assert ("20.0 min from start to end — measuring 13.0, priming 4.0 (1 by measurement: all steady), "
            "load generator 1.1, start-up 1.0 min; 0.5% outside every timed phase") in html
    assert "measuring (the steps, their warm-ups included)</td><td class=\"n\">13.0</td><td class=\"n\">65.0%" in html
    assert "calibration" not in html.split('id="time-phases"')[1].split("</table>")[0]   # a zero phase: no row
    assert "steady (212 s): throughput within 3 % for 60 s" in html
    runs = html.split('id="time-runs"')[1].split("</table>")[0]
    assert '<td>path2-r0</td><td class="n">0</td><td class="n">0</td><td><span class="na">—</span></td>' in runs
    assert "14 s when this page was remade" in html
    assert html.index('id="time"') < html.index('id="findings"')


def test_a_folder_without_time_has_no_table_and_no_error(pages):
    assert 'id="time' not in pages["without"] and '<table id="findings"' in pages["without"]


def test_the_brief_line_counts_the_primes_that_were_not_warm():
    runs = [{"warm": {"verdict": v}} for v in ("steady", "not warm", "none", "fixed")]
    assert timetable.brief({"phases": {"priming": 600.0, "measuring": 60.0}, "runs": runs}) == (
        "priming 10.0 (2 by measurement: 1 not warm), measuring 1.0 min")
    assert timetable.brief({"phases": {}}) == ""


def test_an_unusable_time_object_shows_nothing():
    assert timetable.view(None) is None and timetable.view({"error": "x"}) is None
    assert timetable.view({"wall_s": 0}) is None
    assert timetable.warm_text({"verdict": "fixed"}) == "fixed" and timetable.warm_text(None) is None
    assert timetable.warm_text({"verdict": "steady", "seconds": 42.0, "why": "steady after 42 s: x"}) == "steady after 42 s: x"

