"""Re-make the hand-made result folders under tests/analysis/data/ (deterministic, no load):

    .venv/bin/python tests/analysis/data/make_handmade.py

They are synthetic, in the exact format of docs/results.md, with round numbers so tests can
state exact expectations:
  segments-handmade/     paths 1..5; T(1..3)=600, T(1..4)=500 (the worked example: T(4)=3000),
                         path 4 repeated 3 times (490, 500, 520), a high-error step (path 2),
                         a saturated-loadgen step (path 3), an interrupted run (path 5: last
                         step end=null, stats_history.csv cut mid-line)
  clones-handmade/       singleton client 1/2/4 clones (near-linear), service 1/2/4 (flat),
                         request and pool modes on one clone; a real jstack dump of a
                         contended singleton on the singleton baseline; pool is CPU-bound
  calibration-handmade/  a serial regime (all demands under the front's one lock) and a
                         parallel-resources regime (locks in different tiers)
"""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
T0 = 1_700_000_000          # epoch of the first run
STEP_S, WARMUP_S = 14, 3
HISTORY_HEADER = ["Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s",
                  "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%",
                  "Total Request Count", "Total Failure Count", "Total Median Response Time",
                  "Total Average Response Time", "Total Min Response Time",
                  "Total Max Response Time", "Total Average Content Size"]
STATS_HEADER = ["Type", "Name", "Request Count", "Failure Count", "Median Response Time",
                "Average Response Time", "Min Response Time", "Max Response Time",
                "Average Content Size", "Requests/s", "Failures/s", "50%", "66%", "75%", "80%",
                "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%"]


def experiment(folder: Path, name: str, kind: str, runs: list[str], **extra) -> None:
    data = {"format": 1, "name": name, "kind": kind,
            "definition": {"note": "hand-made synthetic data (make_handmade.py)"},
            "started": T0, "ended": T0 + 10_000, "status": extra.pop("status", "complete"),
            "mode": "local", "host": {"cores": 2, "cpu_model": "synthetic", "mem_gb": 8},
            "cpu_affinity": extra.pop("cpu_affinity", None), "cpu_quotas": None,
            "settings": {"max_error_rate": 0.01, "loadgen_cpu_saturation_pct": 90,
                         "think_time_s": 0, "tolerance": 0.03},
            "versions": {"locust": "2.x (synthetic)"}, "runs": runs}
    data.update(extra)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "experiment.json").write_text(json.dumps(data, indent=2) + "\n")


