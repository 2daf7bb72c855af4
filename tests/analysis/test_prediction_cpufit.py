"""A tier's CPU as a background rate plus a cost per request, U = U0 + D·X
(analysis/predict/cpufit.py), and how the model spends the background: fewer cores serve
requests, the analytic solution and the simulation still agree."""
import random

import pytest

from analysis.predict import cpufit
from analysis.predict.fit import Config, Fitted, model
from analysis.predict.check import check_point
from analysis.predict.model import solve_model


def _steps(u0, d, xs, noise=0.0, replicas=None, seed=7):
    rng = random.Random(seed)
    reps = replicas or [1] * len(xs)
    return [k * u0 + d * x + rng.gauss(0.0, noise) for x, k in zip(xs, reps)]


def test_the_fit_recovers_a_known_background_and_cost_per_request():
    xs = [150, 160, 320, 640, 830, 850]
    f = cpufit.fit(xs, _steps(0.09, 0.00057, xs, noise=0.004))
    assert f.resolved and f.why is None
    assert f.u0 == pytest.approx(0.09, abs=0.01)
    assert f.d == pytest.approx(0.00057, rel=0.05)
    assert f.d_low < 0.00057 < f.d_high and f.u0_low < 0.09 < f.u0_high
    # exact points: exactly the line
    g = cpufit.fit(xs, _steps(0.2, 0.001, xs))
    assert (g.u0, g.d) == (pytest.approx(0.2), pytest.approx(0.001))


def test_the_background_is_per_replica_when_the_steps_have_different_replicas():
    xs = [150, 300, 450, 160, 320, 480]
    reps = [1, 1, 1, 2, 2, 2]
    us = [k * 0.1 + 0.0005 * x + (0.003 if i % 2 else -0.003) for i, (x, k) in enumerate(zip(xs, reps))]
    f = cpufit.fit(xs, us, replicas=reps)
    assert f.resolved and f.u0 == pytest.approx(0.1, abs=0.02) and f.d == pytest.approx(0.0005, rel=0.1)
    # replicas doubling with the throughput (1 clone at 160/s, 2 at 310/s): U0 and D cannot be
    # told apart within this noise, and the fit says so
    xs, reps = [150, 160, 170, 300, 310, 320], [1, 1, 1, 2, 2, 2]
    us = [k * 0.1 + 0.0005 * x + (0.003 if i % 2 else -0.003) for i, (x, k) in enumerate(zip(xs, reps))]
    g = cpufit.fit(xs, us, replicas=reps)
    assert not g.resolved and "cannot be told apart" in g.why


@pytest.mark.parametrize("xs, us, reason", [
    ([160.0], [0.3], "1 step(s)"),
    ([160.0, 800.0], [0.3, 0.6], "2 step(s)"),
    ([158.0, 157.0, 162.0, 166.0], [0.20, 0.21, 0.19, 0.15], "span only 1.06x"),       # the baseline's flat X
    ([100.0, 300.0, 500.0, 700.0], [0.5, 0.2, 0.6, 0.1], "cannot be told apart"),     # noise, no trend
    ([100.0, 300.0, 500.0, 700.0], [0.05, 0.25, 0.55, 0.75], "below zero"),           # cost grows with load
])
def test_an_unresolved_fit_falls_back_to_u_over_x_and_says_why(xs, us, reason):
    f = cpufit.fit(xs, us)
    assert not f.resolved and reason in f.why and "D = U / X" in f.why
    assert f.u0 == 0.0 and f.d_low is None
    assert f.d == pytest.approx(sum(u / x for u, x in zip(us, xs)) / len(xs))


def test_a_cpu_that_does_not_grow_with_the_load_is_background_not_a_cost_per_request():
    """Over a span of throughputs where D's interval reaches zero, U / X would charge a
    background rate to each request, several times over at the higher throughputs: the line is
    kept, D no lower than zero, and the fit says so."""
    xs, us = [100.0, 300.0, 500.0, 700.0], [0.32, 0.31, 0.30, 0.29]      # a slope below zero
    f = cpufit.fit(xs, us)
    assert f.resolved and "does not grow measurably" in f.note
    assert f.d == 0.0 and f.d_low == 0.0 and f.u0 == pytest.approx(0.305)
    # the baseline's four steps at 43/s and the cost probe's at 600/s, the host's unattributed CPU
    # (results/clones-20261128-224802): a small positive slope inside the noise is kept as fitted
    xs = [43.7, 43.0, 43.1, 42.9, 607.5]
    us = [0.0130, 0.0142, 0.0121, 0.0160, 0.0175]
    g = cpufit.fit(xs, us)
    assert g.resolved and g.note and g.d_low == 0.0
    slope, icpt = _line(xs, us)
    assert (g.d, g.u0) == (pytest.approx(slope), pytest.approx(icpt))
    assert g.u0 + g.d * 442 < 0.25 * sum(u / x for u, x in zip(us, xs)) / len(xs) * 442   # U / X's figure
    # a background with replicas: the mean rate per replica
    h = cpufit.fit([100.0, 300.0, 500.0, 700.0], [0.31, 0.30, 0.60, 0.58], replicas=[1, 1, 2, 2])
    assert h.resolved and h.d == 0.0 and h.u0 == pytest.approx(1.79 / 6)


