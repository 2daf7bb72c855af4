"""Where a prediction misses, tier by tier (analysis/predict/tiercpu.py): each tier's CPU per
request in the model against the measured one, in summary.json, the report and validate, on
the hand-made folder (data/make_predict.py: 13 ms a request at the baseline, 4 loadgen, 1.5
haproxy, 3 front, 2 clone, 1.5 axis, 1 unattributed; its 2-clone run measured the same)."""
import functools
import json

import pytest

from analysis.predict import report_section, section, tiercpu, validate
from analysis.render import pages
from handmade_probe import PROBE, request_run, with_probe

MS = {"loadgen": 4.0, "haproxy": 1.5, "front": 3.0, "clone": 2.0, "service": 1.5, "unattributed": 1.0}


@pytest.fixture()
def handmade(data, tmp_path):
    return data / "predict-handmade"


def _ms(c: dict, side: str) -> dict:
    return {r["tier"]: round(r[side] * 1e3, 6) for r in c["tiers"]}


def test_a_client_per_request_is_the_baseline_plus_the_build_per_tier_against_its_highest_step(handmade, tmp_path):
    with_probe(handmade, tmp_path, PROBE)
    result, steps = request_run(tmp_path / "with-probe", {"primed": True})
    rows = {tuple(r["runs"]): r for r in section.build(result, steps, simulate=False)["configurations"]}
    req = rows[("request-c1-a1",)]["tier_cpu"]
    # the probe's clone 1 ms, haproxy 0.5 and axis 0.5 ms a build (gsoap's, idle, left out) on
    # top of the baseline's; measured: the 2-clone run's 140/s, the baseline's CPU per request
    assert req["throughput"] == pytest.approx(140)
    assert _ms(req, "model_s") == {**MS, "clone": 3.0, "haproxy": 2.0, "service": 2.0}
    assert _ms(req, "measured_s") == MS
    assert req["model_s"] == pytest.approx(0.015) and req["measured_s"] == pytest.approx(0.013)
    assert tiercpu.largest_gaps(req).startswith("clone +1.00 ms (3.00 against 2.00)")
    # a singleton's model is the baseline's: no gap; a configuration not measured has no row
    two = rows[("singleton-c2-a1",)]["tier_cpu"]
    assert _ms(two, "model_s") == MS and all(abs(r["gap_s"]) < 1e-9 for r in two["tiers"])
    assert rows[("pool-c1-a1",)]["tier_cpu"] is None


def test_a_fresh_clients_first_call_is_charged_to_the_clone_the_model_and_the_report(handmade, tmp_path):
    """build_probe.json's first_call (the probe's rounds with 0, 1 and 2 calls a client): its
    clone_s on top of the build's clone CPU, in the per-request model, its tier row and the
    report's demand table; a negative reading (noise) charges nothing."""
    with_probe(handmade, tmp_path, {**PROBE, "first_call": {"turns": [], "clone_s": 0.0005}})
    result, steps = request_run(tmp_path / "with-probe", {"primed": True})
    p = section.build(result, steps, simulate=False)
    req = next(r for r in p["configurations"] if r["runs"] == ["request-c1-a1"])
    assert p["build_probe"]["first_call_s"] == pytest.approx(0.0005)
    assert _ms(req["tier_cpu"], "model_s") == {**MS, "clone": 3.5, "haproxy": 2.0, "service": 2.0}
    # CPU-bound: 2 cores over the model's 15.5 ms a request, against 15 ms without the first call
    assert req["predicted_max_throughput"] == pytest.approx(2 / 0.0155, rel=0.01)
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(report_section.view(p), {})
    assert "client build: clone CPU of the first call" in html
    with_probe(handmade, tmp_path / "negative", {**PROBE, "first_call": {"turns": [], "clone_s": -0.0002}})
    result, steps = request_run(tmp_path / "negative" / "with-probe", {"primed": True})
    p = section.build(result, steps, simulate=False)
    req = next(r for r in p["configurations"] if r["runs"] == ["request-c1-a1"])
    assert p["build_probe"]["first_call_s"] == 0 and _ms(req["tier_cpu"], "model_s")["clone"] == 3.0
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(report_section.view(p), {})
    assert "first call" not in html