def run(folder: Path, run_id: str, start: int, meta: dict, steps: list[dict],
        interrupted: bool = False, dump: str | None = None) -> int:
    """Write runs/<run_id>/ for steps [{users, x, err, cpu: {tier/replica: %}, host}];
    return the epoch after the run. x = throughput (requests/s) once warmed up. Optional per
    step: seconds (its length, default STEP_S), noise (relative deviations cycled over its
    seconds after the ramp: per-second rates x·(1 + e)), log (keys added to the step, as an
    adaptive load shape logs them: ended_by, ramp_stopped, ...)."""
    d = folder / "runs" / run_id
    d.mkdir(parents=True, exist_ok=True)
    hist, cpu_rows, step_meta = [], [], []
    total = fails = 0
    t = start
    for i, st in enumerate(steps):
        step_start = t
        length, noise = st.get("seconds", STEP_S), st.get("noise") or (0,)
        step_meta.append({"index": i, "users": st["users"], "start": step_start + 0.4,
                          "measure_from": step_start + 0.4 + WARMUP_S,
                          "end": step_start + 0.4 + length, **st.get("log", {})})
        for sec in range(length):
            rate = round(st["x"] * (1 + noise[sec % len(noise)])) if sec >= 3 else st["x"] // 2  # ramp in warm-up
            total += rate
            fails += round(rate * st.get("err", 0.0))
            p50 = 1000.0 * st["users"] / st["x"]
            hist.append([t + 1, st["users"], "", "Aggregated", f"{rate:.6f}", "0.000000",
                         round(p50), round(p50 * 1.2), round(p50 * 1.3), round(p50 * 1.4),
                         round(p50 * 1.6), round(p50 * 1.8), round(p50 * 2), round(p50 * 2.2),
                         round(p50 * 3), round(p50 * 3), round(p50 * 3), total, fails,
                         round(p50), round(p50, 2), 1, round(p50 * 3), 120])
            if sec % 5 == 1:
                for key, pct in st["cpu"].items():
                    tier, replica = key.split("/")
                    cpu_rows.append([f"{t + 0.5:.3f}", tier, replica, "4242", f"{pct:.1f}"])
                cpu_rows.append([f"{t + 0.5:.3f}", "host", "all", "", f"{st['host']:.1f}"])
            t += 1
    if interrupted:  # Ctrl-C 8 s into the last step, after its warm-up
        cut = t - steps[-1].get("seconds", STEP_S) + 8
        step_meta[-1]["end"] = None
        hist = [h for h in hist if h[0] <= cut]
        cpu_rows = [c for c in cpu_rows if float(c[0]) <= cut]
    with open(d / "locust_stats_history.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HISTORY_HEADER)
        w.writerows(hist)
    if interrupted:  # the last line cut mid-row, as a killed writer leaves it
        text = (d / "locust_stats_history.csv").read_text()
        (d / "locust_stats_history.csv").write_text(text + "%d,%d,,Aggregated,12" % (cut + 1, steps[-1]["users"]))
    with open(d / "cpu.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestamp", "tier", "replica", "pid", "cpu_percent"])
        w.writerows(cpu_rows)
    with open(d / "locust_stats.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(STATS_HEADER)
        w.writerow(["", "Aggregated", total, fails, 10, 11.0, 1, 300, 120, 0, 0] + [10] * 11)
    with open(d / "locust_failures.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Method", "Name", "Error", "Occurrences", "First Seen", "Last Seen"])
        if fails:
            w.writerow(["GET", "/seg", "HTTPError('503 Server Error')", fails, "", ""])
    (d / "locust_exceptions.csv").write_text("Count,Message,Traceback,Nodes\n")
    if dump:
        shutil.copy(HERE / dump, d / "threaddump-clone-1.txt")
    meta = {"id": run_id, "label": meta.pop("label", run_id), **meta, "repeat": meta.get("repeat", 0),
            "status": "interrupted" if interrupted else "complete", "locust_workers": 1,
            "locust_csv_full_history": True, "started": start, "ended": None if interrupted else t,
            "steps": step_meta}
    (d / "run.json").write_text(json.dumps(meta, indent=2) + "\n")
    return t + 5


