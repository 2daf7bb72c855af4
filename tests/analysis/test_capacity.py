"""./testbed capacity: the load the levels state, the ladder the model orders, the walk that ends
on a measured answer, and bad input refused in one line (exit 2) before any stack is touched."""
import argparse
import json

import pytest

from analysis import capacity as cap, slo
from analysis.load.folder import load
from analysis.predict import target as tmod
from analysis.predict.fit import Config
from analysis.render.pages import render


def _levels(*items, key="*"):
    return {key: [slo.parse_level(t, "test") for t in items]}


def test_the_load_is_the_largest_rate_the_levels_for_the_path_state():
    levels = {**_levels("throughput >= 150/s", "p99 < 100 ms at 200/s", "errors < 0.1 %"),
              **_levels("p50 < 5 ms at 900/s", key="/seg/1"),
              **_levels("throughput >= 120/s", key="/seg/5")}
    rate, applied, ignored = cap.load_of(levels)
    assert rate == 200 and ignored == ["/seg/1"] and len(applied) == 4


@pytest.mark.parametrize("levels,said", [
    (_levels("p99 < 100 ms", "errors < 1 %"), "no load to size for"),
    (_levels("throughput >= 10/s", key="pool-c1-a1"), "no level applies to /seg/5"),
    (_levels("throughput >= 0/s"), "0/s"),
])
def test_levels_that_state_no_load_are_refused_with_the_fix(levels, said):
    with pytest.raises(cap.CapacityError, match=said):
        cap.load_of(levels)


def _walk(capacities, threshold, start, budget=cap.BUDGET):
    measured = []

    def measure(i):
        measured.append(i)
        return capacities[i] >= threshold
    out = cap.walk(len(capacities), start, measure, budget)
    assert out["path"] == measured
    return out


LADDER = [44, 88, 176, 351, 700]            # what each configuration measures, smallest first


def test_the_choice_meets_and_its_smaller_neighbour_misses_two_measurements():
    out = _walk(LADDER, 150, start=2)
    assert (out["answer"], out["status"], out["path"]) == (2, "settled", [2, 1])
    assert out["met"] == {2: True, 1: False}


def test_a_model_too_cautious_walks_down_until_a_miss():
    out = _walk(LADDER, 80, start=3)
    assert (out["answer"], out["status"], out["path"]) == (1, "settled", [3, 2, 1, 0])


def test_a_model_too_hopeful_walks_up_until_a_configuration_meets():
    out = _walk(LADDER, 300, start=1)
    assert (out["answer"], out["status"], out["path"]) == (3, "settled", [1, 2, 3])
    assert out["met"][2] is False          # the answer's smaller neighbour measured a miss


def test_the_smallest_configuration_meeting_needs_no_neighbour():
    assert _walk(LADDER, 10, start=0) == {"answer": 0, "status": "smallest", "path": [0], "met": {0: True}}


def test_none_of_the_ladder_meets_and_the_budget_stops_a_long_walk():
    assert _walk(LADDER, 1000, start=2)["status"] == "none meets"
    out = _walk(LADDER, 600, start=0, budget=2)
    assert (out["answer"], out["status"], out["path"]) == (None, "not settled", [0, 1])
    down = _walk(LADDER, 10, start=4, budget=3)
    assert (down["answer"], down["status"], down["path"]) == (2, "not settled", [4, 3, 2])


@pytest.fixture(scope="module")
def handmade(predict_handmade):
    return predict_handmade


@pytest.fixture(scope="module")
def ladder(handmade):
    from analysis.predict.command import fitted_folder
    return cap.Ladder(fitted_folder(handmade)[3], Config(), ["singleton", "pool"])


def test_the_ladder_is_smallest_first_and_the_choice_the_first_predicted_to_reach(ladder):
    texts = [ladder.predicted(i, 50)["text"] for i in range(3)]
    assert texts == ["singleton · clone 1 · service 1", "pool of 2 · clone 1 · service 1",
                     "pool of 4 · clone 1 · service 1"]
    x0 = ladder.predicted(0, 50)["max_throughput"]
    answer = tmod.smallest(ladder.fitted, 1.5 * x0, Config(), ["singleton", "pool"])    # the CLI's choice
    i = ladder.configs.index(answer["config"])
    assert i > 0 and ladder.predicted(i, 1.5 * x0)["max_throughput"] >= 1.5 * x0
    assert all(ladder.predicted(k, 1.5 * x0)["max_throughput"] < 1.5 * x0 for k in range(i))
    p = ladder.predicted(i, 1.5 * x0)
    assert p["users_at_load"] is not None and cap.step_users(p)[0] <= p["critical_users"]
    assert ladder.predicted(0, 1.5 * x0)["users_at_load"] is None and cap.step_users(ladder.predicted(0, 50))


def test_a_measurement_is_the_baseline_changed_to_the_candidate(ladder, handmade):
    import testbed.experiment.definition as definition
    result = load(handmade)
    p = ladder.predicted(2, 50)
    text = cap.experiment_toml(p, result.runs[0].meta, str(handmade), 50)
    path = handmade.parent / "m.toml"
    path.write_text(text)
    (run,) = definition.load(str(path)).runs
    assert (run.client_mode, run.pool_size, run.tiers["clone"], run.path) == ("pool", 4, 1, 5)
    assert list(run.load.users) == cap.step_users(p)


