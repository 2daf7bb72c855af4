"""The classic experiment's report on its committed sample (data/classic-handmade, made by
data/make_classic.py with the published figures ×10): both analyses, the findings of both
kinds first, and the side-by-side table with intervals and normalized columns."""
from __future__ import annotations

import json
import re

import pytest

from analysis.judge import classic, sidebyside
from analysis.judge.findings import VERDICTS
from analysis.render.report import regenerate

SEGMENT_KEYS = {"segment5_dominates", "jsp_cheap", "segment3_measurable", "segment4_measurable"}
CLONE_KEYS = {"service_tier_flat", "client_tier_linear", "singleton_software_bottleneck",
              "request_multiple", "pool_fix"}


@pytest.fixture(scope="module")
def report(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("classic")
    regenerate(data / "classic-handmade", out)
    return json.loads((out / "summary.json").read_text()), (out / "report.html").read_text()


def test_every_run_gets_the_analysis_of_its_part(report):
    s, _ = report
    assert s["experiment"]["kind"] == "classic" and s["runs_total"] == 12 and s["lost"] == []
    assert [p["path"] for p in s["paths"]] == [1, 2, 3, 4, 5]
    assert {r["id"] for r in s["runs"] if r.get("scaling")} == {
        f"{k}-r0" for k in ("singleton-c1-a1", "singleton-c1-a2", "singleton-c1-a4", "singleton-c2-a1",
                            "singleton-c4-a1")}
    assert not any(r.get("client_mode") for r in s["runs"] if r["id"].startswith("axis-path"))
    segs = {g["segment"]: g for g in s["segments"]}
    assert segs[4]["throughput"] == pytest.approx(4300 * 5200 / 900, rel=0.02)
    # the clone runs' noise band is their own ([settings.clones]); the segments keep 3 %
    assert segs[3]["tolerance"] == 0.03 and s["settings"]["clones"] == {"tolerance": 0.05}


def test_the_findings_of_both_kinds_come_first_each_with_a_verdict(report):
    s, page = report
    keys = [f["key"] for f in s["findings"]]
    assert set(keys) == SEGMENT_KEYS | CLONE_KEYS
    assert keys.index("segment5_dominates") < keys.index("service_tier_flat")
    assert all(f["verdict"] in VERDICTS and f["published"] for f in s["findings"])
    assert all(f["verdict"] == "holds" for f in s["findings"]), [f for f in s["findings"] if f["verdict"] != "holds"]
    order = [page.index(f'id="{t}"') for t in ("findings", "side-by-side", "runs", "paths", "clones", "settings")]
    assert order == sorted(order)


def test_every_published_figure_stands_beside_this_runs_with_its_interval(report):
    s, page = report
    rows = {r["figure"]: r for r in s["side_by_side"]}
    published = {r["published"] for r in rows.values() if r["published"] is not None}
    for figure in (*classic.PUBLISHED["paths"].values(), *classic.PUBLISHED["segments"].values(),
                   *classic.PUBLISHED["singleton_clones"].values(), *classic.PUBLISHED["request"].values(),
                   classic.PUBLISHED["fix"], 918):
        assert figure in published
    assert rows["capacity with think time Z = 30 s (users)"]["published_text"] == classic.PUBLISHED["capacity"]
    for r in rows.values():
        if r["measured"] is not None and r["note"] != "reference" and "capacity" not in r["figure"]:
            lo, hi = r["interval"]
            assert lo <= r["measured"] and (hi is None or r["measured"] <= hi), r["figure"]
    t1 = rows["path maximum T(①)"]
    assert t1["normalized"] == 1.0 and t1["note"] == "reference" and t1["interval"][0] < t1["measured"]
    assert rows["client per request, 4 clones (tps)"]["measured"] is None      # not run: said so
    table = page[page.index('id="side-by-side"'):]
    assert "7.4" in table and "37,972" in table and "N = 18 + 30 × 30 = 918 users" in table and " – " in table


def test_normalized_figures_agree_with_the_published_ones_where_the_sample_copies_them(report):
    """The sample is the published figures ×10: each normalized interval holds the published
    normalized value (the check a reader makes on a real run, by eye)."""
    s, _ = report
    for r in s["side_by_side"]:
        if r["normalized_interval"] and r["published_normalized"] is not None:
            lo, hi = r["normalized_interval"]
            assert lo <= r["published_normalized"] * 1.01 and (hi is None or r["published_normalized"] <= hi * 1.01), r


def test_intervals_are_shown_where_the_maxima_are(report):
    _, page = report
    for table in ("runs", "paths", "segments", "clones", "steps"):
        head = re.search(rf'<table id="{table}"><thead>(.*?)</thead>', page).group(1)
        assert "95 % interval" in head, table
    assert "ramp stopped" in page and ">ci<" in page and ">max<" in page   # how adaptive steps ended


def test_the_terminal_shows_the_table_too(report):
    s, _ = report
    lines = sidebyside.text_lines(s["side_by_side"])
    assert any("T(①-⑤)" in ln and "7.4" in ln and "[" in ln for ln in lines)


def test_each_claim_links_to_its_method_embedded_at_the_end_of_the_page(report):
    """A report may be read far from the repository: the sections its findings rest on are in
    the page (after the settings), and every in-page link has its target."""
    from html.parser import HTMLParser

    class Links(HTMLParser):
        def __init__(self):
            super().__init__()
            self.ids, self.hrefs = [], []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if "id" in a:
                self.ids.append(a["id"])
            if tag == "a" and (a.get("href") or "").startswith("#"):
                self.hrefs.append(a["href"][1:])

    s, page = report
    p = Links()
    p.feed(page)
    methods = {f["method"] for f in s["findings"]}
    assert methods == {"the-segment-law", "clone-scaling-and-the-client-lifecycles"}
    assert methods | {"the-classic-figures"} <= set(p.hrefs) and set(p.hrefs) <= set(p.ids)
    for anchor in methods | {"the-classic-figures"}:
        assert page.index(f'id="{anchor}"') > page.index('id="settings"') > page.index('id="findings"')
    assert 'id="method-sections"' in page and "| path maximum" not in page     # Markdown rendered, not shown
    assert "<td>812 tps</td>" in page                # the published tables come with their section
