"""The simulation's check of the predicted points is cached in a folder (prediction-check.json,
analysis/predict/section.py): keyed by everything its verdict depends on, so that a changed
answer of the solver, or changed simulation code, is simulated again, never read from the cache."""
import json
import shutil

import pytest

from analysis.load.folder import load
from analysis.predict import forecast, section
from analysis.steps import run_steps


@pytest.fixture
def checked(data, tmp_path, monkeypatch):
    """A copy of the hand-made folder (its committed cache), its predicted configurations, and
    the points the simulation was asked for (the simulation itself stubbed: the cache is what
    is tested)."""
    folder = tmp_path / "predict-handmade"
    shutil.copytree(data / "predict-handmade", folder)
    result = load(folder)
    configs = forecast.predict(result, run_steps(result))["configurations"]
    asked: list[dict] = []

    def simulated(points):
        asked.extend(pt for _, pt in points)
        return [{"stub": pt["users"]} for _, pt in points]
    monkeypatch.setattr(section.check, "check_all", simulated)
    return folder, configs, asked


def _points(configs) -> int:
    """Distinct points (a configuration's model and point can recur in another)."""
    return len({json.dumps([c["model"], pt], sort_keys=True) for c in configs for pt in c["points"]})


def test_the_committed_cache_answers_every_point_of_the_folder_without_simulating(checked):
    folder, configs, asked = checked
    got = section._checks(folder, configs)
    assert asked == [], ("the committed cache misses points (the solver or the simulation code changed): "
                         "re-make it with tests/analysis/data/make_check_cache.py")
    assert len(got) == sum(len(c["points"]) for c in configs) > 0
    assert all("agree" in v for v in got.values())


def test_a_changed_answer_is_simulated_again(checked):
    folder, configs, asked = checked
    changed = json.loads(json.dumps(configs))
    point = changed[-1]["points"][-1]
    point["throughput"] *= 1.01                 # the solver answers otherwise for one point
    got = section._checks(folder, changed)
    assert asked == [point]
    assert got[(tuple(changed[-1]["runs"]), point["users"])] == {"stub": point["users"]}
    asked.clear()
    point["throughput"] /= 1.01
    point["response_time"] *= 1.01
    section._checks(folder, changed)
    assert asked == [point]


def test_changed_simulation_code_misses_every_cached_point(checked, monkeypatch):
    folder, configs, asked = checked
    monkeypatch.setattr(section, "simulation_fingerprint", lambda: "another simulator")
    section._checks(folder, configs)
    assert len(asked) == _points(configs)


def test_the_fingerprint_follows_each_simulation_source(tmp_path, monkeypatch):
    real = section.simulation_fingerprint()
    for name in section.SIMULATION_SOURCES:
        shutil.copy(section.Path(section.__file__).with_name(name), tmp_path / name)
    monkeypatch.setattr(section, "__file__", str(tmp_path / "section.py"))
    before = section.simulation_fingerprint()
    assert before == real                        # the same sources, the same fingerprint
    for name in section.SIMULATION_SOURCES:
        with open(tmp_path / name, "a") as f:
            f.write("# changed\n")
        now = section.simulation_fingerprint()
        assert now != before, name
        before = now
    assert set(section.SIMULATION_SOURCES) >= {"simulate.py", "check.py"}