def _fake_result(status="settled"):
    class Fake:
        def predicted(self, i, rate):
            c = Config(client_mode="pool", pool_size=2 ** i) if i else Config()
            return {"config": c, "text": c.text(), "slug": cap.slug(c), "max_throughput": 44.0 * 2 ** i,
                    "critical_users": 2 + i, "bottleneck": "lock", "users_at_load": None, "response_ms_at_load": None}
    levels = [slo.parse_level("throughput >= 150/s", "t")]
    meas = {2: {"meets": True, "measured": 180.0, "interval": [176.0, 184.0], "error": -0.022, "why": "every level met",
                "levels": [{"level": "throughput >= 150/s", "verdict": "met", "value": 180.0, "interval": [176, 184]}],
                "folder": "m1", "report": "measurements/m1/report.html", "users_measured": [4, 5, 10]},
            1: {"meets": False, "measured": 90.0, "interval": [88.0, 92.0], "error": -0.021,
                "why": "throughput >= 150/s: missed", "levels": [], "folder": "m2", "users_measured": [3, 6]}}
    walked = {"answer": 2, "status": status, "path": [2, 1]}
    return cap.result(150.0, levels, [], Fake(), 2, walked, meas, "src")


def test_the_result_names_the_answer_the_path_and_the_model_errors():
    r = _fake_result()
    assert r["answer"]["text"] == "pool of 4 · clone 1 · service 1" and r["measurements"] == 2
    assert [p["step"] for p in r["path"]] == [1, 2] and r["path"][1]["meets"] is False
    assert r["model_error_max"] == pytest.approx(0.022) and cap.exit_status(r) == 0
    shown = cap.text(r)
    assert shown.splitlines()[0].startswith("capacity for 150/s: pool of 4") and "misses" in shown
    html = render("capacity.html.j2", c=json.loads(json.dumps(r, default=str)))
    assert "pool of 4 · clone 1 · service 1</b> is the smallest" in html and "its smaller neighbour measured a miss" in html
    assert '<a href="measurements/m1/report.html">m1</a>' in html
    assert cap.exit_status(_fake_result("not settled")) == 1


def _args(tmp_path, slo_text, **kw):
    f = tmp_path / "slo.toml"
    f.write_text(slo_text)
    base = dict(slo=str(f), source=None, results=str(tmp_path / "res"), budget=cap.BUDGET,
                lifecycles="singleton,pool,request", docker=False)
    return argparse.Namespace(**{**base, **kw})


@pytest.mark.parametrize("slo_text,kw,said", [
    ("[levels]\n\"*\" = [\"p99 < 100 ms\"]\n", {}, "no load to size for"),
    ("levels = 3\n", {}, "no [levels] table"),
    ("[levels]\n\"*\" = [\"throughput >= 100/s\"]\n", {"budget": 0}, "--budget must be at least 1"),
    ("[levels]\n\"*\" = [\"throughput >= 100/s\"]\n", {"lifecycles": "pooled"}, "--lifecycles 'pooled'"),
    ("[levels]\n\"*\" = [\"throughput >= 100/s\"]\n", {"source": "/nonexistent/folder"}, "--from /nonexistent/folder"),
    ("[levels]\n\"*\" = [\"throughput >= 100/s\"]\n", {}, "run ./testbed run clones --quick first"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_stack(tmp_path, capsys, slo_text, kw, said):
    from testbed import capacity
    assert capacity.main(_args(tmp_path, slo_text, **kw)) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1 and err.startswith("testbed: capacity: ")


def test_a_load_no_configuration_can_reach_is_answered_without_measuring(tmp_path, capsys, handmade):
    from testbed import capacity
    args = _args(tmp_path, "[levels]\n\"*\" = [\"throughput >= 1000000/s\"]\n", source=str(handmade))
    assert capacity.main(args) == 1
    (out,) = (tmp_path / "res").glob("capacity-*")
    r = json.loads((out / cap.FILE_JSON).read_text())
    assert r["status"] == "not reachable" and r["measurements"] == 0 and "CPU caps every configuration" in r["why"]
    assert "no configuration is predicted to reach the load" in (out / cap.FILE_HTML).read_text()
    assert "no configuration is predicted to reach it" in capsys.readouterr().out


@pytest.mark.parametrize("items,rate,seconds", [
    (["throughput >= 150/s"], 150, cap.MIN_STEP_S),                 # the maximum needs no long step
    (["errors < 0.1 %"], 150, 52),                                   # 2 x 1.96^2 / 0.001 = 7,683 requests
    (["p99 < 100 ms at 150/s"], 150, 14),                            # 20 / (0.99 x 0.01) = 2,021 requests
    (["p99.9 < 100 ms at 150/s"], 150, cap.MAX_STEP_S),              # 20,020 requests: capped, said so
])
def test_a_step_is_as_long_as_its_levels_need_to_be_decided(items, rate, seconds):
    got, why = cap.step_seconds([slo.parse_level(t, "t") for t in items], rate)
    assert got == seconds and (why is not None) == (seconds == cap.MAX_STEP_S)


def test_a_measurement_judges_no_finding_of_its_own(ladder, handmade):
    """The walk judges the levels; the measurement's own report lists no clone-scaling finding."""
    from analysis.judge.registry import findings
    text = cap.experiment_toml(ladder.predicted(1, 50), load(handmade).runs[0].meta, str(handmade), 50)
    summary = {"experiment": {"kind": "clones", "definition": {"toml": text}}, "runs": []}
    assert findings(summary) == []
    summary["experiment"]["definition"]["toml"] = text.replace("findings = []", "findings = [\"clones\"]")
    assert len(findings(summary)) == 5
