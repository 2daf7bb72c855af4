"""The clone's collector per request, step by step (analysis/predict/clonegc.py), from the
clone_gc.csv the runner's sampler writes (cli/testbed/run/record/clienttime.py), in summary.json, the
report's tier table and validate — on the hand-made folder's client per request (its 2-clone
run's steps at 4, 8 and 16 users, 140/s each)."""
import functools
import json
from pathlib import Path

import pytest

from analysis.predict import clonegc, report_section, section, validate
from analysis.render import pages
from analysis.steps import StepSample
from handmade_probe import PROBE, request_run, with_probe

GC_MS = {4: 0.2, 8: 0.3, 16: 0.5}         # collector time a request at each step's users


def write_gc(run_dir: Path, x: float = 140.0, replicas: int = 1) -> None:
    """Cumulative collector counters once a second, growing at GC_MS × x per second per step."""
    meta = json.loads((run_dir / "run.json").read_text())
    rows = ["timestamp,replica,collections,gc_ns"]
    for rep in range(1, replicas + 1):
        gc = count = 0
        for st in meta["steps"]:
            t = st["start"]
            while t < st["end"]:
                rows.append(f"{t:.3f},{rep},{count},{int(gc)}")
                gc += GC_MS[st["users"]] * 1e6 * x / replicas
                count += st["users"] // 4
                t += 1.0
    (run_dir / clonegc.FILE).write_text("\n".join(rows) + "\n")


def test_the_sampler_writes_a_gc_row_from_the_clone_status():
    from testbed.run.record.clienttime import GC_HEADER, gc_row
    assert GC_HEADER == "timestamp,replica,collections,gc_ns\n"
    assert gc_row("2", {"gc": {"collections": 7, "time_ns": 30_000_000, "collectors": ["G1 Young Generation"]}},
                  12.5) == "12.500,2,7,30000000\n"
    assert gc_row("2", {"backends": {}}, 12.5) == "" and gc_row("2", {"gc": {"collections": "7"}}, 1.0) == ""


def test_a_steps_collector_time_is_each_replicas_increase_over_its_span_per_request():
    rows = [{"timestamp": t, "replica": r, "collections": c, "gc_ns": g} for t, r, c, g in (
        (10.0, "1", 1, 0), (12.0, "1", 3, 40_000_000), (14.0, "1", 5, 80_000_000),
        (10.5, "2", 0, 0), (13.5, "2", 3, 30_000_000),
        (11.0, "3", 9, 90_000_000), (12.0, "3", 0, 0))]     # replica 3 restarted inside: left out
    seconds, per_s = clonegc.window_rate(rows, 10.0, 14.0)
    assert seconds == pytest.approx(0.02 + 0.01) and per_s == pytest.approx(1.0 + 1.0)
    step = StepSample("r", 0, 16, start=9.0, measure_from=10.0, end=14.0, window_s=4.0, throughput=100.0)
    assert clonegc.per_step(rows, step) == pytest.approx(
        {"users": 16, "throughput": 100.0, "gc_s": 0.0003, "collections_per_s": 2.0})
    assert clonegc.window_rate(rows, 20.0, 30.0) is None
    assert clonegc.per_step(rows, StepSample("r", 0, 16, 9.0, 10.0, None, None, throughput=100.0)) is None


def test_the_report_and_validate_show_the_clones_collector_growing_with_the_users(handmade_folder, tmp_path, monkeypatch):
    heavy = {**PROBE, "cpu_s_per_build": {**PROBE["cpu_s_per_build"], "clone": 0.005}}   # misses by > 10 %
    with_probe(handmade_folder, tmp_path, heavy)
    copy = tmp_path / "with-probe"
    result, steps = request_run(copy, {"primed": True})
    write_gc(copy / "runs" / "request-c1-a1")
    rows = {tuple(r["runs"]): r for r in section.build(result, steps, simulate=False)["configurations"]}
    gc = rows[("request-c1-a1",)]["clone_gc"]
    assert (gc["lowest"]["users"], gc["highest"]["users"], gc["runs"]) == (4, 16, 1)
    assert gc["lowest"]["gc_s"] == pytest.approx(0.0002, rel=0.02) and gc["highest"]["gc_s"] == pytest.approx(0.0005, rel=0.02)
    assert gc["highest"]["collections_per_s"] == pytest.approx(4.0, rel=0.02)
    assert rows[("singleton-c2-a1",)]["clone_gc"] is None         # no clone_gc.csv: none, not 0
    shown = "0.20 → 0.50 ms (4 → 16 users; 1.0 → 4.0 collections/s)"
    assert clonegc.text(gc) == shown
    view = report_section.view(section.build(result, steps, simulate=False))
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(view, {})
    row = html.split('id="prediction-tier-cpu"')[-1].split("request · clone 1 · service 1")[1].split("</tr>")[0]
    assert shown in row and "clone&#39;s collector a request" in html.split('id="prediction-tier-cpu"')[-1]
    monkeypatch.setattr(section, "build", functools.partial(section.build, simulate=False))
    out = tmp_path / "v.md"
    assert validate.main([str(copy), "-o", str(out)]) == 0
    line = next(x for x in out.read_text().splitlines() if x.startswith("- with-probe: request"))
    assert line.endswith(f"; the clone's collector {shown} a request")


@pytest.fixture()
def handmade_folder(data):
    return data / "predict-handmade"
