"""Regenerate a result folder's derived files from its raw files alone:
steps.csv, summary.json, plots/*.png + *.svg and report.html.

    from analysis.render.report import regenerate
    written = regenerate("results/segments-20250101-120000")   # -> {name: Path}
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from analysis import steps
from analysis.judge import regime, sidebyside
from analysis.judge.findings import Finding, finding_rows, method_html
from analysis.load import faults as faultmod
from analysis.load.folder import load
from analysis.measure import maxima
from analysis.measure.clones import config_text
from analysis.predict import figures as pfigures
from analysis.predict.report_section import view as prediction_view
from analysis.render import pages, plots, timetable
from analysis.summary import Analysis, analyse

STEPS_FILE, SUMMARY_FILE, REPORT_FILE, PLOTS_DIR = "steps.csv", "summary.json", "report.html", "plots"


def _part(run) -> str:
    return str(run.meta.get("kind"))


def _throughput_lines(a: Analysis, part: str | None = None) -> tuple[dict[str, list[plots.Point]], dict[str, str]]:
    """Lines per run (repeats labelled) and the configuration each belongs to (its colour);
    part: only the runs of that part of a classic experiment."""
    lines, groups = {}, {}
    for run in a.result.runs:
        if part is not None and _part(run) != part:
            continue
        label = run.label if run.meta.get("repeat") in (None, 0) else f"{run.label} (repeat {run.meta['repeat']})"
        if label in lines:
            label = f"{label} [{run.id}]"
        lines[label] = [(s.users, s.throughput, s.excluded) for s in a.steps[run.id]]
        groups[label] = maxima.config_key(run.meta)
    return lines, groups


def figures(a: Analysis) -> dict[str, object]:
    """name -> Figure for everything the report shows."""
    s = a.summary
    classic = s["experiment"]["kind"] == "classic"
    lines, groups = _throughput_lines(a, "segments" if classic else None)
    figs = {"throughput": plots.throughput_vs_users(
        lines, f"{s['experiment']['name']}: throughput vs users" + (" (segment paths)" if classic else ""),
        groups)}
    if classic:
        lines, groups = _throughput_lines(a, "clones")
        figs["throughput-clones"] = plots.throughput_vs_users(
            lines, f"{s['experiment']['name']}: throughput vs users (clone runs, /seg/5)", groups)
    if s.get("segments"):
        figs["segments"] = plots.segment_bars(s["segments"])
    p = s.get("prediction") or {}
    if p.get("configurations"):
        figs["prediction"] = pfigures.overlay(
            [{"text": c["text"], "users": c["users"], "predicted": c["predicted"],
              "measured": [(u, x) for u, x in zip(c["users"], c["measured"]) if x is not None]}
             for c in p["configurations"]], f"{s['experiment']['name']}: predicted vs measured")
    if "scaling" in s:
        figs["clones"] = plots.clone_scaling({k: [tuple(p) for p in v] for k, v in s["scaling"].items()})
    for run in a.result.runs:
        windows = [(f["from_s"], f["to_s"], f"{f['action']} {f['target']}") for f in s.get("faults", [])
                   if f["run_id"] == run.id and f["from_s"] is not None]
        if windows:
            figs[f"timeline-{run.id}"] = plots.timeline(faultmod.timeline(run.history, run.latency), windows,
                                                        f"{run.id}: faults injected")
        rows = [{"users": x.users, "throughput": x.throughput, "excluded": x.excluded,
                 "cpu": x.cpu, "host_cpu": x.host_cpu} for x in a.steps[run.id]]
        figs[f"cpu-{run.id}"] = plots.cpu_beside_throughput(rows, f"{run.id}: {run.label}")
    return figs


TABLE_IDS = {         # every experiment report has these tables (tests and readers find them by id)
    "common": ("settings", "runs", "bottleneck", "excluded", "lost", "steps"),
    "segments": ("paths", "segments", "composition", "capacity"),
    "calibration": ("paths", "segments", "composition", "capacity", "calibration-segments",
                    "calibration-paths"),
    "clones": ("clones",),
    "classic": ("side-by-side", "paths", "segments", "composition", "capacity", "clones"),
}


def settings_rows(s: dict) -> list[tuple[str, object]]:
    """The Settings table: the experiment's stack and host, then its settings and versions."""
    e = s["experiment"]
    host = e.get("host") or {}
    rows = [("mode", str(e.get("mode"))),
            ("host", f"{host.get('cores')} cores, {host.get('cpu_model')}, {host.get('mem_gb')} GB"),
            ("CPU affinity", e.get("cpu_affinity") or "none (processes float over all cores)"),
            ("CPU quotas (cores per replica)", str(e.get("cpu_quotas") or "none")),
            ("started / ended", pages.when(e.get("started")) + " / " + pages.when(e.get("ended"))),
            ("status", str(e.get("status"))), ("runs", pages.num(s.get("runs_total")))]
    rows += [(k, pages.NA if v is None else pages.text(v)) for k, v in s["settings"].items()]
    rows += [(f"version: {k}", v) for k, v in (e.get("versions") or {}).items()]
    return rows


