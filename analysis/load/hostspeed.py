"""speed.csv: the host speed probe's timings (cli/testbed/run/record/speedprobe.py), read per step.

`probe_us` is how many microseconds of CPU a fixed piece of work took: higher is a slower host.
A step's figure is the mean over the probe's samples inside its measurement window; a
comparison of two windows is a speed ratio, `reference / window` (above 1: the host ran faster
than at the reference). A folder written before the probe existed has no speed.csv: every
figure is then None and nothing is said about the host's speed.
"""
from __future__ import annotations

import csv
import statistics
from pathlib import Path

FILE = "speed.csv"
MIN_SAMPLES = 3            # fewer samples in a window: no figure


def read(run_dir: Path) -> list[tuple[float, float]]:
    """(timestamp, probe_us) rows; [] without the file; rows that do not parse are skipped."""
    try:
        with open(Path(run_dir) / FILE, newline="", encoding="utf-8", errors="replace") as f:
            rows = []
            for r in csv.DictReader(f):
                try:
                    t, us = float(r["timestamp"]), float(r["probe_us"])
                except (KeyError, TypeError, ValueError):
                    continue
                if us > 0:
                    rows.append((t, us))
            return rows
    except OSError:
        return []


def window_us(samples: list[tuple[float, float]], start: float | None, end: float | None) -> float | None:
    """The mean probe time over [start, end], or None with fewer than MIN_SAMPLES samples in it."""
    if start is None or end is None:
        return None
    inside = [us for t, us in samples if start <= t <= end]
    return statistics.fmean(inside) if len(inside) >= MIN_SAMPLES else None


def steps_us(run_dir: Path, steps) -> list[float | None]:
    """Each step's mean probe time (its measure_from .. end window), in the steps' order."""
    samples = read(run_dir)
    return [window_us(samples, s.measure_from, s.end) if samples else None for s in steps]
