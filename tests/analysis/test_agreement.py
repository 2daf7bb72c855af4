"""analysis/judge/agreement.py: a classic run's figures held against full runs', by their intervals."""
from __future__ import annotations

import json

from analysis.judge import agreement
from analysis.render.report import regenerate


def test_maxima_agree_when_their_difference_is_within_its_interval():
    # 100 ± 3 and 104 ± 4: the difference 4 is within ±5 (√(3²+4²)), so they agree; 100 ± 3 and 109 ± 4 do not
    assert agreement.verdict(100, (97, 103), 104, (100, 108), symmetric=True) == agreement.AGREE
    assert agreement.verdict(100, (97, 103), 109, (105, 113), symmetric=True) == agreement.DIFFER


def test_derived_figures_agree_when_their_intervals_overlap_even_unbounded_ones():
    assert agreement.verdict(2.0, (1.8, 2.2), 2.5, (2.1, 2.9), symmetric=False) == agreement.AGREE
    assert agreement.verdict(2.0, (1.8, 2.2), 2.5, (2.3, 2.9), symmetric=False) == agreement.DIFFER
    assert agreement.verdict(9e4, (3e4, None), 5e5, (2e5, None), symmetric=False) == agreement.AGREE
    assert agreement.verdict(2.0, None, 2.5, (2.3, 2.9), symmetric=False) == agreement.NO_INTERVAL


def test_a_run_agrees_with_itself_and_a_shifted_copy_is_caught(data, tmp_path):
    regenerate(data / "classic-handmade", tmp_path)
    s = json.loads((tmp_path / "summary.json").read_text())
    rows = agreement.compare(s, s)
    names = {r["figure"] for r in rows}
    assert {"T(1..1)", "T(1..5)", "T(5)", "singleton-c2-a1 speed-up", "pool-c1-a1 vs singleton"} <= names
    assert all(r["verdict"] == agreement.AGREE for r in rows)
    shifted = json.loads(json.dumps(s))
    p5 = next(p for p in shifted["paths"] if p["path"] == 5)
    p5["max_throughput"] *= 1.5
    p5["interval"] = [x * 1.5 for x in p5["interval"]]
    verdicts = {r["figure"]: r["verdict"] for r in agreement.compare(s, shifted)}
    assert verdicts["T(1..5)"] == agreement.DIFFER and verdicts["T(1..4)"] == agreement.AGREE
    assert "figures agree" in agreement.markdown(rows)
