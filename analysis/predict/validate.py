"""The prediction's validation over several result folders (the validation criteria of
docs/predict.md): for each held-out configuration of each folder, the saturation throughput's
error, the mean |error| over the user sweep, the knee, the naive baselines and the
simulation's agreement; then the verdict of each criterion over all of them. Writes a
markdown file (and JSON beside it).

    python -m analysis.predict.validate results/clones-A results/clones-B ... -o validation.md

Criteria: |saturation error| <= 10 % for every configuration and <= 5 % for the median; mean
|error| over the sweep <= 10 %; the knee within one user step; the model's error below both
naive predictions'; model and simulation within 2 % at every point. Beside "beats both" a
second reading, never in its place: beats_or_ties_both_naive also counts a naive prediction the
model does not beat where both maxima lie inside the measured maximum's 95 % interval (section.py
naive_tied: the measurement cannot tell them apart, as where a lock bounds the configuration and
linear scaling is exact within the noise). A folder whose baseline
ran beside other load (baseline_demands.beside_other_load: other programs took at least 15 % of the host
in a step the model was fitted to) tests the host, not the model: its rows are listed, marked, and
left out of the verdicts, which are given once more with them included; so is a client per
request measured cold (section.py's measured_cold: a clone restarted and not primed, against a
prediction from the probe's warm build — the classic experiment's run). Where the runs timed
the host speed probe (speed.csv), each row also gives the host's speed in the measured run
against the baseline's and the error of the model solved at that speed (analysis/predict/
atspeed.py), and the verdicts are given once more on those errors: the host's drift told apart
from the model's error, never in place of it. Below the table, each configuration whose
saturation error exceeds 10 % gets its CPU per request, model against measured, and the tiers
furthest apart (analysis/predict/tiercpu.py).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from analysis.load.folder import NotAResultFolder, load
from analysis.predict import clonegc, section, tiercpu
from analysis.predict.command import fit_run_ids
from analysis.steps import run_steps

CRITERIA = ("every_within_10pct", "median_within_5pct", "sweep_mae_within_10pct", "knee_within_one_step",
            "beats_both_naive", "beats_or_ties_both_naive", "simulation_agrees")
SATURATION = ("every_within_10pct", "median_within_5pct", "median_abs_error", "max_abs_error", "configurations")
LIMITS = {"every": 0.10, "median": 0.05, "sweep": 0.10, "knee_steps": 1, "agreement": 0.02}


def rows_of(folder: str, fit_runs: tuple[str, ...] | None = None) -> tuple[dict, list[dict]]:
    result = load(folder)
    p = section.build(result, run_steps(result), fit_runs=fit_runs)
    if "error" in p:
        raise NotAResultFolder(f"{folder}: {p['error']}")
    held = [c for c in p["configurations"] if not c["baseline"] and c["measured_max_throughput"] is not None
            and not set(c["runs"]) & set(fit_runs or ())]
    return {"folder": folder, "mode": result.experiment.get("mode"), "written": p["written"],
            "beside_other_load": p.get("beside_other_load")}, held


def verdicts(rows: list[dict]) -> dict:
    """Each criterion over the rows; None for each when there is no row to judge."""
    errs = [abs(r["error"]) for r in rows if r["error"] is not None]
    if not rows:
        return {k: None for k in (*CRITERIA, "median_abs_error", "max_abs_error")} | {"configurations": 0}
    return {
        "every_within_10pct": bool(errs) and max(errs) <= LIMITS["every"],
        "median_within_5pct": bool(errs) and statistics.median(errs) <= LIMITS["median"],
        "sweep_mae_within_10pct": all(r["sweep_mae"] is not None and r["sweep_mae"] <= LIMITS["sweep"] for r in rows),
        "knee_within_one_step": all(r["knee_steps_apart"] is not None and r["knee_steps_apart"] <= 1 for r in rows),
        "beats_both_naive": all(r["beats_naive"] for r in rows),
        "beats_or_ties_both_naive": all(r.get("beats_or_ties_naive") for r in rows),
        "simulation_agrees": all(r["agree"] for r in rows if r["agree"] is not None),
        "median_abs_error": statistics.median(errs) if errs else None,
        "max_abs_error": max(errs) if errs else None, "configurations": len(rows)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+")
    p.add_argument("-o", "--output", required=True, help="markdown file (JSON written beside it)")
    p.add_argument("--fit-runs", default=None, metavar="RUN,...|none",
                   help="runs whose steps the CPU fit U = U0 + D·X uses besides the baseline's (other "
                        "throughputs); they are left out of the held-out configurations. Default: as the "
                        "runner (a classic folder's path-5 segment runs); 'none': the baseline alone")
    args = p.parse_args(argv)
    fit_runs = fit_run_ids(args.fit_runs)
    lines = ["| folder | stack | configuration | predicted max | measured max | error | sweep MAE | knee (pred/meas) "
             "| linear err | USL err | beats both | sim. deviation | before run | host speed | error at host speed |",
             "|" + "---|" * 15]
    every, out, left_out, misses = [], [], [], []
    for f in args.folders:
        try:
            info, rows = rows_of(f, fit_runs)
        except NotAResultFolder as e:
            print(f"validate: {e}", file=sys.stderr)
            return 2
        if info["beside_other_load"]:
            left_out.append(f"{Path(f).name}: {info['beside_other_load']}")
        for r in rows:
            if r["error"] is not None and abs(r["error"]) > LIMITS["every"] and r.get("tier_cpu"):
                c = r["tier_cpu"]
                misses.append(f"{Path(f).name}: {r['text']} ({r['error']:+.1%}): the model's CPU per request "
                              f"{c['model_s'] * 1e3:.2f} ms against {c['measured_s'] * 1e3:.2f} measured at "
                              f"{c['throughput']:.1f}/s; largest gaps {tiercpu.largest_gaps(c)}"
                              + (f"; the clone's collector {gc} a request" if (gc := clonegc.text(r.get("clone_gc"))) else ""))
            if r.get("measured_cold"):
                left_out.append(f"{Path(f).name}: {r['text']}, {r['measured_cold']}")
            every.append({**r, "left_out": bool(info["beside_other_load"] or r.get("measured_cold"))})
            mark = " (shared host)" if info["beside_other_load"] else " (measured cold)" if r.get("measured_cold") else ""
            pct = lambda v: "—" if v is None else f"{v:+.1%}"      # noqa: E731
            tied = lambda r: (f" (tied: {', '.join(r['naive_tied'])} inside the measured "     # noqa: E731
                              f"{r['measured_max_interval'][0]:.1f}–{r['measured_max_interval'][1]:.1f})"
                              if r.get("naive_tied") else "")
            lines.append(f"| {Path(f).name}{mark} | {info['mode']} | {r['text']} | {r['predicted_max_throughput']:.1f} | "
                         f"{r['measured_max_throughput']:.1f} | {pct(r['error'])} | "
                         f"{'—' if r['sweep_mae'] is None else format(r['sweep_mae'], '.1%')} | "
                         f"{r['knee_predicted']}/{r['knee_measured']} | {pct(r['linear_error'])} | {pct(r['usl_error'])} | "
                         f"{r['beats_naive']}{tied(r)} | {pct(r['agreement_max_deviation'])} | {r['written_before_runs']} | "
                         f"{'—' if r.get('host_speed') is None else format(r['host_speed'], '.2f')} | "
                         f"{pct(r.get('error_at_host_speed'))} |")
        out.append({**info, "configurations": rows})
    if misses:
        lines += ["", "Each tier's CPU per request, model against measured, where the saturation error exceeds "
                  f"{LIMITS['every']:.0%} (analysis/predict/tiercpu.py; at the highest measured step):", ""] + [
            f"- {t}" for t in misses]
    v = verdicts([r for r in every if not r["left_out"]])
    lines += ["", "| criterion | met |", "|---|---|"] + [f"| {k} | {val} |" for k, val in v.items()]
    if left_out:
        v_all = verdicts(every)
        lines += ["", f"Left out of the verdicts above ({len(left_out)}: fitted beside other load, or "
                  "measured cold):", ""] + [f"- {t}" for t in left_out]
        lines += ["", "With them included:", "", "| criterion | met |", "|---|---|"] + [
            f"| {k} | {val} |" for k, val in v_all.items()]
        v = {**v, "left_out": left_out, "with_left_out": v_all}
    timed = [r for r in every if not r["left_out"] and r.get("error_at_host_speed") is not None]
    if timed:
        v_speed = verdicts([{**r, "error": r["error_at_host_speed"]} for r in timed])
        lines += ["", f"On the errors at the measured host speed ({len(timed)} configurations whose runs timed the "
                  "host speed probe; the saturation criteria only — the sweep, knee and naive ones above are "
                  "not re-read):", "", "| criterion | met |", "|---|---|"] + [
            f"| {k} | {v_speed[k]} |" for k in SATURATION]
        v = {**v, "at_host_speed": {k: v_speed[k] for k in SATURATION}}
    Path(args.output).write_text("\n".join(lines) + "\n")
    Path(args.output).with_suffix(".json").write_text(json.dumps({"folders": out, "verdicts": v}, indent=1, default=str))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
