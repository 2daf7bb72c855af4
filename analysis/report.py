"""Regenerate a result folder's derived files from its raw files alone:
steps.csv, summary.json, plots/*.png + *.svg and report.html.

    from analysis.report import regenerate
    written = regenerate("results/segments-20250101-120000")   # -> {name: Path}
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from analysis import html as h
from analysis.findings import Finding
from analysis.findings import html_block as findings_block
from analysis import faults as faultmod
from analysis import maxima, plots, regime, sidebyside, steps
from analysis.folder import load
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
    if "scaling" in s:
        figs["clones"] = plots.clone_scaling({k: [tuple(p) for p in v] for k, v in s["scaling"].items()})
    for run in a.result.runs:
        windows = [(f["from_s"], f["to_s"], f"{f['action']} {f['target']}") for f in s.get("faults", [])
                   if f["run_id"] == run.id and f["from_s"] is not None]
        if windows:
            figs[f"timeline-{run.id}"] = plots.timeline(faultmod.timeline(run.history), windows,
                                                        f"{run.id}: faults injected")
        rows = [{"users": x.users, "throughput": x.throughput, "excluded": x.excluded,
                 "cpu": x.cpu, "host_cpu": x.host_cpu} for x in a.steps[run.id]]
        figs[f"cpu-{run.id}"] = plots.cpu_beside_throughput(rows, f"{run.id}: {run.label}")
    return figs


def _segments_tables(s: dict) -> list[str]:
    out = ["<h2>Paths: maximum throughput and critical point</h2>", h.table("paths", [
        "series", "path", "max throughput (/s)", "95 % interval", "critical users", "runs (with a max)",
        "min", "max", "spread"], [
        [h.esc(p["series"]), h.esc(p["name"]), "#" + h.num(p["max_throughput"]),
         "#" + h.interval(p.get("interval")),
         "#" + h.num(p["critical_users"]), f"#{p['runs']} ({p['runs_with_maximum']})",
         "#" + h.num(p["min"]), "#" + h.num(p["max"]), h.pct(p["spread"])] for p in s["paths"]])]
    out += ["<h2>Segments (serial-demand law)</h2>", h.table("segments", [
        "series", "segment", "T(1..k-1)", "T(1..k)", "T(k) (/s)", "95 % interval", "tolerance", "note"], [
        [h.esc(g["series"]), h.esc(g["name"]), "#" + h.num(g["previous_path_throughput"]),
         "#" + h.num(g["path_throughput"]),
         "#" + (h.num(g["throughput"]) if g["throughput"] is not None else
                f"{h.num(g['derived'])} (within noise)" if g.get("derived") is not None else "not measurable"),
         "#" + h.interval(g.get("interval")),
         h.pct(g["tolerance"]), h.esc(g["reason"] or "")] for g in s["segments"]])]
    out += ["<h2>Composition: whole path with a target T5</h2>", h.table("composition", [
        "series", "T(1..4)", "T5", "which T5", "whole path 1/(1/T(1..4)+1/T5)"], [
        [h.esc(c["series"]), "#" + h.num(c["t_1_4"]), "#" + h.num(c["target_t5"]), h.esc(c["label"]),
         "#" + h.num(c["whole_path"])] for c in s["composition"]],
        "needs T(1..4) and a measurable T(5) or settings.target_t5")]
    out += ["<h2>Capacity with think time (interactive response-time law)</h2>", h.table("capacity", [
        "series", "path", "X (/s)", "N*", "Z (s)", "N = N* + X·Z"], [
        [h.esc(c["series"]), h.esc(f"1..{c['path']}"), "#" + h.num(c["throughput"]),
         "#" + h.num(c["critical_users"]), "#" + h.num(c["think_time_s"]), "#" + h.num(c["users"])]
        for c in s["capacity"]], "no path with a maximum")]
    return out


def _calibration_tables(s: dict) -> list[str]:
    seg_rows, path_rows, verdicts = [], [], []
    for c in s.get("calibration", []):
        verdicts.append(f"<p><b>{h.esc(c['series'])}</b> (declared regime: "
                        f"{h.esc(c['regime_declared'])}): {h.esc(c['verdict'])}</p>")
        for g in c["segments"]:
            demand = "; ".join(f"{p}: cpu {d.get('cpu_us') or 0} µs, wait {d.get('wait_us') or 0} µs"
                               f"{', locked' if d.get('locked') else ''}"
                               for p, d in g["demand"].items()) or "—"
            seg_rows.append([h.esc(c["series"]), h.esc(f"T({g['segment']})"), h.esc(demand),
                             h.esc(g["formula"]), "#" + h.num(g["expected"]),
                             "#" + h.num(g["derived"]), h.pct(g["error"]), h.esc(g["reason"] or "")])
        for p in c["paths"]:
            path_rows.append([h.esc(c["series"]), h.esc(f"1..{p['path']}"), "#" + h.num(p["measured"]),
                              "#" + h.num(p["serial_prediction"]), h.pct(p["serial_error"]),
                              "#" + h.num(p["bottleneck_prediction"]), h.pct(p["bottleneck_error"]),
                              h.esc(p.get("bottleneck_resource") or "")])
    return ["<h2>Calibration: derived vs expected</h2>", *verdicts,
            h.table("calibration-segments", ["series", "segment", "configured demand", "formula",
                                             "expected c(k)", "derived T(k)", "error", "note"], seg_rows),
            h.table("calibration-paths", ["series", "path", "measured T(1..k)", "serial prediction",
                                          "error", "bottleneck prediction", "error",
                                          "busiest resource"], path_rows)]


def _clones_table(s: dict, part: set[str] | None = None) -> list[str]:
    rows = []
    for r in s["runs"]:
        if part is not None and r["id"] not in part:
            continue
        tiers = ", ".join(f"{t}×{n}" for t, n in (r.get("tiers") or {}).items())
        cpu = ", ".join(f"{t} {v:.0f}%" for t, v in sorted(r["cpu_at_plateau"].items()))
        rows.append([h.esc(r["id"]), h.esc(tiers), h.esc(r.get("client_mode")),
                     "#" + h.num(r.get("pool_size")), "#" + h.num(r["max_throughput"]),
                     "#" + h.interval(r.get("max_interval")),
                     "#" + h.num(r["critical_users"]), h.esc(cpu), h.esc(r.get("scaling") or ""),
                     "#" + h.num(r.get("speedup"), 3), "#" + h.interval(r.get("speedup_interval"), 3),
                     h.pct(r.get("efficiency")),
                     "#" + h.num(r.get("vs_singleton"), 3), "#" + h.interval(r.get("vs_singleton_interval"), 3),
                     h.esc(r["bottleneck"]["kind"])])
    return ["<h2>Clone scaling</h2>", h.table("clones", [
        "run", "tiers", "client mode", "pool", "max throughput (/s)", "95 % interval", "critical users",
        "CPU at plateau (% of a core)", "scaling", "speed-up", "95 % interval", "efficiency",
        "vs singleton", "95 % interval", "bottleneck"], rows)]


def _accounting_table(s: dict) -> str:
    rows = []
    for r in s["runs"]:
        a = r.get("accounting")
        if not a:
            continue
        tiers = ", ".join(f"{k} {v:,}" for k, v in a["tiers"].items())
        rows.append([h.esc(r["id"]), "#" + h.num(a["locust_ok"]), "#" + h.num(a["front_ok"]),
                     "#" + h.num(a["difference"]), "#" + h.num(a["allowance"]),
                     "yes" if a["within"] else '<span class="flag">NO</span>', h.esc(tiers)])
    return h.table("accounting", ["run", "Locust: successful requests", "front: answered with success",
                                  "difference", "in flight at most", "agree", "each replica's own count"], rows,
                   "no counts (the tiers' GET /served could not be read)")


def _faults_table(s: dict) -> str:
    rows = [[h.esc(f["run_id"]), h.esc(f"{f['action']} {f['target']}"), h.esc(f.get("server") or ""),
             "#" + h.num(f["from_s"]), "#" + h.num(f["to_s"]), "#" + h.num(f["in_flight"]),
             "#" + h.num(f["ejected_after_s"]), "#" + h.num(f["back_after_s"]),
             "#" + h.num(f["requests_in_window"]), "#" + h.num(f["failures_in_window"]), h.esc(f.get("error") or "")]
            for f in s["faults"]]
    return h.table("faults", ["run", "fault", "HAProxy server", "from (s)", "to (s)", "in flight at start",
                              "out of rotation after (s)", "back after restart (s)", "requests in window",
                              "failed in window", "error"], rows) + (
        f"<p>Window: from the fault's start to {faultmod.GRACE_S:g} s after its end; times from the "
        "run's first stats row.</p>")


def _scaling_html(sc: dict | None) -> str:
    """The runner's choice of the service wait (regime.scaling_rows), id "scaling"."""
    if not sc:
        return ""
    return (f'<h2>Scaled to this host</h2><p id="scaling-sentence">{h.esc(sc["sentence"])}</p>'
            + h.table("scaling", ["input", "value"], [[h.esc(a), h.esc(b)] for a, b in sc["rows"]]))


