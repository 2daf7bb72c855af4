"""The hand-made prediction folder (data/make_predict.py) with a client-build probe, and its
planned client per request made to have run: shared by the prediction tests."""
import json
import shutil

from analysis.load.folder import load
from analysis.steps import run_steps

PROBE = {"format": 1, "backend": "axis", "probe": {"built": 400}, "build_s_median": 0.0025,
         "cpu_s_per_build": {"clone": 0.001, "axis": 0.0005, "gsoap": 0.0003, "haproxy": 0.0005,
                             "front": 0.0, "loadgen": 0.0, "unattributed": 0.0}}
RESTARTED = ["restart clone with CLIENT_MODE=request (2.4 s)"]


def with_probe(folder, tmp_path, probe: dict):
    """A copy of `folder` (tmp_path/with-probe) without the runner's prediction, with `probe`
    as its build_probe.json; (result, steps) of it."""
    copy = tmp_path / "with-probe"
    shutil.copytree(folder, copy)
    (copy / "prediction.json").unlink(missing_ok=True)
    (copy / "build_probe.json").write_text(json.dumps(probe))
    result = load(copy)
    return result, run_steps(result)


def request_run(copy, notes: dict):
    """The folder's planned client per request as if it had run: singleton-c2-a1's measurement
    under the request run's id and lifecycle, with the runner's notes given."""
    run = copy / "runs" / "request-c1-a1"
    shutil.copytree(copy / "runs" / "singleton-c2-a1", run)
    meta = json.loads((run / "run.json").read_text())
    meta.update(id="request-c1-a1", label="request-c1-a1", client_mode="request",
                tiers={**meta["tiers"], "clone": 1}, notes={**meta["notes"], **notes})
    (run / "run.json").write_text(json.dumps(meta))
    result = load(copy)
    return result, run_steps(result)
