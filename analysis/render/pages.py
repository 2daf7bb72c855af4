"""The reports' HTML: one Jinja2 environment over analysis/render/templates/ and the filters that
format a figure for a cell. Every report.html is one self-contained page (inline CSS, images
as data URIs, no scripts), rendered from data: summary.json's dict and what a report's data
functions derive from it. No HTML is built in Python; the templates hold it.

    page = pages.render("experiments/segments.html.j2", s=summary, images={name: png_bytes})

Templates (docs/results.md, "Adding a report section"):
    base.html.j2              the page: head, CSS (style.css), body block
    macros.html.j2            table(), image(), na(), flags(), findings(), settings(),
                              method_sections() (docs/method.md's sections, analysis/judge/method.py)
    experiment.html.j2        an experiment's report (findings, runs, steps, method, settings)
    experiments/<kind>.html.j2  segments, clones, calibration, classic: extend it
    study.html.j2             a study's report (findings, its sections, lost, method, settings)
    studies/<kind>.html.j2    serialization, rpc, ipc, servers: extend it

Filters (None always reads as a grey dash):
    num(v, digits=4)   significant digits; 1e6 and above as whole numbers with separators
    pct(v)             a fraction as 12.3%
    fmt(v, spec)       Python's format spec: {{ x|fmt(",.0f") }}
    interval(iv, digits=4)  a 95 % interval [low – high], ∞ for an open upper end
    when(epoch)        UTC date and time
    text(v)            a setting as a person reads it (tables as `key value`, lists joined)
"""
from __future__ import annotations

import base64
import time
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

TEMPLATES = Path(__file__).resolve().parent / "templates"
NA = Markup('<span class="na">—</span>')


def num(v, digits: int = 4) -> Markup:
    if v is None:
        return NA
    if isinstance(v, float) and not isinstance(v, bool):
        # from 10**digits up, "g" would write 1.021e+04: whole numbers with separators instead
        return escape(f"{v:.{digits}g}") if abs(v) < 10 ** digits else escape(f"{v:,.0f}")
    return escape(v)


def pct(v) -> Markup:
    return NA if v is None else escape(f"{v:.1%}")


def fmt(v, spec: str) -> Markup:
    return NA if v is None else escape(format(v, spec))


def interval(iv, digits: int = 4) -> Markup:
    if not iv:
        return NA
    hi = "∞" if iv[1] is None else num(float(iv[1]), digits)
    return Markup("[{} – {}]").format(num(float(iv[0]), digits), hi)


def when(epoch) -> Markup:
    if epoch is None:
        return NA
    return escape(time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(epoch))))


def text(v) -> str:
    """A setting as text: a table of a classic part's overrides reads `tolerance 0.05`."""
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return ", ".join(f"{k} {text(x)}" for k, x in v.items()) or "none"
    if isinstance(v, (list, tuple)):
        return ", ".join(text(x) for x in v)
    return str(v)


def datauri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


ENV = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2", "html"]),
                  undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
ENV.filters.update(num=num, pct=pct, fmt=fmt, interval=interval, when=when, text=text)


def render(template, **context) -> str:
    """A template (a name under analysis/render/templates, or a Template) rendered with context;
    images (name -> PNG bytes) arrive in the template as data URIs."""
    context["images"] = {k: datauri(v) for k, v in (context.get("images") or {}).items()}
    return ENV.get_template(template).render(**context)
