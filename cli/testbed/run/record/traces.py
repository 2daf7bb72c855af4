"""A run's traces into its result folder (docs/tracing.md, docs/results.md `spans.json.gz`), so
the analysis never needs the stack or Zipkin running.

At the end of each run the runner asks Zipkin (GET /api/v2/traces) for the traces Locust started
(serviceName=locust) in each step's measurement window, at most PER_STEP of them per step (the
latest of the window: Zipkin answers newest first), and writes them, with the windows asked
and how many came back, to runs/<id>/spans.json.gz. Bounded: PER_STEP traces × steps, each
trace ~15 spans; a step of ~1 % sampling at a few hundred requests/s has fewer than PER_STEP.

Zipkin keeps its spans in memory, at most ZIPKIN_MAX_SPANS: at 100 % sampling a long step may
have lost its oldest traces before the run ends; the file says how many each window returned.
"""
from __future__ import annotations

import gzip
import json
import time
import urllib.parse
from pathlib import Path

SPANS_FILE = "spans.json.gz"
PER_STEP = 500               # traces kept per step, at most
SETTLE_S = 2.0               # the tiers export every second: wait this after the run ends
FORMAT = 1


def fetch(base: str, headers: dict[str, str], steps: list[dict], run_dir: Path, sample: float,
          per_step: int = PER_STEP, say=print) -> dict:
    """Write run_dir/spans.json.gz from Zipkin at `base` for the run's steps; return a short
    account {"traces": n, "steps": k} (or {"error": why})."""
    time.sleep(SETTLE_S)
    out = {"format": FORMAT, "zipkin": base, "fetched": time.time(), "trace_sample": sample,
           "per_step": per_step, "steps": []}
    total = 0
    for st in steps:
        start, end = st.get("measure_from") or st.get("start"), st.get("end")
        if start is None or end is None or end <= start:
            continue
        q = urllib.parse.urlencode({"serviceName": "locust", "endTs": int(end * 1000),
                                    "lookback": max(1, int((end - start) * 1000)), "limit": per_step})
        try:
            from testbed.observe.tracing import get_json
            traces = get_json(f"{base.rstrip('/')}/api/v2/traces?{q}", timeout=60, headers=headers)
        except (OSError, ValueError) as e:
            out["error"] = f"{type(e).__name__}: {e}"[:300]
            say(f"  traces: Zipkin did not answer for step {st.get('index')}: {out['error']}")
            break
        out["steps"].append({"index": st.get("index"), "users": st.get("users"), "from": start, "to": end,
                             "traces": traces})
        total += len(traces)
    with gzip.open(run_dir / SPANS_FILE, "wt", encoding="utf-8") as fh:
        json.dump(out, fh, separators=(",", ":"))
    if "error" not in out:
        say(f"  traces: {total} kept in {run_dir.name}/{SPANS_FILE}")
    return {"traces": total, "steps": len(out["steps"])} if "error" not in out else {"error": out["error"]}