def context(a: Analysis) -> dict:
    """What the report's templates are given: the summary, and the data derived for them."""
    s = a.summary
    kind = s["experiment"]["kind"]
    clone_part = {r.id for r in a.result.runs if _part(r) == "clones"}
    calibration = s.get("calibration", [])
    found = [Finding.from_json(f) for f in s.get("findings", [])]
    return {"s": s, "e": s["experiment"],
            "findings": finding_rows(found), "method_body": method_html(found),
            "runs": [r.id for r in a.result.runs],
            "steps": [x.to_json() for r in a.result.runs for x in a.steps[r.id]],
            "clone_runs": [r for r in s["runs"] if kind != "classic" or r["id"] in clone_part],
            "calibration_segments": [(c, g) for c in calibration for g in c["segments"]],
            "calibration_paths": [(c, p) for c in calibration for p in c["paths"]],
            "settings_rows": settings_rows(s), "fault_grace_s": faultmod.GRACE_S, "node_stuck_s": faultmod.NODE_STUCK_S,
            "scaling": regime.scaling_rows(s), "emulation": sidebyside.emulation(s),
            "config_text": config_text, "value_text": sidebyside.value_text,
            "prediction_view": prediction_view(s.get("prediction")),
            "time_view": timetable.view(s["experiment"].get("time"))}


def render(a: Analysis, pngs: dict[str, bytes]) -> str:
    """The report page for an analysis and its figures' PNG bytes: the template of its kind
    (analysis/render/templates/experiments/<kind>.html.j2)."""
    return pages.render(f"experiments/{a.summary['experiment']['kind']}.html.j2", images=pngs, **context(a))


def regenerate(folder: str | Path, outdir: str | Path | None = None) -> dict[str, Path]:
    """Write steps.csv, summary.json, plots/ and report.html for a result folder (into outdir,
    default the folder itself) from its raw files; return what was written."""
    folder = Path(folder)
    if _study_folder(folder):
        from analysis.render import study_report
        return study_report.regenerate(folder, outdir)
    out = Path(outdir) if outdir else folder
    out.mkdir(parents=True, exist_ok=True)
    a = analyse(load(folder))
    written: dict[str, Path] = {}
    (out / STEPS_FILE).write_text(steps_csv_text(a), encoding="utf-8")
    written[STEPS_FILE] = out / STEPS_FILE
    (out / SUMMARY_FILE).write_text(json.dumps(a.summary, indent=2, default=str) + "\n", encoding="utf-8")
    written[SUMMARY_FILE] = out / SUMMARY_FILE
    pngs = {}
    for name, fig in figures(a).items():
        png, svg = plots.save(fig, out / PLOTS_DIR, name)
        written[f"{PLOTS_DIR}/{png.name}"], written[f"{PLOTS_DIR}/{svg.name}"] = png, svg
        pngs[name] = png.read_bytes()
    (out / REPORT_FILE).write_text(render(a, pngs), encoding="utf-8")
    written[REPORT_FILE] = out / REPORT_FILE
    return written


def _study_folder(folder: Path) -> bool:
    """A study's folder (cli/testbed/studies/runner.py) has samples, not Locust runs."""
    try:
        return bool(json.loads((folder / "experiment.json").read_text(encoding="utf-8")).get("study"))
    except (OSError, ValueError):
        return False       # load() names what is missing


def steps_csv_text(a: Analysis) -> str:
    """steps.csv content (for callers that want it without writing)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=steps.STEPS_CSV_COLUMNS, lineterminator="\n")
    w.writeheader()
    for run in a.result.runs:
        w.writerows(steps.csv_row(x) for x in a.steps[run.id])
    return buf.getvalue()