def plateau(x_max: int, users=(1, 2, 4, 8, 16), per_user: int | None = None, **step) -> list[dict]:
    """Steps rising at per_user requests/s per user up to x_max, then flat (last one 2 % lower)."""
    per_user = per_user or max(x_max // 3, 1)
    out = []
    for i, u in enumerate(users):
        x = min(x_max, per_user * u)
        if i == len(users) - 1 and x == x_max:
            x = round(x_max * 0.98)
        out.append({"users": u, "x": x, "cpu": {"front/1": 20.0}, "host": 40.0, **step})
    return out


def segments_folder() -> None:
    f = HERE / "segments-handmade"
    shutil.rmtree(f, ignore_errors=True)
    base = {"kind": "segments", "backend": "axis", "op": "ping", "n": 0}
    t, ids = T0, []
    plan = [(1, 3000, 0), (2, 750, 0), (3, 600, 0), (4, 490, 0), (4, 500, 1), (4, 520, 2), (5, 100, 0)]
    for path, x, rep in plan:
        rid = f"path{path}-r{rep}"
        steps = plateau(x)
        if path == 2:    # the highest step has 5 % errors: excluded, the max comes from another
            steps[2].update(x=800, err=0.05)
        if path == 3:    # locust saturated at 16 users: excluded
            steps[4].update(x=650, cpu={"front/1": 20.0, "loadgen/master": 10.0, "loadgen/worker-1": 97.0})
        for s in steps:
            s["cpu"] = {"loadgen/master": 5.0, "loadgen/worker-1": 40.0, **s["cpu"]}
        t = run(f, rid, t, dict(base, path=path, repeat=rep, label=f"path 1..{path}"), steps,
                interrupted=(path == 5))
        ids.append(rid)
    experiment(f, "segments-handmade", "segments", ids, status="interrupted")


def clones_folder() -> None:
    f = HERE / "clones-handmade"
    shutil.rmtree(f, ignore_errors=True)
    plan = [  # id, clone, axis, mode, X, CPU at the plateau (stack pinned to one core)
        ("single-c1-a1", 1, 1, "singleton", 100, {"front/1": 10.0, "clone/1": 4.0, "axis/1": 6.0}),
        ("single-c2-a1", 2, 1, "singleton", 190, {"front/1": 19.0, "clone/1": 4.0, "clone/2": 4.0, "axis/1": 11.0}),
        ("single-c4-a1", 4, 1, "singleton", 370, {"front/1": 37.0, **{f"clone/{i}": 3.0 for i in range(1, 5)}, "axis/1": 21.0}),
        ("single-c1-a2", 1, 2, "singleton", 102, {"front/1": 10.0, "clone/1": 4.0, "axis/1": 3.0, "axis/2": 3.0}),
        ("single-c1-a4", 1, 4, "singleton", 99, {"front/1": 10.0, "clone/1": 4.0, **{f"axis/{i}": 1.5 for i in range(1, 5)}}),
        ("request-c1-a1", 1, 1, "request", 300, {"front/1": 20.0, "clone/1": 55.0, "axis/1": 12.0}),
        ("pool-c1-a1", 1, 1, "pool", 600, {"front/1": 30.0, "clone/1": 40.0, "axis/1": 22.0}),
    ]
    t, ids = T0, []
    for rid, clone, axis, mode, x, cpu in plan:
        host = sum(cpu.values()) + 20.0
        steps = [dict(s, cpu={**cpu, "loadgen/master": 20.0}, host=host) for s in plateau(x)]
        meta = {"kind": "clones", "backend": "axis", "op": "ping",
                "tiers": {"front": 1, "clone": clone, "axis": axis, "gsoap": 0},
                "client_mode": mode, "pool_size": 8 if mode == "pool" else None,
                "label": f"{mode}, {clone} clone(s), {axis} axis"}
        t = run(f, rid, t, meta, steps, dump="threaddump-contended.txt" if rid == "single-c1-a1" else None)
        ids.append(rid)
    experiment(f, "clones-handmade", "clones", ids, cpu_affinity={"loadgen": "0", "stack": "1"})


def calibration_folder() -> None:
    f = HERE / "calibration-handmade"
    shutil.rmtree(f, ignore_errors=True)
    lock = {"cpu_us": 0, "locked": True}
    regimes = {
        # every demand under the front's one lock: c = 1000, 2000, 500 /s; T(1) measured 5000
        "serial": ({"SEG2": dict(lock, wait_us=1000), "SEG3": dict(lock, wait_us=500),
                    "SEG4": dict(lock, wait_us=2000)}, [5000, 833, 588, 270]),
        # SEG2 under the front's lock (1000/s), SEG3 pure CPU on the one pinned core (5000/s),
        # CLONE under the clone's own lock (500/s): different resources, so the bottleneck law
        # holds: 1000, 1000, 1000, 500 /s (path 4 adds no demand)
        "parallel": ({"SEG2": dict(lock, wait_us=1000), "SEG3": {"cpu_us": 200, "wait_us": 0, "locked": False},
                      "CLONE": dict(lock, wait_us=2000)}, [5000, 990, 985, 983, 495]),
    }
    t, ids = T0, []
    for regime, (demands, xs) in regimes.items():
        for path, x in enumerate(xs, start=1):
            rid = f"{regime}-path{path}"
            meta = {"kind": "calibration", "backend": "axis", "op": "ping", "n": 0, "path": path,
                    "regime": regime, "demands": demands,
                    "tiers": {"front": 1, "clone": 1, "axis": 1, "gsoap": 0},
                    "label": f"{regime} path 1..{path}"}
            t = run(f, rid, t, meta, plateau(x, per_user=max(x // 2, 1)))
            ids.append(rid)
    experiment(f, "calibration-handmade", "calibration", ids, cpu_affinity={"loadgen": "0", "stack": "1"})


if __name__ == "__main__":
    segments_folder()
    clones_folder()
    calibration_folder()
    print("wrote segments-handmade/, clones-handmade/, calibration-handmade/")
