"""prediction.json read back (analysis/predict/forecast.py, section.py): the runner's prediction,
written before the runs it predicts, is the one the report compares — also as a runner wrote it
before the model's fit was named so (calibrated_on and calibration for fitted_to and fit)."""
from __future__ import annotations

import json
import shutil

import pytest

from analysis.load.folder import load
from analysis.predict import forecast, section
from analysis.steps import run_steps

OLD = {"fitted_to": "calibrated_on", "fit": "calibration"}


@pytest.fixture
def copy(data, tmp_path):
    """A copy of the hand-made folder and the prediction made from it, as the runner makes it."""
    dest = tmp_path / "f"
    shutil.copytree(data / "predict-handmade", dest)
    result = load(dest)
    return dest, forecast.predict(result, run_steps(result), own_request_steps=False)


def test_a_prediction_written_before_the_runs_is_the_one_compared(copy):
    folder, pred = copy
    pred["written"] = 1.0                                # before every run started
    (folder / forecast.FILE).write_text(json.dumps(pred))
    p = section.build(load(folder), run_steps(load(folder)), simulate=False)
    c2 = next(c for c in p["configurations"] if c["runs"] == ["singleton-c2-a1"])
    assert c2["written_before_runs"] is True and p["file"] == forecast.FILE


def test_a_prediction_written_with_the_old_keys_is_read_as_today(copy):
    folder, pred = copy
    old = {OLD.get(k, k): v for k, v in pred.items()}
    old["configurations"] = [{OLD.get(k, k): v for k, v in c.items()} for c in pred["configurations"]]
    old["written"] = 1.0
    (folder / forecast.FILE).write_text(json.dumps(old))
    assert "fitted_to" not in (folder / forecast.FILE).read_text()
    p = section.build(load(folder), run_steps(load(folder)), simulate=False)
    assert p["fitted_to"] == pred["fitted_to"] and p["fit"] == json.loads(json.dumps(pred["fit"]))
    c2 = next(c for c in p["configurations"] if c["runs"] == ["singleton-c2-a1"])
    assert c2["fitted_to"] == "baseline" and c2["written_before_runs"] is True
