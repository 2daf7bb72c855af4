"""Where an experiment's per-request CPU costs come from, for fit/scaling.py: an earlier result
folder (--scale-from), a finished /seg/5 run of this experiment (classic: the segment part's
path 5, measured before any clone run), or else a cost probe — one short Locust run of /seg/5
with the first scaled run's configuration and no service wait, kept in the result folder's
probes/ (never analysed as a run of the experiment)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from analysis.load.probes import COST_PROBE_RUN, LOADED_PROBE_RUN, PROBES_DIR, is_named, is_probe
from analysis.load.probes import folder as probes_folder
from analysis.steps import first_step
from testbed.experiment.plan import LoadPlan
from testbed.fit.scaling import Costs, costs_from_steps
from testbed.experiment.scale import SCALED_POINT
# a cold JVM's first 15 s or so under load are its JIT's, at several times the CPU per request it
# settles at (measured here: /seg/5 costs 2-3x more in its first 10 s), so a cold stack is primed
# 15 s, then one step: COST_PROBE_STEP, whose figures choose the wait (and the profile's runs'
# demands). A fresh stack's CPU per request still falls for a minute after that (2.2x over
# ~60 s: docs/predict.md, "a cold second point"), so the cost probe goes on in steps of
# the same length until two in a row stay within 5 % of the best throughput before them (at
# most eight more): its last step, warm, is the model's second operating point
# (analysis.predict.baseline_demands). --quick: 4 s measured after a 2 s warm-up, no prime (costs read
# high: a longer wait, the safe side)
COST_PROBE_STEP = LoadPlan(users=(16,), step_seconds=9.0, warmup_seconds=3.0, prime_seconds=15.0)
COST_PROBE_LOAD = replace(COST_PROBE_STEP, users=(16,) * 9, plateau_tolerance=0.05, plateau_steps=2)
COST_PROBE_LOAD_QUICK = LoadPlan(users=(16,), step_seconds=6.0, warmup_seconds=2.0)


def run_steps(run_dir: Path, settings: dict) -> list:
    """A finished run's steps as the analysis computes them (analysis.steps.StepSample)."""
    from analysis import steps as asteps
    from analysis.load import folder as afolder
    from analysis.load.settings import Settings
    r = afolder.load_run(Path(run_dir))
    return asteps.of_run(r, Settings.from_json(settings))


def readable_steps(run_dir: Path, settings: dict) -> list:
    """run_steps, or no steps for a run that left nothing readable (it measured nothing)."""
    try:
        return run_steps(run_dir, settings)
    except Exception:
        return []


def of_run(run_dir: Path, settings: dict, source: str) -> Costs | None:
    """The costs a run measured, or None (no usable step, or no files)."""
    return costs_from_steps(readable_steps(run_dir, settings), source)


def of_cost_probe(run_dir: Path, settings: dict, source: str) -> Costs | None:
    """The costs a cost probe measured in its first step (what the wait is chosen from:
    its later steps are for the prediction's fit), or None."""
    return costs_from_steps(first_step(readable_steps(run_dir, settings)), source)


def of_folder(folder: Path) -> tuple[Costs | None, str]:
    """--scale-from: the costs an earlier experiment chose its wait from, else those of its
    cost probe or a complete /seg/5 run (one without the service wait first)."""
    folder = Path(folder)
    try:
        meta = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return None, f"--scale-from {folder}: no readable experiment.json ({e})"
    saved = (meta.get("scaling") or {}).get("costs")
    if saved:
        c = Costs.from_json(saved)
        return replace(c, source=f"{c.source}, in {folder.name}"), ""
    found = []
    for run_file in [*probes_folder(folder).glob("*/run.json"), *(folder / "runs").glob("*/run.json")]:
        try:
            run = json.loads(run_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if run.get("path") == 5 and run.get("status") == "complete" and not is_named(run.get("id"), LOADED_PROBE_RUN):
            # a run without the service wait went fastest: its CPU figures are the most precise
            found.append((bool((run.get("demands") or {}).get(SCALED_POINT)), str(run.get("id")), run_file.parent))
    for _, rid, run_dir in sorted(found):
        of = of_cost_probe if is_probe(run_dir) else of_run
        c = of(run_dir, meta.get("settings") or {}, f"run {rid} of {folder.name}")
        if c is not None:
            return c, ""
    return None, f"--scale-from {folder}: no scaling costs and no complete /seg/5 run with CPU samples"


def cost_probe_spec(first, quick: bool = False):
    """The cost probe's run: the first scaled run's configuration, without the service wait (its
    run id, COST_PROBE_RUN, names its folder in the result folder's probes/)."""
    return replace(first, id=COST_PROBE_RUN, entry=COST_PROBE_RUN, label="cost probe: /seg/5, no service wait",
                   demands={k: v for k, v in first.demands.items() if k != SCALED_POINT},
                   auto_wait=False, load=COST_PROBE_LOAD_QUICK if quick else COST_PROBE_LOAD)


def needs_cost_probe(exp, scale_from: Path | None = None) -> bool:
    """A cost probe will run: a scaled wait, scaling on, no --scale-from, and no /seg/5 run
    of the same backend before the first scaled run."""
    first = next((k for k, r in enumerate(exp.runs) if r.auto_wait), None)
    if first is None or not exp.scaling or scale_from is not None:
        return False
    return not any(r.path == 5 and r.backend == exp.runs[first].backend for r in exp.runs[:first])


def measure(exp, i: int, folder: Path, failed: list[str], run_one, scale_from: Path | None = None
            ) -> tuple[Costs | None, str]:
    """The costs for choosing the wait of exp.runs[i] onwards (see the module docstring).
    run_one(spec, root): the runner's way to run one Locust run into root/<spec.id>/."""
    first = exp.runs[i]
    if scale_from is not None:
        return of_folder(scale_from)
    for spec in reversed(exp.runs[:i]):
        if spec.path == 5 and spec.backend == first.backend and not any(f.startswith(f"{spec.id}:") for f in failed):
            costs = of_run(folder / "runs" / spec.id, exp.settings, f"run {spec.id} of this experiment")
            if costs is not None:
                return costs, ""
    probe = cost_probe_spec(first, exp.quick)
    before = len(failed)
    run_one(probe, folder / PROBES_DIR)
    errors = failed[before:]
    del failed[before:]               # a failed cost probe costs the experiment nothing but the scaling
    costs = of_cost_probe(folder / PROBES_DIR / probe.id, exp.settings, "a cost probe of this experiment")
    if costs is None:
        return None, "; ".join(errors) or "the cost probe measured no valid step"
    return costs, ""
