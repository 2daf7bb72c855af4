"""`report`: derived files regenerated from a result folder's raw files alone."""
import csv
import json
import shutil

import pytest

from analysis import summary
from analysis.load.folder import NotAResultFolder, load
from analysis.render import report

SAMPLES = ["real-sample", "segments-handmade", "clones-handmade", "calibration-handmade"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory, data):
    out = {}
    for name in SAMPLES:
        dest = tmp_path_factory.mktemp(name)
        out[name] = (dest, report.regenerate(data / name, dest))
    return out


@pytest.mark.parametrize("name", SAMPLES)
def test_report_writes_every_derived_file(reports, name):
    dest, written = reports[name]
    for f in ("steps.csv", "summary.json", "report.html", "plots/throughput.png", "plots/throughput.svg"):
        assert (dest / f).is_file() and f in written
    assert len(list((dest / "plots").glob("cpu-*.png"))) == len(json.loads((dest / "summary.json").read_text())["runs"])


@pytest.mark.parametrize("name", SAMPLES)
def test_report_html_contains_every_table_of_its_kind(reports, name):
    dest, _ = reports[name]
    kind = json.loads((dest / "summary.json").read_text())["experiment"]["kind"]
    text = (dest / "report.html").read_text()
    for table_id in report.TABLE_IDS["common"] + report.TABLE_IDS[kind]:
        assert f'<table id="{table_id}">' in text, table_id
    assert 'id="method"' in text


@pytest.mark.parametrize("name", SAMPLES)
def test_report_html_is_self_contained(reports, name):
    text = (reports[name][0] / "report.html").read_text()
    assert "<script" not in text and "<link" not in text and 'src="http' not in text
    assert text.count('src="data:image/png;base64,') >= 2


def test_segments_summary_has_the_decomposition_of_the_sample(reports):
    s = json.loads((reports["segments-handmade"][0] / "summary.json").read_text())
    t = {g["segment"]: g["throughput"] for g in s["segments"]}
    assert t == pytest.approx({1: 3000.0, 2: 1000.0, 3: 3000.0, 4: 3000.0, 5: 125.0})
    path4 = next(p for p in s["paths"] if p["path"] == 4)
    assert (path4["max_throughput"], path4["runs"], path4["spread"]) == (500.0, 3, pytest.approx(0.06))
    assert s["composition"][0]["whole_path"] == pytest.approx(100.0)
    assert s["capacity"][0]["users"] == pytest.approx(4 + 100.0 * 1.0)


def test_a_run_with_think_time_is_left_out_of_the_segment_law(data, tmp_path, monkeypatch):
    folder = tmp_path / "folder"
    shutil.copytree(data / "segments-handmade", folder)
    e = json.loads((folder / "experiment.json").read_text())
    e["definition"] = {"runs": [{"id": "path4-r2", "load": {"think_time": 0.02}},   # e.g. tracing's low-load run
                                {"id": "path4-r1", "load": {"think_time": 0.0}}]}
    (folder / "experiment.json").write_text(json.dumps(e))
    s = summary.analyse(load(folder), simulate=False).summary
    path4 = next(p for p in s["paths"] if p["path"] == 4)
    assert path4["runs"] == 2 and "path4-r2" not in path4["run_ids"]
    assert "path4-r2" in {r["id"] for r in s["runs"]}            # still a run of the folder
    # a low-load run never reaches a plateau: its hint says why instead of asking for more users
    from analysis.measure import bottleneck
    monkeypatch.setattr(summary.bottleneck, "hint", lambda *a, **k: bottleneck.Hint(bottleneck.RISING, "add users"))
    hints = {r["id"]: r["bottleneck"]["text"] for r in summary.analyse(load(folder), simulate=False).summary["runs"]}
    assert hints["path4-r2"].startswith("low load by design (think time 0.02 s") and hints["path4-r1"] == "add users"


def test_flagged_steps_are_excluded_and_explained(reports):
    s = json.loads((reports["segments-handmade"][0] / "summary.json").read_text())
    flags = {(x["run_id"], x["step"]): set(x["flags"]) for x in s["excluded_steps"]}
    assert "high_errors" in flags[("path2-r0", 2)] and "loadgen_saturated" in flags[("path3-r0", 4)]
    assert "incomplete" in flags[("path5-r0", 4)]
    assert any("cut file" in x["what"] for x in s["lost"])
    assert next(r for r in s["runs"] if r["id"] == "path2-r0")["max_throughput"] == 750.0


def test_clones_summary_shows_scaling_and_both_bottleneck_kinds(reports):
    s = json.loads((reports["clones-handmade"][0] / "summary.json").read_text())
    runs = {r["id"]: r for r in s["runs"]}
    assert runs["single-c4-a1"]["speedup"] == pytest.approx(3.7)
    assert runs["single-c1-a4"]["scaling"] == "service tier"
    assert runs["pool-c1-a1"]["vs_singleton"] == pytest.approx(6.0)
    assert runs["single-c1-a1"]["bottleneck"]["kind"] == "software"
    assert runs["single-c1-a1"]["bottleneck"]["threaddumps"][0]["blocked"] == 7
    assert runs["pool-c1-a1"]["bottleneck"]["kind"] == "cpu"
    assert set(runs["pool-c1-a1"]["cpu_at_plateau"]) >= {"front", "clone", "axis"}


def test_calibration_summary_names_the_matching_law_per_regime(reports):
    s = json.loads((reports["calibration-handmade"][0] / "summary.json").read_text())
    matched = {c["regime_declared"]: c["matched"] for c in s["calibration"]}
    assert matched == {"serial": "serial", "parallel": "bottleneck"}
    parallel = next(c for c in s["calibration"] if c["regime_declared"] == "parallel")
    assert parallel["paths"][-1]["bottleneck_resource"] == "lock of clone"


