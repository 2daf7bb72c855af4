"""Several classic runs held against the published shape (analysis/judge/repeats.py)."""
from __future__ import annotations

import json

from analysis.judge import repeats
def _summary(x4: float, pool: float, iv=None, verdict="holds") -> dict:
    return {"experiment": {"name": "classic", "kind": "classic", "status": "complete", "started": 0, "ended": 540,
                           "scaling": {"sentence": "scaled to this host: service wait 14 ms because ..."}},
            "findings": [{"key": "client_tier_linear", "verdict": verdict}],
            "side_by_side": [
                {"figure": "singleton client, 1 clone (tps)", "published_normalized": 1.0, "normalized": 1.0,
                 "normalized_interval": None, "note": "reference"},
                {"figure": "singleton client, 4 clones (tps)", "published_normalized": 3.51, "normalized": x4,
                 "normalized_interval": None, "note": ""},
                {"figure": "the eventual fix (tps)", "published_normalized": 13.5, "normalized": pool,
                 "normalized_interval": iv, "note": ""}]}


def test_each_figure_is_judged_per_run_and_by_its_median():
    t = repeats.table([_summary(3.9, 8.0, iv=[6.0, 14.0]), _summary(4.3, 8.1), _summary(3.7, 20.0)])
    fig = {f["figure"]: f for f in t["figures"]}
    assert "singleton client, 1 clone (tps)" not in fig              # the reference says nothing
    x4 = fig["singleton client, 4 clones (tps)"]
    assert x4["median"] == 3.9 and x4["verdicts"] == ["within", "off", "within"] and x4["median_verdict"] == "within"
    pool = fig["the eventual fix (tps)"]
    assert pool["verdicts"] == ["interval reaches it", "off", "off"] and pool["median_verdict"] == "off"
    assert t["runs"][0]["minutes"] == 9.0 and t["runs"][0]["verdicts"] == {"client_tier_linear": "holds"}


def test_the_command_writes_one_file_from_the_folders(tmp_path, capsys):
    folders = []
    for i, s in enumerate((_summary(3.9, 13.0), _summary(3.6, 12.0, verdict="not testable on this host"))):
        d = tmp_path / f"classic-{i}"
        d.mkdir()
        (d / "summary.json").write_text(json.dumps(s))
        folders.append(str(d))
    out = tmp_path / "three.md"
    assert repeats.main([*folders, "-o", str(out)]) == 0
    text = out.read_text()
    assert "| client_tier_linear | holds | not testable on this host |" in text
    assert "| singleton client, 4 clones (tps) | 3.51 | 3.9 (within) | 3.6 (within) | 3.75 (within) |" in text
    assert "9.0 min" in text and "scaled to this host" in text


def test_a_figure_without_a_value_is_judged_by_its_interval_alone():
    # a segment within the noise band: no T(k), but T(k) >= the interval's low end, no upper end
    assert repeats.judge(None, [13.1, None], 46.8, 0.2) == "interval reaches it"
    assert repeats.judge(None, [60.0, None], 46.8, 0.2) == "off"
    assert repeats.judge(None, None, 46.8, 0.2) is None and repeats.judge(None, [], 46.8, 0.2) is None