def test_a_build_dearer_with_many_at_once_is_charged_at_the_requests_per_clone(handmade, tmp_path):
    """build_probe.json's crowding (the probe's rounds at 2 and 64 threads): the clone's build and
    first call (1 + 0.5 ms) times the factor at the requests per clone — linear from 1 at 2 to
    the ratio at 64 — in the per-request model (at 16 users 1 + 0.62 x 14 / 62 = 1.14), its
    tier row at its highest step (of equal ones the most users': 16, 1.14) and the report's demand
    table; a ratio below 1 crowds nothing."""
    crowd = {"threads": [2, 64], "calls": 1, "turns": [], "ratio": 1.62}
    first = {"turns": [], "clone_s": 0.0005}
    with_probe(handmade, tmp_path, {**PROBE, "first_call": first, "crowding": crowd})
    result, steps = request_run(tmp_path / "with-probe", {"primed": True})
    p = section.build(result, steps, simulate=False)
    req = next(r for r in p["configurations"] if r["runs"] == ["request-c1-a1"])
    assert p["build_probe"]["crowding"] == [[2, 1.0], [64, 1.62]]
    assert _ms(req["tier_cpu"], "model_s") == pytest.approx({**MS, "clone": 3.5 + 0.21, "haproxy": 2.0,
                                                            "service": 2.0})
    # CPU-bound at 16 users: 2 cores over 15.5 + 0.21 ms
    assert req["predicted_max_throughput"] == pytest.approx(2 / 0.01571, rel=0.01)
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(report_section.view(p), {})
    assert "client build: clone CPU more with 64 built at once" in html and "×1.620" in html
    with_probe(handmade, tmp_path / "noise", {**PROBE, "first_call": first, "crowding": {**crowd, "ratio": 0.95}})
    result, steps = request_run(tmp_path / "noise" / "with-probe", {"primed": True})
    p = section.build(result, steps, simulate=False)
    req = next(r for r in p["configurations"] if r["runs"] == ["request-c1-a1"])
    assert p["build_probe"]["crowding"] is None and _ms(req["tier_cpu"], "model_s")["clone"] == 3.5
    assert req["predicted_max_throughput"] == pytest.approx(2 / 0.0155, rel=0.01)


def test_the_background_is_spread_over_the_steps_requests_per_replica():
    demands = {"backend": "axis", "cpu_s": {"front": {"mean": 0.002}, "clone": {"mean": 0.001},
                                           "service": {"mean": -0.0001}, "loadgen": None},
               "background_cores": {"clone": 0.05, "haproxy": 0.02}}
    cpu = tiercpu.model_cpu(demands, None, {"client_mode": "singleton", "clones": 4, "service": 1}, "baseline", 100.0)
    # 0.05 cores per clone replica x 4 over 100/s, HAProxy's once; a demand below zero counts as 0
    assert cpu == pytest.approx({"front": 0.002, "clone": 0.001 + 0.002, "service": 0.0, "haproxy": 0.0002})
    # a client per request fitted to its own step (no probe) is not the baseline's model
    assert tiercpu.model_cpu(demands, PROBE, {"client_mode": "request"}, "its own lowest-load step", 100.0) is None


def test_the_report_shows_each_tiers_cpu_model_against_measured(handmade, tmp_path):
    with_probe(handmade, tmp_path, PROBE)
    result, steps = request_run(tmp_path / "with-probe", {"primed": True})
    view = report_section.view(section.build(result, steps, simulate=False))
    html = pages.ENV.get_template("experiments/prediction.html.j2").module.prediction(view, {})
    assert 'id="prediction-tier-cpu"' in html
    row = html.split('id="prediction-tier-cpu"')[-1].split("request · clone 1 · service 1")[1].split("</tr>")[0]
    assert "<td class=\"n\">3 / 2</td>" in row and "15 / 13" in row and "15.4%" in row
    assert "clone +1.00 ms (3.00 against 2.00)" in row


def test_validate_names_the_tiers_of_a_configuration_missing_by_more_than_10_percent(handmade, tmp_path, monkeypatch):
    # a build of 5 ms of clone CPU: 19 ms a request, 2 cores / 19 ms = 105/s against 140
    heavy = {**PROBE, "cpu_s_per_build": {**PROBE["cpu_s_per_build"], "clone": 0.005}}
    with_probe(handmade, tmp_path, heavy)
    request_run(tmp_path / "with-probe", {"primed": True})
    monkeypatch.setattr(section, "build", functools.partial(section.build, simulate=False))
    out = tmp_path / "v.md"
    assert validate.main([str(tmp_path / "with-probe"), "-o", str(out)]) == 0
    md = out.read_text()
    assert "where the saturation error exceeds 10%" in md
    line = next(x for x in md.splitlines() if x.startswith("- with-probe: request"))
    assert "the model's CPU per request 19.00 ms against 13.00 measured at 140.0/s" in line
    assert "largest gaps clone +5.00 ms (7.00 against 2.00)" in line
    assert "singleton · clone 2" not in md.split("where the saturation error exceeds")[1]