def _emulation_html(em: dict | None) -> str:
    """The classic-system profile's emulation (sidebyside.emulation), ids "emulation", "emulation-settings"."""
    if not em:
        return ""
    notes = "".join(f"<li>{h.esc(n)}</li>" for n in em["notes"])
    return ("<h2>Emulated: the classic system's shape</h2>" + f"<p><b>{h.esc(em['intro'])}</b></p>"
            + h.table("emulation", ["added CPU per request", "emulated", "this stack's own front cost of the path"],
                      [[h.esc(a), "#" + h.esc(b), "#" + h.esc(c)] for a, b, c in em["added"]])
            + h.table("emulation-settings", ["setting", "value"], [[h.esc(a), "#" + h.esc(b)] for a, b in em["settings"]])
            + (f"<ul>{notes}</ul>" if notes else ""))


def render(a: Analysis, pngs: dict[str, bytes]) -> str:
    """The report page for an analysis and its figures' PNG bytes."""
    s = a.summary
    e = s["experiment"]
    body = [f"<h1>{h.esc(e['name'])} — {h.esc(e['kind'])} experiment</h1>",
            f"<p>Status <b>{h.esc(e.get('status'))}</b>, {s['runs_total']} run(s) on the "
            f"{h.esc(e.get('mode') or 'local')} stack, {len(s['excluded_steps'])} excluded step(s). "
            "Maxima use valid steps only; excluded steps are listed below and drawn hollow.</p>",
            findings_block([Finding.from_json(f) for f in s.get("findings", [])],
                           "Findings: the classic results, checked on this run"),
            _scaling_html(regime.scaling_rows(s))]
    if e["kind"] == "classic":
        body += ["<h2>The classic report beside this run</h2>",
                 "<p>Each published figure beside this run's, with its 95 % confidence interval, and "
                 "both normalized by their own reference (absolute rates differ by machine; the "
                 "method is at the end of the page).</p>",
                 sidebyside.html_table(s.get("side_by_side", [])), _emulation_html(sidebyside.emulation(s))]
    body += ["<h2>Runs</h2>", h.runs_table(s), h.image(pngs["throughput"], "throughput vs users")]
    if e["kind"] == "classic":
        body.append(h.image(pngs["throughput-clones"], "throughput vs users, clone runs"))
    if e["kind"] in ("segments", "calibration", "classic"):
        body += _segments_tables(s)
        if "segments" in pngs:
            body.append(h.image(pngs["segments"], "per-segment throughput"))
    if e["kind"] == "calibration":
        body += _calibration_tables(s)
    if e["kind"] in ("clones", "classic"):
        part = {r.id for r in a.result.runs if _part(r) == "clones"} if e["kind"] == "classic" else None
        body += _clones_table(s, part)
        body.append(h.image(pngs["clones"], "clone scaling vs ideal"))
    if s.get("faults"):
        body += ["<h2>Faults injected</h2>", _faults_table(s)]
        body += [h.image(pngs[k], k) for k in pngs if k.startswith("timeline-")]
    body += ["<h2>Bottleneck hints</h2>", h.bottleneck_table(s),
             "<h2>Excluded steps</h2>", h.excluded_table(s), "<h2>CPU beside throughput</h2>"]
    body += [h.image(pngs[f"cpu-{r.id}"], f"CPU per tier, {r.id}") for r in a.result.runs]
    step_rows = [x.to_json() for r in a.result.runs for x in a.steps[r.id]]
    body += ["<h2>Requests accounted for</h2>", _accounting_table(s), "<h2>Lost or interrupted</h2>", h.lost_table(s),
             "<h2>All steps</h2>", h.steps_table(step_rows), h.method_section(s),
             "<h2>Settings</h2>", h.settings_table(s)]
    return h.page(f"{e['name']} report", body)


def regenerate(folder: str | Path, outdir: str | Path | None = None) -> dict[str, Path]:
    """Write steps.csv, summary.json, plots/ and report.html for a result folder (into outdir,
    default the folder itself) from its raw files; return what was written."""
    folder = Path(folder)
    if _study_folder(folder):
        from analysis import study_report
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
    """A study's folder (cli/testbed/run/study.py) has samples, not Locust runs."""
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