def _line(xs, us):
    n = len(xs)
    mx, mu = sum(xs) / n, sum(us) / n
    slope = sum((x - mx) * (u - mu) for x, u in zip(xs, us)) / sum((x - mx) ** 2 for x in xs)
    return slope, mu - slope * mx


def test_no_usable_step_is_an_error():
    with pytest.raises(ValueError, match="no step"):
        cpufit.fit([0.0], [0.3])


def _cal(background):
    return Fitted({"host": 0.003}, {"host": 0.001}, 0.002, 0.0, {"host": 2.0}, 200, 0.0,
                      background=background, tier_pool={t: "host" for t in background})


def test_the_background_takes_its_cores_per_replica_before_requests_are_served():
    cal = _cal({"front": 0.1, "clone": 0.2, "service": 0.05, "loadgen": 0.1})
    assert cal.serving_cores(Config())["host"] == pytest.approx(2.0 - 0.45)
    four = Config(clones=4, service=2, client_mode="pool", pool_size=8)
    assert cal.serving_cores(four)["host"] == pytest.approx(2.0 - 0.1 - 0.8 - 0.1 - 0.1)
    assert model(cal, four).pools == {"host": pytest.approx(0.9)}
    # never below a tenth of the cores
    assert _cal({"clone": 1.0}).serving_cores(Config(clones=4))["host"] == pytest.approx(0.2)
    # saturation: the serving cores over the demand
    x = solve_model(model(cal, Config(client_mode="request")), 64).throughput
    assert x == pytest.approx(1.55 / 0.004, rel=0.01)


def test_the_simulation_agrees_with_the_model_with_a_background():
    cal = _cal({"front": 0.15, "clone": 0.1, "loadgen": 0.1})
    for cfg, users in ((Config(clones=2), 8), (Config(client_mode="pool", pool_size=8), 32)):
        m = model(cal, cfg)
        c = check_point(m, solve_model(m, users).to_json())
        assert c["agree"], c


def test_fit_runs_add_their_steps_to_the_fit_and_an_unknown_run_is_named(data):
    from analysis.load.folder import load
    from analysis.predict import baseline_demands as dmod, forecast
    from analysis.steps import run_steps
    result = load(data / "predict-handmade")
    steps = run_steps(result)
    d = dmod.measure(result, steps, fit_runs=forecast.runs_named(result, ("singleton-c2-a1",)))
    assert d.fit_runs == ["singleton-c2-a1"] and d.cpu_fits["front"].steps == 6
    # 100/s and 140/s: still too close together; the baseline's U / X stays, said so
    assert d.background == {} and "span only 1.40x" in d.missing[-1]
    assert d.cpu["front"].mean == pytest.approx(0.003)
    with pytest.raises(dmod.NoBaseline, match="no run pool-c9"):
        forecast.runs_named(result, ("pool-c9",))


def _as_path5_segment_run(folder, run_id, **meta):
    import json
    path = folder / "runs" / run_id / "run.json"
    m = json.loads(path.read_text())
    m.update(kind="segments", tiers=dict(m["tiers"], clone=1), **meta)
    path.write_text(json.dumps(m))