def test_real_sample_plateaus_at_idle_cpu(reports):
    s = json.loads((reports["real-sample"][0] / "summary.json").read_text())
    (run,) = s["runs"]
    assert run["max_throughput"] > 0 and run["valid_steps"] == 3
    assert run["bottleneck"]["kind"] in ("software", "rising")


def test_steps_csv_has_one_row_per_step(reports):
    dest, _ = reports["segments-handmade"]
    with open(dest / "steps.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 7 * 5 and {r["excluded"] for r in rows} == {"0", "1"}


def test_report_goes_into_the_folder_by_default_and_needs_only_raw_files(tmp_path, data):
    folder = tmp_path / "copy"
    shutil.copytree(data / "real-sample", folder)
    report.regenerate(folder)
    first = (folder / "summary.json").read_text()
    report.regenerate(folder)                         # derived files present: same result
    assert (folder / "summary.json").read_text() == first


def test_folder_without_experiment_json_names_what_is_missing(tmp_path):
    (tmp_path / "runs/r1").mkdir(parents=True)
    (tmp_path / "runs/r1/run.json").write_text("{}")
    with pytest.raises(NotAResultFolder, match="experiment.json"):
        load(tmp_path)


def test_missing_cpu_csv_is_reported_as_lost_not_fatal(tmp_path, data):
    folder = tmp_path / "copy"
    shutil.copytree(data / "real-sample", folder)
    (folder / "runs/path1-r0/cpu.csv").unlink()
    s = summary.build(folder)
    assert any("cpu.csv missing" in x["what"] for x in s["lost"])
    assert s["runs"][0]["max_throughput"] > 0


def test_steps_come_from_the_step_log_when_run_json_has_none(tmp_path, data):
    folder = tmp_path / "copy"
    shutil.copytree(data / "real-sample", folder)
    meta = json.loads((folder / "runs/path1-r0/run.json").read_text())
    log = "".join(json.dumps({k: v for k, v in st.items() if k != "end"}) + "\n"
                  + json.dumps({"index": st["index"], "end": st["end"]}) + "\n" for st in meta.pop("steps"))
    (folder / "runs/path1-r0/run.json").write_text(json.dumps(meta))
    (folder / "runs/path1-r0/steps.jsonl").write_text(log)
    s = summary.build(folder)
    assert s["runs"][0]["valid_steps"] == 3 and any("steps.jsonl" in x["what"] for x in s["lost"])


def test_one_unreadable_run_json_is_lost_not_fatal(tmp_path, data):
    folder = tmp_path / "copy"
    shutil.copytree(data / "segments-handmade", folder)
    (folder / "runs/path3-r0/run.json").write_text('{"id": "path3-r0", "steps": [')
    s = summary.build(folder)
    assert s["runs_total"] == 6 and any("path3-r0" in x["what"] for x in s["lost"])
    assert next(g for g in s["segments"] if g["segment"] == 3)["throughput"] is None


def test_settings_that_are_not_numbers_name_the_problem(tmp_path, data):
    folder = tmp_path / "copy"
    shutil.copytree(data / "real-sample", folder)
    exp = json.loads((folder / "experiment.json").read_text())
    exp["settings"]["tolerance"] = "three percent"
    (folder / "experiment.json").write_text(json.dumps(exp))
    with pytest.raises(NotAResultFolder, match="settings"):
        load(folder)


def test_exact_latencies_replace_locusts_and_an_open_loop_shows_its_schedule(tmp_path, data):
    from analysis.load.latency import INTENDED, LAG, LOG_FILE, LogWriter, new_histogram
    folder = tmp_path / "copy"
    shutil.copytree(data / "real-sample", folder)
    report.regenerate(folder)                         # no latency.hlog: Locust's figures, said so
    assert "this folder has no latency.hlog" in (folder / "report.html").read_text()
    closed = json.loads((folder / "summary.json").read_text())
    assert all(r["latency"]["source"] == "locust" for r in closed["runs"])
    run_dir = next((folder / "runs").iterdir())
    steps = json.loads((run_dir / "run.json").read_text())["steps"]
    w = LogWriter(run_dir / LOG_FILE)
    for st in steps:                                  # 0.5 s intervals through each step's window
        t = st["measure_from"]
        while t + 0.5 <= st["end"]:
            for tag, value in (("", 4000), (INTENDED, 9000), (LAG, 5000)):
                h = new_histogram()
                h.record_value(value, 10)
                w.interval(t, t + 0.5, value, h.encode().decode("ascii"), tag)
            t += 0.5
    w.close()
    report.regenerate(folder)
    s = json.loads((folder / "summary.json").read_text())
    html = (folder / "report.html").read_text()
    assert "p99 from the schedule ms" in html and "coordinated omission" in html
    lat = next(r["latency"] for r in s["runs"] if r["id"] == run_dir.name)
    assert lat["source"] == "hdr" and lat["steps"][0]["p99_ms"] == pytest.approx(4.0, rel=1e-3)
    assert lat["steps"][0]["intended"]["p99_ms"] == pytest.approx(9.0, rel=1e-3) and lat["steps"][0]["dropped"] == 0
    rows = [r for r in csv.DictReader(open(folder / "steps.csv")) if r["run_id"] == run_dir.name]
    assert {r["latency_source"] for r in rows} == {"hdr"} and float(rows[0]["intended_p99_ms"]) == pytest.approx(9.0, rel=1e-3)
