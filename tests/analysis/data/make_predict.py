"""Re-make tests/analysis/data/predict-handmade/ (deterministic, no load):

    .venv/bin/python tests/analysis/data/make_predict.py

A clones experiment whose baseline (singleton, 1 clone, 1 axis) has round numbers, so the
demand extraction has exact answers: 100 requests/s at 4, 8 and 16 users; CPU in % of a core:
loadgen 40, haproxy 15, front 30, clone 20, axis 15, host 130 (10 unattributed) — i.e. per
request 4, 1.5, 3, 2, 1.5 and 1 ms; client_time.csv: every call waits 20 ms x (users - 1) / 3,
holds the lock 10 ms and spends 1.2 ms of its thread's CPU meanwhile. The definition plans
the other runs of `clones` (service x2, clients x2 and x4, request, pool of 8); only the
baseline and the 2-clone run (140/s, CPU-bound) have run.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from make_handmade import HERE, T0, experiment, run

FOLDER = HERE / "predict-handmade"
USERS = (4, 8, 16)
CPU = {"loadgen/worker-1": 40.0, "haproxy/1": 15.0, "front/1": 30.0, "clone/1": 20.0, "axis/1": 15.0}


def client_time(run_dir: Path, steps: list[dict], calls_per_s: int = 100) -> None:
    """Cumulative timers sampled each second (in the shape cli/testbed/run/record/clienttime.py writes)."""
    meta = json.loads((run_dir / "run.json").read_text())
    rows = ["timestamp,replica,backend,calls,wait_ns,hold_ns,hold_cpu_ns"]
    calls = wait = hold = cpu = 0
    for st, spec in zip(meta["steps"], steps):
        t = st["start"]
        while t < st["end"]:
            rows.append(f"{t:.3f},1,axis,{calls},{wait},{hold},{cpu}")
            per_wait = int(20e6 * (spec["users"] - 1) / 3)
            calls += calls_per_s
            wait += calls_per_s * per_wait
            hold += calls_per_s * 10_000_000
            cpu += calls_per_s * 1_200_000
            t += 1.0
    (run_dir / "client_time.csv").write_text("\n".join(rows) + "\n")


def definition_runs() -> list[dict]:
    base = {"kind": "clones", "path": 5, "backend": "axis", "op": "ping", "n": 0,
            "demands": {"SERVICE": {"wait_us": 5000, "locked": False}},
            "load": {"users": list(USERS), "think_time": 0.0}}
    out = []
    for rid, tiers, mode, pool in (("singleton-c1-a1", {}, "singleton", None), ("singleton-c1-a2", {"axis": 2}, "singleton", None),
                                   ("singleton-c2-a1", {"clone": 2}, "singleton", None),
                                   ("singleton-c4-a1", {"clone": 4}, "singleton", None),
                                   ("request-c1-a1", {}, "request", None), ("pool-c1-a1", {}, "pool", 8)):
        out.append({**base, "id": rid, "tiers": {"front": 1, "clone": 1, "axis": 1, "gsoap": 0, **tiers},
                    "client_mode": mode, "pool_size": pool})
    return out


def main() -> None:
    shutil.rmtree(FOLDER, ignore_errors=True)
    runs = definition_runs()
    experiment(FOLDER, "predict-handmade", "clones", [r["id"] for r in runs],
               definition={"note": "hand-made synthetic data (make_predict.py)", "runs": runs})
    t = T0
    for r, x in ((runs[0], 100), (runs[2], 140)):
        steps = [{"users": u, "x": x, "cpu": {k: v * x / 100 for k, v in CPU.items()}, "host": 130.0 * x / 100}
                 for u in USERS]
        meta = {k: v for k, v in r.items() if k not in ("id", "load")}
        meta["notes"] = {"load": r["load"]}
        t = run(FOLDER, r["id"], t, meta, steps)
        client_time(FOLDER / "runs" / r["id"], steps, calls_per_s=x)
    # the simulation's check of every predicted point, cached as the report leaves it (the
    # tests then regenerate the report without simulating for minutes)
    import sys
    sys.path.insert(0, str(HERE.parents[2]))
    from analysis.load.folder import load
    from analysis.predict import section
    from analysis.steps import run_steps
    result = load(FOLDER)
    section.build(result, run_steps(result))


if __name__ == "__main__":
    main()
