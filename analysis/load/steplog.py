"""steps.jsonl: the load shape's step log (loadgen/shapes.py, `--step-log`), read into the
steps run.json would list: where each step began, when its measurement window opened, and
where it ended. A run whose run.json has no steps takes them from here (folder.load_run).
"""
from __future__ import annotations

import json

STEP_LOG_FILE = "steps.jsonl"
STEP_EXTRA_KEYS = ("ended_by", "shape_samples", "shape_throughput", "shape_ci", "ramp_stopped")


def from_step_log(lines) -> list[dict]:
    """Steps from the load shape's JSON-lines log (one record per step start
    {index, users, start, measure_from} and per step end {index, end}); a cut line is skipped."""
    steps: dict[int, dict] = {}
    for line in lines:
        try:
            rec = json.loads(line)
            index = int(rec["index"])
        except (ValueError, KeyError, TypeError):
            continue
        step = steps.setdefault(index, {"index": index, "users": None, "start": None,
                                        "measure_from": None, "end": None})
        step.update({k: v for k, v in rec.items()
                     if (k in step or k in STEP_EXTRA_KEYS) and k != "index"})
    return [steps[i] for i in sorted(steps) if steps[i]["users"] is not None]

