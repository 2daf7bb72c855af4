"""./testbed compare (analysis/compare.py): result folders of one experiment, each against the first,
run by run and step by step — a throughput fall beyond the threshold, significant by Mann–Whitney
over the steps' per-second throughputs, is a regression located at the tier whose CPU a request grew
most (exit 1); the same figures with noise are no change (exit 0); bad input is one line and exit 2.
Result folders made here with data/make_handmade."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from analysis import cli as analysis_cli
from analysis import compare

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from make_handmade import T0, experiment, plateau, run  # noqa: E402

NOISE = (0.02, -0.01, 0.015, -0.02, 0.0, 0.01, -0.015)


def _folder(path: Path, x: int = 300, axis_cpu: float = 30.0, name: str = "clones", interrupted: bool = False,
            noise=NOISE, last_x: int | None = None) -> Path:
    """A clones folder: one singleton run, 3 steps up to a plateau of x/s (the last at last_x/s when
    given); axis at axis_cpu % a core."""
    meta = {"kind": "clones", "path": 5, "backend": "axis", "op": "ping",
            "tiers": {"front": 1, "clone": 1, "axis": 1, "gsoap": 0}, "client_mode": "singleton", "pool_size": None,
            "demands": {"SERVICE": {"cpu_us": 0, "wait_us": 3000, "locked": False}}}
    steps = [dict(s, cpu={"front/1": 40.0, "clone/1": 20.0, "axis/1": axis_cpu}, host=100.0, seconds=16, noise=noise)
             for s in plateau(x, users=(4, 16, 32))]
    if last_x is not None:
        steps[-1]["x"] = last_x
    run(path, "singleton-c1-a1-r0", T0, meta, steps, interrupted=interrupted)
    experiment(path, name, "clones", ["singleton-c1-a1-r0"])
    if interrupted:
        m = json.loads((path / "experiment.json").read_text())
        m["status"] = "interrupted"
        (path / "experiment.json").write_text(json.dumps(m))
    return path


def _run(*folders, out: Path) -> tuple[int, str]:
    import contextlib
    import io
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = analysis_cli.main(["compare", *map(str, folders), "-o", str(out)])
    return code, buf.getvalue() + err.getvalue()


def test_a_throughput_fall_is_a_regression_located_at_the_tier_whose_cpu_grew(tmp_path):
    a = _folder(tmp_path / "a")
    b = _folder(tmp_path / "b", x=255, axis_cpu=45.0)          # 15 % slower, axis dearer per request
    code, out = _run(a, b, out=tmp_path / "cmp")
    assert code == 1, out
    result = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    r = result["comparisons"][0]["runs"][0]
    assert result["comparisons"][0]["verdict"] == "regression" and r["verdict"] == "regression"
    assert r["where"]["tier"] == "axis" and r["where"]["cpu_ms_change"] > 0
    worst = min(r["steps"], key=lambda s: s["ratio"])
    assert worst["ratio"] == pytest.approx(255 / 300, rel=0.03) and worst["p"] < compare.ALPHA
    assert "REGRESSION" in out and "where: axis" in out
    assert "regression" in (tmp_path / "cmp" / "compare.html").read_text()


def test_the_same_figures_with_their_noise_are_no_change(tmp_path):
    a = _folder(tmp_path / "a")
    b = _folder(tmp_path / "b", noise=tuple(reversed(NOISE)))
    code, out = _run(a, b, out=tmp_path / "cmp")
    assert code == 0, out
    assert "no significant change" in out and "REGRESSION" not in out


def test_one_step_falling_alone_is_no_regression_of_the_run(tmp_path):
    """Between identical runs one step may move (a cold JIT, a busy host); a change of the system moves
    every step of the run: here only the last step fell 15 % — reported as that step's, not the run's."""
    a = _folder(tmp_path / "a")
    b = _folder(tmp_path / "b", last_x=250)
    code, out = _run(a, b, out=tmp_path / "cmp")
    r = json.loads((tmp_path / "cmp" / "compare.json").read_text())["comparisons"][0]["runs"][0]
    assert code == 0 and r["verdict"] == "no significant change", out
    assert [s["verdict"] for s in r["steps"]] == ["no significant change", "no significant change", "regression"]


def test_a_small_fall_within_the_threshold_is_no_regression(tmp_path):
    a = _folder(tmp_path / "a")
    b = _folder(tmp_path / "b", x=291)                          # -3 %: significant, but under 5 %
    assert _run(a, b, out=tmp_path / "cmp")[0] == 0


@pytest.mark.parametrize("case, says", [
    ("other experiment", "a different experiment"),
    ("interrupted", "did not complete"),
    ("not a folder", "not a result folder"),
    ("one folder", "two result folders or more"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, case, says):
    a = _folder(tmp_path / "a")
    b = {"other experiment": lambda: _folder(tmp_path / "b", name="classic"),
         "interrupted": lambda: _folder(tmp_path / "b", interrupted=True),
         "not a folder": lambda: (tmp_path / "b").mkdir() or tmp_path / "b",
         "one folder": lambda: None}[case]()
    code, out = _run(*([a] if b is None else [a, b]), out=tmp_path / "cmp")
    assert code == 2 and says in out and len(out.strip().splitlines()) == 1, out


def test_the_testbed_verb_is_the_same_command(tmp_path, capsys):
    from testbed.cli import main as testbed_main
    assert testbed_main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "no such folder" in capsys.readouterr().err


def _handmade_with(tmp_path, name, **changes):
    """A copy of the hand-made prediction folder (a baseline the model fits to), its second run's
    configuration changed in run.json by `changes` (what B ran, with A's very figures)."""
    import shutil
    dest = tmp_path / name
    shutil.copytree(Path(__file__).resolve().parent / "data" / "predict-handmade", dest)
    meta_path = dest / "runs" / "singleton-c2-a1" / "run.json"
    meta = json.loads(meta_path.read_text())
    meta.update(changes)
    meta_path.write_text(json.dumps(meta))
    return dest


def test_a_configuration_change_the_model_places_is_predicted_from_the_baseline(tmp_path):
    from analysis.load.folder import load
    from analysis.predict.command import fitted_folder
    from analysis.predict.fit import Config, model
    from analysis.predict.model import solve_model
    a = _handmade_with(tmp_path, "a")
    b = _handmade_with(tmp_path, "b", tiers={"front": 1, "clone": 4, "axis": 1, "gsoap": 0})
    code, out = _run(a, b, out=tmp_path / "cmp")
    runs = {r["run"]: r for r in json.loads((tmp_path / "cmp" / "compare.json").read_text())["comparisons"][0]["runs"]}
    assert runs["singleton-c1-a1"]["model"] is None               # the same configuration: nothing to predict
    word = runs["singleton-c2-a1"]["model"]
    assert word["placed"] and word["from"] == "singleton · clone 2 · service 1 → singleton · clone 4 · service 1"
    _, _, d, fitted = fitted_folder(a)
    steps = [s for s in runs["singleton-c2-a1"]["steps"] if s["ratio"] is not None]
    assert [r["users"] for r in word["steps"]] == [s["users"] for s in steps] and steps
    for r in word["steps"]:
        two, four = (solve_model(model(fitted, Config(clones=k), think_time=d.think_time_s), r["users"]).throughput
                     for k in (2, 4))
        assert r["predicted"] == pytest.approx(four / two) and r["measured"] == pytest.approx(1.0)
    # B measured what A did (the same figures): wherever 4 clones were predicted faster, the model disagrees
    assert word["agrees"] == all(abs(r["predicted"] - 1) <= compare.MODEL_AGREES for r in word["steps"])
    assert "the model fitted to the baseline predicted singleton · clone 2" in out and load(b).runs


def test_a_change_the_model_does_not_place_is_said_so(tmp_path):
    a = _handmade_with(tmp_path, "a")
    b = _handmade_with(tmp_path, "b", demands={"SERVICE": {"cpu_us": 2000, "wait_us": 5000, "locked": False}})
    _run(a, b, out=tmp_path / "cmp")
    runs = json.loads((tmp_path / "cmp" / "compare.json").read_text())["comparisons"][0]["runs"]
    word = next(r for r in runs if r["run"] == "singleton-c2-a1")["model"]
    assert word == {"placed": False, "why": "it does not place a change of demands",
                    "text": "the model: it does not place a change of demands"}


def _spans(folder: Path, clone_ms: float, users=(4, 16, 32)) -> None:
    """A spans file for the folder's run: per step, traces of Locust → front → clone → axis with the
    clone's own time clone_ms (front 2 ms own, axis 1 ms)."""
    import gzip
    ids = iter(range(1, 10 ** 6))

    def span(service, kind, ms, parent):
        return {"id": f"{next(ids):016x}", "parentId": parent, "kind": kind, "duration": int(ms * 1000),
                "name": "x", "localEndpoint": {"serviceName": service}}

    def trace():
        axis = 1.0
        clone = clone_ms + axis
        front = 2.0 + clone
        root = span("locust", "CLIENT", front + 0.5, None)
        fs = span("front", "SERVER", front, root["id"])
        fc = span("front", "CLIENT", clone, fs["id"])
        cs = span("clone", "SERVER", clone, fc["id"])
        cc = span("clone", "CLIENT", axis, cs["id"])
        axs = span("axis", "SERVER", axis, cc["id"])
        return [root, fs, fc, cs, cc, axs]
    data = {"format": 1, "trace_sample": 1.0, "steps": [{"index": i, "users": u, "traces": [trace() for _ in range(5)]}
                                                       for i, u in enumerate(users)]}
    with gzip.open(folder / "runs" / "singleton-c1-a1-r0" / "spans.json.gz", "wt") as fh:
        json.dump(data, fh)


def test_traced_steps_name_the_tier_whose_own_time_grew(tmp_path):
    a = _folder(tmp_path / "a")
    b = _folder(tmp_path / "b", x=255, axis_cpu=45.0)
    _spans(a, clone_ms=1.0)
    _spans(b, clone_ms=3.0)
    code, out = _run(a, b, out=tmp_path / "cmp")
    r = json.loads((tmp_path / "cmp" / "compare.json").read_text())["comparisons"][0]["runs"][0]
    assert code == 1 and r["where"]["traced_tier"] == "clone"
    assert r["where"]["traced_ms_change"] == pytest.approx(2.0, abs=0.01)
    assert all(s["traced_ms"]["axis"]["change"] == pytest.approx(0.0, abs=0.01) for s in r["steps"])
    assert "traced: clone +2.00 ms own time" in out


def test_thread_dumps_at_the_plateau_are_set_side_by_side(tmp_path):
    import shutil
    dump = Path(__file__).resolve().parent / "data" / "threaddump-contended.txt"
    a, b = _folder(tmp_path / "a"), _folder(tmp_path / "b")
    code, _ = _run(a, b, out=tmp_path / "cmp0")
    assert json.loads((tmp_path / "cmp0" / "compare.json").read_text())["comparisons"][0]["runs"][0]["threads"] is None
    for f in (a, b):
        shutil.copy(dump, f / "runs" / "singleton-c1-a1-r0" / "threaddump-clone-1.txt")
    code, out = _run(a, b, out=tmp_path / "cmp")
    t = json.loads((tmp_path / "cmp" / "compare.json").read_text())["comparisons"][0]["runs"][0]["threads"]
    blocked = t["blocked"]["clone"]
    assert blocked["a"] == blocked["b"] > 0 and "BLOCKED on " in out
