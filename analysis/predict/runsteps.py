"""Per-run step samples of a result folder, as analysis.summary.analyse computes them, for
the callers that want the prediction without the whole summary (./testbed predict, the
runner's prediction after the baseline). Kept apart from analysis.predict.forecast, which
summary.py uses, so that no import runs in a circle."""
from __future__ import annotations

from analysis import steps as smod
from analysis.summary import part_settings


def run_steps(result) -> dict:
    """run id -> its StepSamples (a classic experiment's runs with their part's settings)."""
    return {r.id: smod.of_run(r, part_settings(result, r.meta.get("kind"))
                              if result.kind == "classic" else result.settings) for r in result.runs}
