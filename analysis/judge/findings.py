"""Findings: what a report opens with. Each classic finding of an experiment is stated as a
claim, beside this run's figure and the classic study's published figure, with a verdict.

    Finding(claim="cloning the client tier gives near-linear gains",
            measured="×2: 1.99, ×4: 3.76", published="7.4 → 15 → 26 tps (×2.0, ×3.5)",
            verdict=HOLDS, why="speed-ups within 25 % of the replica count",
            method="clone-scaling-and-the-client-lifecycles")

A verdict is one of VERDICTS; `not measurable` always says why. "does not hold here" is for a
run in the regime the finding needs that still disagreed; a run the machine limited (its host
or load generator out of CPU at the plateau: analysis/judge/regime.py) reads "not testable on this
host", with the cause and the fix in `why`. Findings are computed from
data by each experiment's analysis module, never written by hand: the module states the rule
(the `rule` field) so a reader can check the verdict against the figures.

Every finding names the section of the testbed's method it rests on (`method`: the anchor of a
`## ` section of docs/method.md, one of analysis.judge.method.SECTIONS; a verdict of "not testable on
this host" names "Scaling an experiment to the host", which says why). A report links each
finding's claim to that section, embedded at the report's end (analysis/judge/method.py), and its
published figure to "The classic figures", where the figure's source is named. summary.json
carries it as the finding's "method" key; a finding read from a file written before findings
had one has "" there.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from analysis.judge import method as methodmod
HOLDS = "holds"
DOES_NOT_HOLD = "does not hold here"
NOT_MEASURABLE = "not measurable"
NOT_MEASURED = "not measured"
NOT_TESTABLE = "not testable on this host"
VERDICTS = (HOLDS, DOES_NOT_HOLD, NOT_TESTABLE, NOT_MEASURABLE, NOT_MEASURED)


@dataclass(frozen=True)
class Finding:
    claim: str            # the classic finding, one sentence
    measured: str         # this run's figure(s), as text a person reads
    published: str        # the classic study's figure ("" when it published none)
    verdict: str          # one of VERDICTS
    why: str = ""         # the rule applied, or why it could not be applied
    key: str = ""         # a stable name for tests and summary.json readers
    method: str = field(kw_only=True)   # the docs/method.md section it rests on (analysis.judge.method)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        if self.method not in methodmod.SECTIONS and self.method != "":
            raise ValueError(f"method {self.method!r} is not a section of docs/method.md "
                             f"({', '.join(methodmod.SECTIONS)})")

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "Finding":
        """A finding from summary.json; one written before findings named their method has ""."""
        return cls(**{k: d.get(k, "") for k in ("claim", "measured", "published", "verdict", "why", "key", "method")})


def judged(ok: bool | None, why_not_measurable: str = "") -> str:
    """A verdict from a test that may not have been possible (None)."""
    if ok is None:
        return NOT_MEASURABLE
    return HOLDS if ok else DOES_NOT_HOLD


def missing(claim: str, published: str, why: str, key: str = "", *, method: str) -> Finding:
    """The finding could not be judged: no data for it in this run (e.g. --quick left it out)."""
    return Finding(claim, "—", published, NOT_MEASURED, why, key, method=method)


_CLASS = {HOLDS: "holds", DOES_NOT_HOLD: "fails", NOT_TESTABLE: "untestable", NOT_MEASURABLE: "na",
          NOT_MEASURED: "na"}  # analysis/render/templates/style.css


def finding_rows(findings: list[Finding]) -> list[dict]:
    """The findings table's rows (analysis/render/templates/macros.html.j2, findings): each finding, the CSS
    class of its verdict and the title of its method's section (for the link's tooltip)."""
    titles = _titles()
    return [{**f.to_json(), "css": _CLASS[f.verdict], "method_title": titles.get(f.method, "")} for f in findings]


def methods(findings: list[Finding]) -> list[str]:
    """The docs/method.md sections a report embeds for these findings: each one's own, and "The
    classic figures" (where each published figure's source is named) when one has a figure."""
    used = [f.method for f in findings if f.method]
    if any(f.published and f.method for f in findings):
        used.append(methodmod.CLASSIC_FIGURES)
    return list(dict.fromkeys(used))


def method_html(findings: list[Finding]) -> str:
    """The sections methods() names, rendered for the end of a report."""
    return methodmod.html(methods(findings))


def _titles() -> dict[str, str]:
    try:
        return methodmod.headings()
    except OSError:          # a report is still made without the page; its links say nothing more
        return {}


def text_lines(findings: list[Finding]) -> list[str]:
    """The same for a terminal: one finding per line, verdict first."""
    out = []
    for f in findings:
        pub = f" (published: {f.published})" if f.published else ""
        out.append(f"  [{f.verdict}] {f.claim}: {f.measured}{pub}"
                   + (f" — {f.why}" if f.verdict == NOT_TESTABLE else ""))
    return out
