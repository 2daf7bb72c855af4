"""The reports' templates (analysis/render/templates, analysis/render/pages.py): text from a result folder is
escaped, figures are formatted by the filters, and a study's page has its sections in order."""
from __future__ import annotations

import types

from analysis.judge.findings import HOLDS, Finding
from analysis.render import pages, study_report


def _study(**extra) -> dict:
    f = Finding("<b>claims</b> hold", "x < y & z", "", HOLDS, "rule", key="k", method="the-segment-law")
    return {"experiment": {"name": "t", "kind": "echo", "status": "complete", "params": {"n": [1, 2]},
                           "environment": {"limits": {"nofile": 1024}}},
            "measurements": {"ok": 2, "failed": 1}, "findings": [f.to_json()],
            "lost": [{"where": "p #1", "what": "failed: <script>alert(1)</script>"}], **extra}


def _module(template: str, **attrs):
    m = types.SimpleNamespace(METHOD="measure <things>\n", **attrs)
    m.TEMPLATE = pages.ENV.from_string('{% extends "study.html.j2" %}{% block sections %}' + template + "{% endblock %}")
    return m


def test_text_from_the_result_folder_is_escaped_everywhere():
    html = study_report.render(_study(), _module(""), {})
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;claims&lt;/b&gt; hold" in html and "x &lt; y &amp; z" in html
    assert "<pre>measure &lt;things&gt;</pre>" in html


def test_a_study_page_reads_findings_sections_lost_method_settings_in_order():
    mod = _module('<h2>Values</h2>{% for v in values %}<p>{{ v|num(3) }}</p>{% endfor %}',
                  view=lambda s: {"values": [s["x"], None]})
    html = study_report.render(_study(x=2 / 3), mod, {})
    order = [html.index(s) for s in ('id="findings"', "<h2>Values</h2>", 'id="lost"', 'id="method"', 'id="settings"')]
    assert order == sorted(order)
    assert "<p>0.667</p>" in html and '<p><span class="na">—</span></p>' in html
    assert "measurements: 1 failed, 2 ok." in html
    assert "<td>parameter: n</td><td>1, 2</td>" in html and "<td>environment: limits</td><td>nofile = 1024</td>" in html
    assert 'class="v holds"' in html


def test_filters_format_figures_and_show_a_missing_one_as_a_dash():
    assert pages.num(None) == pages.NA == '<span class="na">—</span>'
    assert (pages.num(1234.5678), pages.num(2_500_000.0), pages.num(7), pages.num(0.000123456, 2)) == \
        ("1235", "2,500,000", "7", "0.00012")
    assert pages.interval([9230.2, 10211.7]) == "[9230 – 10,212]"      # never 1.021e+04 in a report
    assert pages.pct(0.1234) == "12.3%" and pages.fmt(1234.5, ",.1f") == "1,234.5"
    assert pages.interval([1.0, None]) == "[1 – ∞]" and pages.interval(None) == pages.NA
    assert pages.when(0) == "1970-01-01 00:00:00 UTC"
    assert pages.text({"tolerance": 0.05, "steps": [1, 2]}) == "tolerance 0.05, steps 1, 2"
    assert pages.num("<x>") == "&lt;x&gt;"
