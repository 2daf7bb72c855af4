"""Predict before measuring: right after a clones experiment's baseline run(s) — and before the
next run starts — fit the queueing model to them and write every other configuration's
prediction to the result folder (analysis/predict, docs/predict.md). The report compares it with
what was then measured; `written` in the file, earlier than those runs' `started`, shows it
was made first."""
from __future__ import annotations

import json

from analysis.predict.baseline_demands import beside_other_load_text, is_baseline
from analysis.predict.forecast import FILE


def due(configs: list[dict], i: int) -> bool:
    """After run i: it ends the first block of baseline runs and a run that is not one comes
    next (with --repeat the rounds interleave: the first round's baseline is what there is
    before anything else runs)."""
    first = next((k for k, c in enumerate(configs) if is_baseline(c)), None)
    if first is None or not is_baseline(configs[i]) or i + 1 >= len(configs):
        return False
    return all(is_baseline(c) for c in configs[first:i + 1]) and not is_baseline(configs[i + 1])


def write(folder, say) -> None:
    """prediction.json from the baseline run(s) in folder; a failure is noted, never raised."""
    from analysis.load.folder import load
    from analysis.predict.forecast import predict
    from analysis.steps import run_steps
    from testbed.run.results import write_json
    try:
        result = load(folder)
        pred = predict(result, run_steps(result), own_request_steps=False)
    except Exception as e:                 # the experiment goes on; the report says why
        write_json(folder / FILE, {"format": 1, "error": f"{type(e).__name__}: {e}"[:300]})
        say(f"  prediction: none ({type(e).__name__}: {e})"[:200])
        return
    write_json(folder / FILE, json.loads(json.dumps(pred, default=str)))
    shown = "; ".join(f"{c['text']} {c['predicted_max_throughput']:.0f}/s" for c in pred["configurations"]
                      if not c["baseline"])
    say(f"  prediction (from {', '.join(pred['fitted_to'])}, before the next run): {shown}")
    shared = beside_other_load_text(pred["demands"].get("beside_other_load"))
    if shared:
        say(f"  warning: {shared}")
