"""Drive loadgen/shapes.py's StepLoadShape with a fake runner and a fake clock, in a process of
its own: importing Locust monkey-patches the importing process (gevent), which must never
happen to the pytest process (its threads would become greenlets for every later test).

    python shapedriver.py '{"options": {...}, "ticks": [0, 5.5, ...], "release_at": 22, "prime_release_at": 7,
                            "reset_at": [[t, {"step_users": "7"}]], "calls": [...],
                            "per_second": [[from_s, to_s, [counts ...]], ...]}'
prints JSON: {"ticks": [tick result per time], "calls": [result of each call]}.

The clock is fake: run time t is wall-clock time T0 + t (the shape's _now), so step-log times
are exact. per_second fills the master's per-second request counts
(runner.stats.total.num_reqs_per_sec): every whole second s in [from_s, to_s) of run time
completed counts[(s - from_s) % len(counts)] requests (a list cycles: deterministic noise).
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

os.environ["LOCUST_SKIP_MONKEY_PATCH"] = "1"       # the shape's logic needs no gevent
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from loadgen import shapes  # noqa: E402

DEFAULTS = dict(step_users="1,4", step_seconds=10.0, step_warmup_seconds=3.0, step_prime_seconds=0.0,
                step_hold_seconds=0.0, step_hold_release="", step_prime_release="", step_log="", step_target_ci=0.0,
                step_min_seconds=5.0, step_plateau_tolerance=0.0, step_plateau_steps=2)
T0 = 1_700_000_000          # wall-clock time of run time 0


def main(spec: dict) -> dict:
    opts = SimpleNamespace(**{**DEFAULTS, **spec.get("options", {})})
    shape = shapes.StepLoadShape()
    counts: dict[int, int] = {}
    for lo, hi, values in spec.get("per_second", []):
        for s in range(int(lo), int(hi)):
            counts[T0 + s] = values[(s - int(lo)) % len(values)]
    shape.runner = SimpleNamespace(environment=SimpleNamespace(parsed_options=opts),
                                   worker_count=spec.get("workers", 1),
                                   stats=SimpleNamespace(total=SimpleNamespace(num_reqs_per_sec=counts)))
    clock = {"t": 0.0}
    shape._now = lambda: T0 + clock["t"]
    shape.reset_time()
    resets = {float(t): o for t, o in spec.get("reset_at", [])}
    out = []
    for t in spec.get("ticks", []):
        if t in resets:
            for k, v in resets[t].items():
                setattr(opts, k, v)
            shape.reset_time()
        if spec.get("release_at") is not None and t >= spec["release_at"] and opts.step_hold_release:
            Path(opts.step_hold_release).touch()
        if spec.get("prime_release_at") is not None and t >= spec["prime_release_at"] and opts.step_prime_release:
            Path(opts.step_prime_release).touch()
        shape.start_time = time.perf_counter() - t
        clock["t"] = t
        tick = shape.tick()
        out.append(list(tick) if tick else None)
    calls = []
    for name, args in spec.get("calls", []):
        try:
            calls.append(getattr(shapes, name)(*args))
        except ValueError as e:
            calls.append({"ValueError": str(e)})
    return {"ticks": out, "calls": calls}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
