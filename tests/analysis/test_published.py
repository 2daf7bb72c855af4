"""The published figures (analysis/judge/published.toml, read by analysis/judge/published.py): written once,
printed into docs/method.md's tables (method_tables.py) and into the findings' "published" texts."""
from __future__ import annotations

import tomllib

import pytest

from analysis.judge import method, method_tables, published
PAGE = method.PAGE


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_pages_tables_are_exactly_the_ones_printed_from_the_data_file(capsys):
    page = _page()
    block = page[page.index(method_tables.BEGIN):page.index(method_tables.END) + len(method_tables.END)]
    assert block == method_tables.markdown()
    assert method_tables.main(["--markdown"]) == 0
    assert capsys.readouterr().out == method_tables.markdown() + "\n"


def test_the_printed_tables_follow_the_data_file(tmp_path, monkeypatch):
    """A figure changed in the data file changes the page's table and the finding's text: neither
    is a copy of it."""
    text = published.DATA.read_text(encoding="utf-8").replace("5 = 7.4\n", "5 = 9.9\n", 1)
    assert tomllib.loads(text)["classic"]["paths"]["5"] == 9.9
    (tmp_path / "published.toml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(published, "DATA", tmp_path / "published.toml")
    for f in (published.data, published.classic):
        f.cache_clear()
    try:
        assert "| path maximum T(①-⑤) | 9.9 tps |" in method_tables.markdown()
        assert published.classic().segment5_text() == "T(1..4) 430 → T(1..5) 9.9 tps (98 %)"
        page = tmp_path / "method.md"
        page.write_text(_page(), encoding="utf-8")
        assert method_tables.update(page) and "| 9.9 tps |" in page.read_text(encoding="utf-8")
        assert not method_tables.update(page)                       # written once, then up to date
    finally:
        for f in (published.data, published.classic):
            f.cache_clear()


def test_the_findings_published_texts_are_formatted_from_the_data_as_before():
    c, r, i = published.classic(), published.rpc(), published.ipc()
    assert c.capacity_text() == "N = 18 + 30 × 30 = 918 users"
    assert c.client_tier_text() == "7.4 → 15 → 26 tps (×2: 2.03, ×4: 3.51)"
    assert c.fix_text() == "about 100 vs 7.4 tps (13.5×)"
    assert r.layer_text() == ("null RPC − raw 4-byte round trip: TCP 202 − 2×75.5 = 51 µs (25 % of the call), "
                              "user-level 36.3 − 2×12 = 12.3 µs (34 %)")
    assert i.gap_text() == "gap 1.4–2.2 s at 71 B, 0.19–0.38 s at 512 B; as a ratio ×1.45–1.81 → ×1.35–1.93"
    assert i.floor_finding_text().endswith("195 000 of 512 B in ≤ 0.79 s)")
    assert published.serialization().overhead_pct("sendBytes", 9 << 20) == pytest.approx(1464.3, abs=0.1)
    from analysis.judge import classic
    assert classic.PUBLISHED["paths"] == {1: 812, 2: 795, 3: 520, 4: 430, 5: 7.4}     # the shape others read


def test_each_study_in_the_page_names_its_source_or_says_its_title_is_not_given():
    md = " ".join(method_tables.markdown().split())                 # prose is wrapped: one line here
    for study in published.STUDIES:
        s = published.source(study)
        assert s.method in method.headings()       # a section of the page
        if s.title:
            assert f"“{s.title}”" in md and s.cite().startswith(f"“{s.title}”")
        else:
            assert s.cite().startswith("title not given")
    untitled = sum(not published.source(x).title for x in published.STUDIES if x != "prediction")
    assert md.count("the title of the published study is not given") == untitled
