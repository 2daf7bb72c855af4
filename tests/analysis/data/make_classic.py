"""Re-make tests/analysis/data/classic-handmade/ (deterministic, no load):

    .venv/bin/python tests/analysis/data/make_classic.py

A synthetic result folder of the classic experiment (kind "classic", loadgen/experiments/
classic.toml) in the format of docs/results.md, built with make_handmade.run: every run says
its part in run.json "kind". The figures are the published ones of the WAS/Axis diagnosis
report ×10 (analysis/judge/classic.PUBLISHED), so this run's normalized figures equal the published
normalized ones:
  segments   paths 1..5 at 8120, 7950, 5200, 4300, 74 /s (T(2) within the noise band, T(3)
             15,032, T(4) 24,844, T(5) 75.3); adaptive steps of varying length with ±2 %
             per-second noise, ended by their interval ("ci") or the longest step ("max"); the
             ramps stop at the plateau (the shape's "ramp_stopped")
  clones     singleton 1/2/4 clones 740/1500/2600, service tier ×2/×4 750/730, client per
             request 2200, pool of 8 10000 (the fix, ≈100 tps ×10 and rounded up to 13.5×);
             the singleton baseline at low CPU with a real jstack dump of a contended singleton
             (data/threaddump-contended.txt, its monitor class named as the clone tier's:
             org.soaptestbed.clones.SingletonSoapClient)
"""
from __future__ import annotations

import json
import shutil

from make_handmade import HERE, T0, experiment, run

NOISE = (0.02, -0.02, 0.01, -0.01, 0.0)
TIERS = {"front": 1, "clone": 1, "axis": 1, "gsoap": 0}
SINGLETON = "org.soaptestbed.clones.SingletonSoapClient"
HAPROXY_US = 25.0


def ramp(x_max: float, users: list[int], knee: int, stop: bool, cpu: dict, host: float) -> list[dict]:
    """Steps rising linearly up to x_max at `knee` users, then flat; steps alternate between
    ending by their interval (9 s) and at the longest step (12 s); with stop, the last step
    records that the ramp stopped after it (two flat steps in a row)."""
    out = []
    for i, u in enumerate(users):
        x = round(x_max * min(1.0, u / knee))
        by_ci = i % 2 == 0
        out.append({"users": u, "x": x, "seconds": 9 if by_ci else 12, "noise": NOISE,
                    "cpu": cpu, "host": host, "log": {"ended_by": "ci" if by_ci else "max"}})
    if stop:
        skipped = ",".join(str(u) for u in (16, 32, 64) if u > users[-1])
        out[-1]["log"]["ramp_stopped"] = (f"plateau: 2 step(s) in a row within +3% of the best earlier "
                                          f"step ({x_max:.1f}/s); skipped users {skipped}")
    return out


def main() -> None:
    f = HERE / "classic-handmade"
    shutil.rmtree(f, ignore_errors=True)
    t, ids = T0, []
    base = {"backend": "axis", "op": "ping", "n": 0, "tiers": TIERS, "client_mode": "singleton",
            "pool_size": None}
    loadgen = {"loadgen/master": 5.0, "loadgen/worker-1": 40.0}
    for path, x in ((1, 8120), (2, 7950), (3, 5200), (4, 4300), (5, 74)):
        # the front saturated (150 % of a core) at the path's maximum, HAProxy 25 µs a request
        # on every path: their CPU follows each step's throughput (analysis/measure/front_demand.py reads it)
        steps = ramp(x, [2, 4, 8, 16], 4, stop=True, cpu={}, host=0.0)
        for st in steps:
            st["cpu"] = {"front/1": 150.0 * st["x"] / x, "haproxy/1": HAPROXY_US * st["x"] / 1e4, **loadgen}
            st["host"] = min(sum(st["cpu"].values()) + 5.0, 195.0)
        rid = f"axis-path{path}-r0"
        t = run(f, rid, t, dict(base, kind="segments", path=path, label=f"Axis2 ping /seg/{path}"), steps)
        ids.append(rid)
    plan = [  # id, clone, axis, mode, X, users, knee
        ("singleton-c1-a1", 1, 1, "singleton", 740, [4, 12, 32], 4),
        ("singleton-c1-a2", 1, 2, "singleton", 750, [4, 12, 32], 4),
        ("singleton-c1-a4", 1, 4, "singleton", 730, [4, 12, 32], 4),
        ("singleton-c2-a1", 2, 1, "singleton", 1500, [4, 12, 32, 64], 12),
        ("singleton-c4-a1", 4, 1, "singleton", 2600, [4, 12, 32, 64], 32),
        ("request-c1-a1", 1, 1, "request", 2200, [4, 12, 32, 64], 12),
        ("pool-c1-a1", 1, 1, "pool", 10000, [4, 12, 32, 64], 12),
    ]
    for name, clone, axis, mode, x, users, knee in plan:
        busy = mode == "pool"          # the fix is CPU-bound; the singleton idles on its lock
        cpu = {"front/1": 60.0 if busy else 10.0, "clone/1": 90.0 if busy else 4.0,
               "axis/1": 30.0 if busy else 6.0, **loadgen}
        rid = f"{name}-r0"
        meta = dict(base, kind="clones", path=5, tiers=dict(TIERS, clone=clone, axis=axis), client_mode=mode,
                    pool_size=8 if mode == "pool" else None, label=name,
                    demands={"SERVICE": {"cpu_us": 0, "wait_us": 5000, "locked": False}})
        t = run(f, rid, t, meta, ramp(x, users, knee, stop=len(users) == 3, cpu=cpu, host=190.0 if busy else 50.0),
                dump="threaddump-contended.txt" if name == "singleton-c1-a1" else None)
        ids.append(rid)
    dump = f / "runs" / "singleton-c1-a1-r0" / "threaddump-clone-1.txt"
    dump.write_text(dump.read_text().replace("Contended$SingletonClient", SINGLETON))
    experiment(f, "classic-handmade", "classic", ids)
    data = json.loads((f / "experiment.json").read_text())
    data["settings"]["clones"] = {"tolerance": 0.05}     # [settings.clones] of classic.toml
    data["definition"]["note"] = "hand-made synthetic data (make_classic.py)"
    (f / "experiment.json").write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {f.name}/")


if __name__ == "__main__":
    main()
