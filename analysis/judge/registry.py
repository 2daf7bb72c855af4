"""Which findings a result's report judges: the experiment file's `findings = [...]` (segments,
clones, calibration, stall), else its kind's own (docs/experiments.md, "Editing an experiment")."""
from __future__ import annotations

from analysis.judge import classic, stall
from analysis.judge.findings import Finding

FINDINGS = {"segments": classic.segment_findings, "clones": classic.clone_findings,
            "calibration": classic.calibration_findings,
            "stall": stall.findings}                      # experiment files: findings = [...]
BY_KIND = {"segments": ("segments",), "clones": ("clones",), "calibration": ("calibration",),
           "classic": ("segments", "clones")}


def declared(summary: dict) -> tuple[str, ...] | None:
    """The findings the experiment file lists (its `findings = [...]`), None when it lists none."""
    import tomllib
    text = (summary["experiment"].get("definition") or {}).get("toml")
    try:
        groups = tomllib.loads(text).get("findings") if text else None
    except tomllib.TOMLDecodeError:
        return None
    return tuple(g for g in groups if g in FINDINGS) if isinstance(groups, list) else None


def findings(summary: dict) -> list[Finding]:
    """The findings the experiment file lists, else its kind's; a clones experiment written before
    files listed theirs gets the stall finding when it paused a replica in both kinds of run."""
    kind = summary["experiment"]["kind"]
    groups = declared(summary)
    if groups is None and kind == "clones":
        return stall.findings(summary) or classic.clone_findings(summary)
    return [f for g in (BY_KIND.get(kind, ()) if groups is None else groups) for f in FINDINGS[g](summary)]
