"""The runner's probes in a result folder: short Locust runs that are no runs of the experiment,
kept apart in probes/ (cli/testbed/fit/) and never analysed as its runs.

  probes/cost-probe/        the cost probe: /seg/5 without the service wait, measuring what a
                            request costs before the wait is chosen (clones with a scaled wait);
                            its first step chooses the wait, its last is the fit's second point
  probes/cost-probe-build/  the cost probe's load again while a clone builds clients (the
                            client-build probe under load); no step of it is the CPU fit's
  probes/cost-probe-*/, probes/profile-probe-*/   the classic-system profile's cost probes (this
                            stack's own costs) and profile probes (a configuration under the profile)

A folder written before the probes were named so keeps them in calibration/, the cost probe as
calibration/calibration/ and its run under load as calibration/calibration-build/: it is read the
same (OLD_NAMES).
"""
from __future__ import annotations

from pathlib import Path

PROBES_DIR = "probes"
COST_PROBE_RUN = "cost-probe"
LOADED_PROBE_RUN = "cost-probe-build"
OLD_NAMES = {PROBES_DIR: "calibration", COST_PROBE_RUN: "calibration", LOADED_PROBE_RUN: "calibration-build"}


def folder(result: str | Path) -> Path:
    """A result folder's probes/, or its calibration/ where an older runner wrote that instead."""
    new, old = Path(result) / PROBES_DIR, Path(result) / OLD_NAMES[PROBES_DIR]
    return old if old.is_dir() and not new.is_dir() else new


def run_dir(result: str | Path, name: str) -> Path:
    """The run folder of the probe `name` (COST_PROBE_RUN or LOADED_PROBE_RUN), under its old
    name in a folder an older runner wrote."""
    root = folder(result)
    return root / (OLD_NAMES[name] if root.name == OLD_NAMES[PROBES_DIR] else name)


def is_probe(run_folder: str | Path) -> bool:
    """Is this run folder a probe's (in probes/, or an older folder's calibration/)?"""
    return Path(run_folder).parent.name in (PROBES_DIR, OLD_NAMES[PROBES_DIR])


def is_named(run_id: str | None, name: str) -> bool:
    """Is run_id the probe `name` (COST_PROBE_RUN or LOADED_PROBE_RUN), by today's name or its old one?"""
    return run_id in (name, OLD_NAMES[name])


def label(run_id: str) -> str:
    """A run id as a text names it: "the cost probe" for the cost probe's, else the id."""
    return "the cost probe" if is_named(run_id, COST_PROBE_RUN) else run_id
