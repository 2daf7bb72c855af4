"""The testbed's method, docs/method.md: the sections a finding rests on, and those sections
as HTML for the end of a report.

Every Finding (analysis/judge/findings.py) names the section of docs/method.md it rests on by the
section's anchor: the GitHub slug of its `## ` heading, e.g. SEGMENT_LAW = "the-segment-law".
A report is one self-contained page that may be moved away from the repository, where a link
into a .md file would show raw text; so the report embeds, at its end, the sections its
findings name, rendered from docs/method.md when the report is made (markdown-it-py, CommonMark
with tables; each `## ` heading's id is its GitHub slug, by mdit-py-plugins' anchors), and each
finding's claim links to its section in the page (#the-segment-law).

In the embedded sections, a link to another section of the page that the report embeds stays a
link; a link to a section it does not embed, or to another file of the repository, becomes its
text with where to find it (e.g. "docs/predict.md"), as those targets are not in the page.
"""
from __future__ import annotations

import functools
import html as htmllib
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:          # the Markdown library loads when a report is made, not with every finding
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

PAGE = Path(__file__).resolve().parents[2] / "docs" / "method.md"
PAGE_NAME = "docs/method.md"

# the sections of docs/method.md, by anchor (the GitHub slug of the heading)
REQUEST_PATH = "the-request-path-and-its-segments"
SEGMENT_LAW = "the-segment-law"
SCALING = "scaling-an-experiment-to-the-host"
CLONES = "clone-scaling-and-the-client-lifecycles"
CLASSIC_FIGURES = "the-classic-figures"
LATENCY = "latency-under-a-stall"
SERIALIZATION = "serialization-cost"
RPC = "rpc-latency-by-transport"
IPC = "ipc-throughput"
SERVERS = "socket-server-models"
SECTIONS = (REQUEST_PATH, SEGMENT_LAW, SCALING, CLONES, CLASSIC_FIGURES, LATENCY, SERIALIZATION, RPC, IPC, SERVERS)


@functools.cache
def _md() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.anchors import anchors_plugin
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    anchors_plugin(md, min_level=2, max_level=2)      # ids on `## ` headings only: GitHub's slugs
    return md


def _heading(tokens: list[Token], i: int) -> tuple[str, str] | None:
    """(anchor, title) of the `## ` heading opened at tokens[i], else None."""
    t = tokens[i]
    if t.type != "heading_open" or t.tag != "h2":
        return None
    return str(t.attrs.get("id", "")), tokens[i + 1].content


def _sections(text: str) -> dict[str, tuple[str, list[Token]]]:
    """anchor -> (title, the section's tokens, its heading first), in the page's order."""
    tokens = _md().parse(text)
    starts = [(i, h) for i in range(len(tokens)) if (h := _heading(tokens, i))]
    out = {}
    for n, (i, (anchor, title)) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(tokens)
        out[anchor] = (title, tokens[i:end])
    return out


def headings(text: str | None = None) -> dict[str, str]:
    """anchor -> title of every `## ` section of the page (default docs/method.md)."""
    return {a: t for a, (t, _) in _sections(PAGE.read_text(encoding="utf-8") if text is None else text).items()}


def _local(href: str, embedded: set[str]) -> str | None:
    """What a link becomes in the report: None to keep it, or the text to put after its words."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", href):           # https:, mailto:: the same anywhere
        return None
    path, _, fragment = href.partition("#")
    if not path:
        return None if fragment in embedded else f" ({PAGE_NAME})"
    return f" ({posixpath.normpath(posixpath.join(posixpath.dirname(PAGE_NAME), path))})"


def _rewrite(tokens: list[Token], embedded: set[str]) -> list[Token]:
    """The section's tokens for a report: headings one level down (the page's `## ` under the
    report's own heading), links the page cannot follow turned into text saying where to look."""
    from markdown_it.token import Token
    out = []
    for t in tokens:
        t = t.copy()
        if t.type in ("heading_open", "heading_close"):
            t.tag = f"h{min(int(t.tag[1]) + 1, 6)}"
        if t.children:
            children, closing = [], []
            for c in t.children:
                if c.type == "link_open":
                    where = _local(str(c.attrs.get("href", "")), embedded)
                    closing.append(where)
                    if where is not None:
                        continue
                elif c.type == "link_close":
                    where = closing.pop()
                    if where is not None:
                        children.append(Token("text", "", 0, content=where))
                        continue
                children.append(c)
            t.children = children
        out.append(t)
    return out


def html(anchors: Iterable[str], page: Path | None = None) -> str:
    """The sections of the page with these anchors, in the page's order, as HTML; "" for none.
    A section the page does not have is named as missing, never silently left out."""
    wanted = list(dict.fromkeys(a for a in anchors if a))
    if not wanted:
        return ""
    page = page or PAGE
    try:
        sections = _sections(page.read_text(encoding="utf-8"))
    except OSError as e:
        return f"<p>{PAGE_NAME} could not be read when this report was made ({htmllib.escape(str(e.strerror))}).</p>"
    embedded = {a for a in wanted if a in sections}
    tokens = [t for a, (_, ts) in sections.items() if a in embedded for t in _rewrite(ts, embedded)]
    body = _md().renderer.render(tokens, _md().options, {})
    missing = [a for a in wanted if a not in sections]
    if missing:
        body += (f"<p>Not in {PAGE_NAME} when this report was made: "
                 f"{htmllib.escape(', '.join('#' + a for a in missing))}.</p>\n")
    return body
