"""Shared by the analysis and study tests: every finding names a section of docs/method.md
(analysis/judge/method.py), so a report can link its claim to the method it rests on."""
from __future__ import annotations

from analysis.judge import method
def check(findings: list[dict], section: str | None = None) -> None:
    """Each finding (summary.json's dicts) names a `## ` section that docs/method.md has; with
    section, that one."""
    assert findings, "no finding to check"
    sections = method.headings()
    for f in findings:
        assert f.get("method") in sections, (f.get("key"), f.get("method"), sorted(sections))
        if section is not None:
            assert f["method"] == section, (f.get("key"), f["method"], section)
