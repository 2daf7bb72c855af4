"""The naive predictions' reading (analysis/predict/section.py): beats_naive, and beside it
naive_tied / beats_or_ties_naive, which count a naive prediction the model does not beat as
tied only where both maxima lie inside the measured maximum's 95 % interval."""
import json
import shutil

import pytest

from analysis.load.folder import load
from analysis.predict import report_section, section, validate
from analysis.render import pages
from analysis.steps import run_steps

IV = [98.0, 102.0]


@pytest.mark.parametrize("err,pred,naive,interval,want", [
    # beats both: no tie needed
    (0.01, 101.0, {"linear": (110.0, 0.10), "USL": (95.0, -0.05)}, IV, (True, [], True)),
    # linear exact (lock-bound), the model 1 % off, both inside the interval: tied
    (-0.01, 99.0, {"linear": (100.5, 0.005), "USL": (90.0, -0.10)}, IV, (False, ["linear"], True)),
    # linear inside, the model outside the interval: a miss the measurement does resolve
    (-0.03, 97.0, {"linear": (100.5, 0.005), "USL": (90.0, -0.10)}, IV, (False, [], False)),
    # the model inside, linear beats it from outside the interval: not a tie
    (0.015, 101.5, {"linear": (98.9, -0.011), "USL": (120.0, 0.2)}, [99.0, 102.0], (False, [], False)),
    # both unbeaten, one tied, the other not
    (0.01, 101.0, {"linear": (100.5, 0.005), "USL": (99.9, -0.001)}, [100.0, 102.0], (False, ["linear"], False)),
    # no interval (a step without its per-second samples): no tie can be read
    (-0.01, 99.0, {"linear": (100.5, 0.005), "USL": (90.0, -0.10)}, None, (False, [], False)),
])
def test_a_tie_needs_both_maxima_inside_the_measured_interval(err, pred, naive, interval, want):
    r = section.naive_reading(err, pred, naive, interval)
    assert (r["beats_naive"], r["naive_tied"], r["beats_or_ties_naive"]) == want


def test_without_an_error_there_is_no_reading():
    r = section.naive_reading(None, 100.0, {"linear": (100.0, 0.0), "USL": (100.0, 0.0)}, IV)
    assert r == {"beats_naive": None, "naive_tied": [], "beats_or_ties_naive": None}
    assert section.naive_reading(0.01, 101.0, {"linear": (None, None), "USL": (90.0, -0.1)}, IV)["beats_naive"] is None


@pytest.fixture(scope="module")
def built(data, tmp_path_factory):
    dest = tmp_path_factory.mktemp("naive") / "predict-handmade"
    shutil.copytree(data / "predict-handmade", dest)
    result = load(dest)
    return section.build(result, run_steps(result), simulate=False)


def test_the_measured_interval_is_the_highest_steps_own(built):
    rows = [r for r in built["configurations"] if r["measured_max_throughput"] is not None]
    assert rows
    for r in rows:
        lo, hi = r["measured_max_interval"]
        assert lo <= r["measured_max_throughput"] <= hi      # the handmade rates are steady: lo = hi
        assert r["beats_or_ties_naive"] in (None, True, False)
    assert all(r["beats_naive"] is None and r["beats_or_ties_naive"] is None for r in rows if r["baseline"])


def test_the_report_names_a_tie_beside_the_no(built):
    p = json.loads(json.dumps(built))
    row = next(r for r in p["configurations"] if not r["baseline"] and r["measured_max_interval"])
    row.update(beats_naive=False, naive_tied=["linear"], beats_or_ties_naive=True, measured_max_interval=[139.0, 141.5])
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(report_section.view(p), {})
    assert '<span class="flag">no</span> (tied with linear: both inside the measured 139' in html


def test_validation_gives_the_tie_reading_beside_the_criterion(tmp_path, monkeypatch):
    base = {"predicted_max_throughput": 99.0, "measured_max_throughput": 100.0, "error": -0.01, "sweep_mae": 0.01,
            "knee_predicted": 4, "knee_measured": 4, "knee_steps_apart": 0, "linear_error": 0.005,
            "usl_error": -0.1, "agreement_max_deviation": 0.01, "agree": True, "written_before_runs": True,
            "measured_max_interval": [98.0, 102.0], "text": "singleton · clone 2 · service 1"}
    tied = {**base, "beats_naive": False, "naive_tied": ["linear"], "beats_or_ties_naive": True}
    monkeypatch.setattr(validate, "rows_of", lambda f, fit_runs=None: (
        {"folder": f, "mode": "local", "written": 1.0, "beside_other_load": None}, [tied]))
    out = tmp_path / "v.md"
    assert validate.main(["x", "-o", str(out)]) == 0
    v = json.loads(out.with_suffix(".json").read_text())["verdicts"]
    assert v["beats_both_naive"] is False and v["beats_or_ties_both_naive"] is True
    assert "| False (tied: linear inside the measured 98.0–102.0) |" in out.read_text()
    # a miss the interval resolves: neither reading met
    monkeypatch.setattr(validate, "rows_of", lambda f, fit_runs=None: (
        {"folder": f, "mode": "local", "written": 1.0, "beside_other_load": None},
        [tied, {**base, "beats_naive": False, "naive_tied": [], "beats_or_ties_naive": False}]))
    assert validate.main(["x", "-o", str(out)]) == 0
    v = json.loads(out.with_suffix(".json").read_text())["verdicts"]
    assert v["beats_both_naive"] is False and v["beats_or_ties_both_naive"] is False
