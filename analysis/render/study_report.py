"""The derived files of a study's result folder (cli/testbed/studies/runner.py): summary.json,
plots/*.png + *.svg and report.html, from experiment.json and samples.jsonl alone.

A study's analysis module, analysis.studies.<kind>, has:
    METHOD                       text: how the figures were obtained (the report's Method)
    summarize(experiment, samples) -> dict
                                 everything the report shows, as data; must hold "findings":
                                 [Finding.to_json()] (analysis/judge/findings.py). samples are every
                                 line of samples.jsonl; only status "ok" ones carry valid data
    figures(summary) -> {name: matplotlib Figure}
    view(summary) -> dict        (optional) what the study's template shows beyond the summary:
                                 rows picked or derived for its tables
    TEMPLATE                     (optional) its template: a name under analysis/render/templates or a
                                 jinja2 Template; default studies/<kind>.html.j2, which extends
                                 study.html.j2 and fills its block "sections" (the report's body
                                 after the findings; images[name] is figures()[name] as a data
                                 URI, shown with the macro image(images.get(name), alt))

The page reads: title and status, the findings (claim, this run, published, verdict), the
module's sections with its figures, what was lost, the method, the settings, and last the
sections of docs/method.md the findings rest on (analysis/judge/method.py).
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path

from analysis.judge.findings import Finding, finding_rows, method_html
from analysis.render import pages, plots

SAMPLES_FILE = "samples.jsonl"
SUMMARY_FILE, REPORT_FILE, PLOTS_DIR = "summary.json", "report.html", "plots"


def analysis_module(kind: str):
    return importlib.import_module(f"analysis.studies.{kind}")


def is_study(experiment: dict) -> bool:
    return bool(experiment.get("study"))


def load_samples(folder: Path) -> tuple[list[dict], list[str]]:
    """Every complete line of samples.jsonl, and what could not be read."""
    path = folder / SAMPLES_FILE
    if not path.exists():
        return [], [f"{SAMPLES_FILE} is missing: no measurement finished"]
    samples, lost = [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            samples.append(json.loads(line))
        except ValueError:
            lost.append(f"{SAMPLES_FILE} line {n} is cut off (the run stopped while writing it)")
    return samples, lost


def lost_rows(experiment: dict, samples: list[dict]) -> list[dict]:
    """What is missing: measurements that failed, timed out or had wrong data, and points that
    have no good measurement at all (an interrupted run says which)."""
    rows = [{"where": f"{s['label']} #{s['repeat'] + 1}", "what": f"{s['status']}: {s.get('error') or ''}"}
            for s in samples if s.get("status") != "ok"]
    ok = {s["point"] for s in samples if s.get("status") == "ok"}
    repeat = (experiment.get("params") or {}).get("repeat", 1)
    for p in experiment.get("points", []):
        got = sum(1 for s in samples if s["point"] == p["id"] and s.get("status") == "ok")
        if p["id"] not in ok:
            rows.append({"where": p["label"], "what": "no valid measurement"})
        elif got < repeat:
            rows.append({"where": p["label"], "what": f"{got} of {repeat} measurements valid"})
    return rows


def summarize(folder: Path) -> dict:
    experiment = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    samples, unreadable = load_samples(folder)
    mod = analysis_module(experiment["kind"])
    body = mod.summarize(experiment, samples)
    counts: dict[str, int] = {}
    for s in samples:
        counts[s.get("status", "?")] = counts.get(s.get("status", "?"), 0) + 1
    return {"experiment": {k: experiment.get(k) for k in
                           ("name", "kind", "description", "status", "started", "ended", "quick",
                            "params", "host", "versions", "environment", "error")},
            "measurements": counts,
            "lost": [{"where": "samples.jsonl", "what": u} for u in unreadable]
                    + lost_rows(experiment, samples),
            **body}


def render(summary: dict, mod, images: dict[str, bytes]) -> str:
    """The report page of a study: its module's template, given the summary, the module's
    view(summary) and the figures' PNG bytes."""
    e = summary["experiment"]
    counts = ", ".join(f"{n} {k}" for k, n in sorted(summary["measurements"].items())) or "none"
    view = mod.view(summary) if hasattr(mod, "view") else {}
    found = [Finding.from_json(f) for f in summary.get("findings", [])]
    return pages.render(getattr(mod, "TEMPLATE", f"studies/{e['kind']}.html.j2"), images=images,
                        s=summary, e=e, counts=counts, method_text=mod.METHOD.strip(),
                        findings=finding_rows(found), method_body=method_html(found),
                        settings_rows=settings_rows(e), **view)


def settings_rows(e: dict) -> list[tuple[str, object]]:
    """The Settings table: host and times, then the study's parameters, environment, versions."""
    host = e.get("host") or {}
    rows = [("host", f"{host.get('cores')} cores, {host.get('cpu_model')}, {host.get('mem_gb')} GB"),
            ("started / ended", pages.when(e.get("started")) + " / " + pages.when(e.get("ended"))),
            ("status", str(e.get("status")))]
    rows += [(f"parameter: {k}", _text(v)) for k, v in (e.get("params") or {}).items()]
    rows += [(f"environment: {k}", _text(v)) for k, v in (e.get("environment") or {}).items()]
    rows += [(f"version: {k}", v) for k, v in (e.get("versions") or {}).items()]
    return rows


def _text(v) -> str:
    """A parameter as a person reads it: lists joined, tables as key = value."""
    if isinstance(v, (list, tuple)):
        return ", ".join(_text(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k} = {_text(x)}" for k, x in v.items())
    return str(v)


def regenerate(folder: str | Path, outdir: str | Path | None = None) -> dict[str, Path]:
    folder = Path(folder)
    out = Path(outdir) if outdir else folder
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(folder)
    mod = analysis_module(summary["experiment"]["kind"])
    written: dict[str, Path] = {}
    (out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    written[SUMMARY_FILE] = out / SUMMARY_FILE
    images = {}
    for name, fig in mod.figures(summary).items():
        png, svg = plots.save(fig, out / PLOTS_DIR, name)
        written[f"{PLOTS_DIR}/{png.name}"], written[f"{PLOTS_DIR}/{svg.name}"] = png, svg
        images[name] = png.read_bytes()
    (out / REPORT_FILE).write_text(render(summary, mod, images), encoding="utf-8")
    written[REPORT_FILE] = out / REPORT_FILE
    return written
