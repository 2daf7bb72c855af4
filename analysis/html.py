"""report.html: one self-contained page (inline CSS, images as data URIs, no scripts) rendered
from summary.json data, the per-step rows and the figures' PNG bytes.

Every table has a stable id (TABLE_IDS) so tests and readers can find it.
"""
from __future__ import annotations

import base64
import html
import time

from analysis.clones import config_text

TABLE_IDS = {
    "common": ("settings", "runs", "bottleneck", "excluded", "lost", "steps"),
    "segments": ("paths", "segments", "composition", "capacity"),
    "calibration": ("paths", "segments", "composition", "capacity", "calibration-segments",
                    "calibration-paths"),
    "clones": ("clones",),
    "classic": ("side-by-side", "paths", "segments", "composition", "capacity", "clones"),
}

CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:90%}
th,td{border:1px solid #bbb;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}
.flag{color:#a40}.na{color:#777;font-style:italic}pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap}
img{max-width:100%;border:1px solid #ddd}
.findings td.v{font-weight:bold;white-space:nowrap}.findings td.holds{color:#060}
.findings td.fails{color:#a00}.findings td.na{color:#777}.findings td.untestable{color:#a60}
#side-by-side td.n{white-space:nowrap}"""


def esc(v) -> str:
    return html.escape(str(v), quote=True)


def num(v, digits: int = 4) -> str:
    if v is None:
        return '<span class="na">—</span>'
    if isinstance(v, bool):
        return esc(v)
    if isinstance(v, float):
        return esc(f"{v:.{digits}g}") if abs(v) < 1e6 else esc(f"{v:,.0f}")
    return esc(v)


def pct(v) -> str:
    return '<span class="na">—</span>' if v is None else esc(f"{v:.1%}")


def when(epoch) -> str:
    if epoch is None:
        return '<span class="na">—</span>'
    return esc(time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(epoch))))


def table(table_id: str, headers: list[str], rows: list[list[str]], empty: str = "none") -> str:
    """rows hold already-escaped cell HTML; a cell starting with '#' is right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = "".join(f'<td class="n">{c[1:]}</td>' if c.startswith("#") else f"<td>{c}</td>"
                        for c in row)
        body.append(f"<tr>{cells}</tr>")
    if not rows:
        body.append(f'<tr><td colspan="{len(headers)}" class="na">{esc(empty)}</td></tr>')
    return f'<table id="{esc(table_id)}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def image(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<p><img alt="{esc(alt)}" src="data:image/png;base64,{data}"></p>'


def flags(d: dict) -> str:
    return "<br>".join(f'<span class="flag">{esc(k)}</span>: {esc(v)}' for k, v in d.items())


def setting_text(v) -> str:
    """A setting as text: a table of a classic part's overrides reads `tolerance 0.05`."""
    if isinstance(v, dict):
        return ", ".join(f"{k} {setting_text(x)}" for k, x in v.items()) or "none"
    if isinstance(v, (list, tuple)):
        return ", ".join(setting_text(x) for x in v)
    return str(v)


def settings_table(s: dict) -> str:
    e = s["experiment"]
    host = e.get("host") or {}
    rows = [["mode", esc(e.get("mode"))],
            ["host", esc(f"{host.get('cores')} cores, {host.get('cpu_model')}, {host.get('mem_gb')} GB")],
            ["CPU affinity", esc(e.get("cpu_affinity") or "none (processes float over all cores)")],
            ["CPU quotas (cores per replica)", esc(e.get("cpu_quotas") or "none")],
            ["started / ended", f"{when(e.get('started'))} / {when(e.get('ended'))}"],
            ["status", esc(e.get("status"))], ["runs", num(s.get("runs_total"))]]
    rows += [[esc(k), num(v) if v is None else esc(setting_text(v))] for k, v in s["settings"].items()]
    rows += [[esc(f"version: {k}"), esc(v)] for k, v in (e.get("versions") or {}).items()]
    return table("settings", ["setting", "value"], rows)


def interval(iv, digits: int = 4) -> str:
    """A 95 % interval cell: [low – high]; an unbounded upper end is ∞."""
    if not iv:
        return '<span class="na">—</span>'
    hi = "∞" if iv[1] is None else num(float(iv[1]), digits)
    return f"[{num(float(iv[0]), digits)} – {hi}]"


def runs_table(s: dict) -> str:
    rows = []
    for r in s["runs"]:
        cfg = config_text(r["config"])
        rows.append([esc(r["id"]), esc(r["label"]), esc(r["status"]), esc(cfg),
                     f"#{r['valid_steps']}/{r['steps']}", "#" + num(r["max_throughput"]),
                     "#" + interval(r.get("max_interval")),
                     "#" + num(r["critical_users"]), esc(r["no_maximum"] or "")])
    return table("runs", ["run", "label", "status", "configuration", "valid/steps",
                          "max throughput (/s)", "95 % interval", "critical users", "note"], rows)


def bottleneck_table(s: dict) -> str:
    rows = []
    for r in s["runs"]:
        b = r["bottleneck"]
        util = ", ".join(f"{t} {u:.0%}" for t, u in sorted(b["utilisation"].items()))
        dumps = "<br>".join(esc(f"{d['tier']}-{d['replica']}: {d['sentence']}") for d in b["threaddumps"])
        rows.append([esc(r["id"]), esc(b["kind"]), esc(b["text"]), pct(b["host_utilisation"]),
                     esc(util), dumps])
    return table("bottleneck", ["run", "kind", "hint", "host CPU (of capacity)",
                                "tier CPU (of capacity) at the max step", "thread dumps"], rows)


def excluded_table(s: dict) -> str:
    rows = [[esc(x["run_id"]), f"#{x['step']}", f"#{x['users']}", flags(x["flags"])]
            for x in s["excluded_steps"]]
    out = table("excluded", ["run", "step", "users", "why excluded"], rows,
                "no step excluded")
    notes = [[esc(x["run_id"]), f"#{x['step']}", f"#{x['users']}", flags(x["flags"])]
             for x in s["step_notes"]]
    if notes:
        out += "<p>Notes on steps that were kept:</p>" + table(
            "step-notes", ["run", "step", "users", "note"], notes)
    return out


def lost_table(s: dict) -> str:
    rows = [[esc(x["run_id"] or "experiment"), esc(x["what"])] for x in s["lost"]]
    return table("lost", ["where", "what was lost or not recorded"], rows, "nothing lost")


def steps_table(step_rows: list[dict]) -> str:
    rows = []
    for r in step_rows:
        cpu = ", ".join(f"{t} {v:.0f}%" for t, v in sorted(r["cpu"].items()))
        ci = r.get("throughput_ci95")
        rows.append([esc(r["run_id"]), f"#{r['index']}", f"#{r['users']}", "#" + num(r["window_s"]),
                     "#" + num(r["requests"]), "#" + num(r["throughput"]),
                     "#" + (f"± {num(ci, 2)}" if ci is not None else num(None)),
                     esc(r.get("ended_by") or ""),
                     "#" + num(r["throughput_fit"]), pct(r["error_rate"]),
                     "#" + num(r["p50_ms"]), "#" + num(r["p95_ms"]), "#" + num(r["p99_ms"]),
                     esc(cpu), "#" + num(r["host_cpu"]),
                     "excluded" if r["excluded"] else "",
                     flags({**r["flags"], **({"ramp stopped": r["ramp_stopped"]} if r.get("ramp_stopped") else {})})])
    return table("steps", ["run", "step", "users", "window (s)", "requests", "throughput (/s)",
                           "95 % interval", "ended by", "fit (/s)", "errors", "p50 ms", "p95 ms", "p99 ms",
                           "CPU per tier (% of a core)", "host CPU %", "", "flags"], rows)


def method_section(s: dict) -> str:
    parts = [f"<h3>{esc(k)}</h3><pre>{esc(v)}</pre>" for k, v in s["method"].items()]
    return '<section id="method"><h2>Method</h2>' + "".join(parts) + "</section>"


def page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