def test_a_classic_folders_path5_run_is_the_fits_second_point_unless_told_otherwise(data, tmp_path):
    import shutil
    from analysis.load.folder import load
    from analysis.predict import baseline_demands as dmod, forecast
    from analysis.predict.command import fit_run_ids
    from analysis.steps import run_steps
    folder = tmp_path / "classic-like"
    shutil.copytree(data / "predict-handmade", folder)
    _as_path5_segment_run(folder, "singleton-c2-a1")        # /seg/5, the baseline's calls and stack
    result = load(folder)
    steps = run_steps(result)
    assert [r.id for r in dmod.same_path_runs(result, result.runs[0].meta)] == ["singleton-c2-a1"]
    assert dmod.measure(result, steps).fit_runs == ["singleton-c2-a1"]            # the default
    assert dmod.measure(result, steps, fit_runs=[]).fit_runs == []                 # --fit-runs none
    assert dmod.measure(result, steps, fit_runs=forecast.runs_named(result, fit_run_ids("none"))).fit_runs == []
    assert forecast.runs_named(result, fit_run_ids(None)) is None
    # another operation (or client mode, or stack) is not the baseline's path
    _as_path5_segment_run(folder, "singleton-c2-a1", op="sendInts")
    result = load(folder)
    assert dmod.measure(result, run_steps(result)).fit_runs == []
    # a clones folder (no segment runs): the baseline alone, as before
    plain = load(data / "predict-handmade")
    assert dmod.measure(plain, run_steps(plain)).fit_runs == []


@pytest.mark.parametrize("probes_dir, probe_id", [("probes", "cost-probe"), ("calibration", "calibration")],
                         ids=["probes", "written-before-probes-were-named-so"])
def test_a_clones_folders_cost_probe_is_the_fits_second_point(data, tmp_path, probes_dir, probe_id):
    """The runner's cost probe (probes/cost-probe/: /seg/5 with the baseline's stack, no service
    wait; calibration/calibration/ in a folder an older runner wrote) is no run of the experiment,
    yet the fit takes its steps, computed here."""
    import json
    import shutil
    from analysis.load.folder import load
    from analysis.predict import baseline_demands as dmod, forecast
    from analysis.steps import run_steps
    folder = tmp_path / "clones-like"
    shutil.copytree(data / "predict-handmade", folder)
    probe = folder / probes_dir / probe_id
    shutil.move(folder / "runs" / "singleton-c2-a1", probe)
    m = json.loads((probe / "run.json").read_text())
    m.update(id=probe_id, tiers=dict(m["tiers"], clone=1), demands={})
    (probe / "run.json").write_text(json.dumps(m))
    result = load(folder)
    steps = run_steps(result)
    assert probe_id not in steps and [r.id for r in result.runs] == ["singleton-c1-a1"]
    d = dmod.measure(result, steps)
    # the baseline's three steps and the cost probe's last, warm (analysis.steps.warm_step)
    assert d.fit_runs == [probe_id] and d.cpu_fits["front"].steps == 4
    assert [r.id for r in forecast.runs_named(result, (probe_id,))] == [probe_id]
    from analysis.predict import report_section, section
    view = report_section.view(section.build(result, steps, simulate=False))
    assert view["fit_runs"] == "the cost probe"
    fit = {"resolved": True, "steps": 5, "span": 14.5, "u0_cores": 0.013}
    assert "(the baseline's and the cost probe's)" in report_section._cpu_source(fit, [probe_id])
    background = cpufit.fit([43.7, 43.0, 43.1, 42.9, 607.5], [0.0130, 0.0142, 0.0121, 0.0160, 0.0175]).to_json()
    assert report_section._cpu_source(background, [probe_id]).endswith(
        "taken off the pool — " + background["note"]) and "mostly background" in background["note"]
    # a cost probe of another stack (2 clones) is not the baseline's path
    m.update(tiers=dict(m["tiers"], clone=2))
    (probe / "run.json").write_text(json.dumps(m))
    assert dmod.measure(load(folder), steps).fit_runs == []



def test_a_cost_probe_chooses_the_wait_from_its_first_step_and_fits_its_last():
    from analysis.steps import INCOMPLETE, StepSample, first_step, warm_step

    def step(i, x, excluded=False):
        s = StepSample("cost-probe", i, 16, 0.0, 1.0, 2.0, 1.0, throughput=x, cpu={"front": 60.0})
        if excluded:
            s.flags[INCOMPLETE] = "the run stopped inside it"
        return s
    steps = [step(0, 500.0), step(1, 560.0), step(2, 600.0)]
    assert first_step(steps) == [steps[0]] and warm_step(steps) == [steps[2]]
    cut = steps[:2] + [step(2, 610.0, excluded=True)]
    assert warm_step(cut) == [steps[1]] and first_step([step(0, 1.0, excluded=True)] + steps) == [steps[0]]
    assert warm_step([step(0, None)]) == [] and first_step([]) == []
