"""summary.json: everything the report shows, as data, computed from a loaded result folder.

`analyse(result)` returns an Analysis (per-run steps, maxima, hints and the summary dict);
`build(folder)` is the same from a path. Keys are specified in docs/results.md.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from analysis import FORMAT_VERSION, steps
from analysis.judge import calibration, regime, registry, sidebyside
from analysis.judge.method import LATENCY
from analysis.load import faults as faultmod
from analysis.load.folder import PARTS, ResultFolder, load, part_settings, planned_load, saturating
from analysis.load.settings import Settings
from analysis.measure import bottleneck, clones, front_demand, maxima, segments, traces
from analysis.measure import nodes as nodemod
from analysis.measure.capacity import capacity

METHOD = {
    "steps": steps.__doc__.split("Method (also printed in the report):")[1].strip(),
    "maxima": maxima.__doc__.split("\n", 2)[2].strip(),
    "segments": segments.__doc__.split("\n", 1)[1].strip(),
    "bottleneck": bottleneck.__doc__.split("Rule (stated in the report):")[1].strip(),
    "host-bound runs": regime.__doc__.split("\n", 2)[2].split("\n\n")[0].strip(),
    "calibration": calibration.__doc__.split("\n", 2)[2].strip(),
    "clones": clones.__doc__.split("Method: ")[1].split("\n\n")[0].strip(),
    "capacity": "N = N* + X·Z (interactive response-time law): X the maximum throughput, "
                "N* the users at the critical point, Z the think time.",
    "nodes": nodemod.__doc__.split("Method: ")[1].split("\n\n")[0].strip(),
}
SEGMENT_KEYS = ("backend", "op", "n")


@dataclass
class Analysis:
    result: ResultFolder
    steps: dict[str, list[steps.StepSample]]
    maxima: dict[str, maxima.RunMaximum]
    hints: dict[str, bottleneck.Hint]
    summary: dict


def _series(meta: dict, kind: str) -> str:
    parts = [f"{'n=' if k == 'n' else ''}{meta[k]}" for k in SEGMENT_KEYS if meta.get(k) not in (None, "")]
    if kind == "calibration":
        parts.append(str(meta.get("regime") or "regime?"))
    return " ".join(parts) or "all"


def _calibration_key(meta: dict) -> str:
    return json.dumps([_series(meta, "calibration"), meta.get("demands")], sort_keys=True)


def _run_entry(run, run_steps, m: maxima.RunMaximum, h: bottleneck.Hint) -> dict:
    at = next((s for s in run_steps if s.index == m.step), None)
    config = {k: v for k, v in run.meta.items() if k not in maxima.CONFIG_IGNORED}
    return {"id": run.id, "label": run.label, "status": run.status,
            "repeat": run.meta.get("repeat", 0), "config": config,
            "locust_workers": run.meta.get("locust_workers"),
            "steps": len(run_steps), "valid_steps": m.valid_steps,
            "excluded_steps": m.excluded_steps, "max_throughput": m.max_throughput,
            "critical_users": m.critical_users, "plateau_step": m.step, "no_maximum": m.reason,
            "max_interval": list(m.interval) if m.interval else None,
            "cpu_at_plateau": dict(at.cpu) if at else {},
            "host_cpu_at_plateau": at.host_cpu if at else None,
            "requests_total": run.stats.get("requests"), "failures_total": run.stats.get("failures"),
            "top_failures": run.failures, "exceptions": run.exceptions,
            "bottleneck": h.to_json(), "accounting": accounting(run), "latency": latency(run_steps)}


def latency(run_steps) -> dict:
    """Each step's exact latencies (analysis/load/latency.py: every successful response), or
    source "locust" when the run has none (a folder written before latency.hlog)."""
    exact = [s for s in run_steps if s.latency]
    return {"source": "hdr" if exact else "locust",
            "steps": [{"step": s.index, "users": s.users, "valid": not s.excluded, **s.latency} for s in exact]}


def accounting(run) -> dict | None:
    """Nothing lost: Locust's successful requests against the front tier's own count of the
    requests it answered with success (GET /served before and after the run). They agree
    within the requests in flight when Locust stopped (at most the users of the last step)."""
    served = (run.meta.get("notes") or {}).get("served") or {}
    before, after = served.get("before") or {}, served.get("after") or {}
    fronts = [k for k in after if k.startswith("front-")]
    if not fronts or run.stats.get("requests") is None or any(
            "ok" not in before.get(k, {}) or "ok" not in after.get(k, {}) for k in fronts):
        return None
    front_ok = sum(after[k]["ok"] - before[k]["ok"] for k in fronts)
    locust_ok = int(run.stats["requests"] - (run.stats.get("failures") or 0))
    steps = run.meta.get("steps") or []
    # in flight when Locust stopped (at most one per user), and at the front when the run began
    # (the previous run's last requests, if they had not settled: results.served_counts)
    allowance = max((s.get("users") or 0 for s in steps), default=0) + \
        sum(int(before[k].get("in_flight") or 0) for k in fronts)
    return {"locust_ok": locust_ok, "front_ok": front_ok, "difference": front_ok - locust_ok,
            "allowance": allowance, "within": abs(front_ok - locust_ok) <= allowance,
            "tiers": {k: after[k]["ok"] - before[k]["ok"] for k in sorted(after)
                      if "ok" in after[k] and "ok" in before.get(k, {})}}


def _segments_section(result: ResultFolder, entries: list[dict], run_max, runs=None,
                      s: Settings | None = None, all_steps: dict | None = None) -> dict:
    """paths, segments, composition, capacity (and calibration) of the runs given (default: all);
    with all_steps (run id -> steps), each path's and segment's front demand (analysis/measure/front_demand.py)."""
    s = s or result.settings
    kind = "segments" if result.kind == "classic" else result.kind
    by_series: dict[str, dict[int, dict[str, maxima.RunMaximum]]] = {}
    demands: dict[str, dict] = {}
    for run in result.runs if runs is None else runs:
        if not isinstance(run.meta.get("path"), int) or not 1 <= run.meta["path"] <= 99:
            continue  # reported as lost by analyse()
        if kind == "segments" and not saturating(result.experiment, run.id):
            continue  # think time or an open loop: no path maximum (tracing.toml's low-load run)
        key = _calibration_key(run.meta) if kind == "calibration" else _series(run.meta, kind)
        by_series.setdefault(key, {}).setdefault(int(run.meta["path"]), {})[run.id] = run_max[run.id]
        demands.setdefault(key, run.meta)
    out = {"paths": [], "segments": [], "composition": [], "capacity": [], "calibration": []}
    metas = {run.id: run.meta for run in (result.runs if runs is None else runs)}
    caps = bottleneck.Capacities.from_experiment(result.experiment)
    for key, paths in by_series.items():
        meta = demands[key]
        label = _series(meta, kind)
        reps = {k: maxima.repeated(runs) for k, runs in sorted(paths.items())}
        readings = front_demand.path_readings({k: r.run_ids for k, r in reps.items()}, all_steps or {}, metas, caps)
        for k, r in reps.items():
            out["paths"].append({"series": label, "path": k, "name": f"1..{k}",
                                 "max_throughput": r.max_throughput,
                                 "critical_users": r.critical_users, "runs": r.runs,
                                 "runs_with_maximum": r.runs_with_maximum, "run_ids": r.run_ids,
                                 "min": r.minimum, "max": r.maximum, "spread": r.spread,
                                 "interval": list(r.interval) if r.interval else None,
                                 "front_demand": readings.get(k)})
        t = {k: r.max_throughput for k, r in reps.items()}
        repeated = any(r.runs_with_maximum >= 2 for r in reps.values())
        tol = segments.tolerances({k: r.spread for k, r in reps.items()}, s.tolerance) \
            if repeated else s.tolerance
        segs = segments.decompose(t, tol, {k: r.interval for k, r in reps.items()})
        out["segments"].extend({"series": label, **g.to_json(),
                                "front_demand": front_demand.segment_reading(readings.get(g.segment - 1),
                                                                       readings.get(g.segment))} for g in segs)
        seg = {g.segment: g for g in segs}
        if t.get(4) and (s.target_t5 or (seg.get(5) and seg[5].throughput)):
            targets = [(s.target_t5, "target T5 (settings.target_t5)")] if s.target_t5 else [
                (seg[5].throughput * f, f"{f:g}× measured T(5)") for f in (1, 2, 10)]
            for t5, why in targets:
                out["composition"].append({"series": label, "t_1_4": t[4], "target_t5": t5,
                                           "label": why, "whole_path": segments.whole_path(t[4], t5)})
        last = max((k for k in t if t[k]), default=None)
        if last is not None and reps[last].critical_users is not None:
            zs = [s.think_time_s] if s.think_time_s > 0 else list(s.capacity_think_times_s)
            for z in zs:
                c = capacity(t[last], reps[last].critical_users, z)
                out["capacity"].append({"series": label, "path": last, **c.to_json(),
                                        "sentence": c.sentence()})
        if kind == "calibration":
            out["calibration"].append({"series": label, "regime_declared": meta.get("regime"),
                                       **_calibration(result, meta, t, segs)})
    if kind != "calibration":
        del out["calibration"]
    return out


def _calibration(result: ResultFolder, meta: dict, paths: dict, segs: list) -> dict:
    caps = bottleneck.Capacities.from_experiment(result.experiment).for_run(meta)
    replicas = {k: int(v) for k, v in (meta.get("tiers") or {}).items()}
    tier_cores = {t: caps.tier_cores(t, replicas.get(t, 1)) for t in caps.quotas}  # own CPU each
    return calibration.compare(meta.get("demands") or {}, paths, segs, backend=meta.get("backend"),
                               replicas=replicas, cores=caps.stack_cores or caps.host_cores,
                               tier_cores=tier_cores, tolerance=result.settings.tolerance)


def _clones_section(entries: list[dict], lifecycle_points: tuple[str, ...] = ()) -> dict:
    rows = []
    for e in entries:
        cfg = {k: v for k, v in e["config"].items() if k not in ("tiers", "client_mode", "pool_size")}
        rows.append({"id": e["id"], "tiers": e["config"].get("tiers") or {},
                     "client_mode": e["config"].get("client_mode"),
                     "pool_size": e["config"].get("pool_size"), "config": cfg,
                     "max_throughput": e["max_throughput"], "interval": e.get("max_interval")})
    scaled = {r["id"]: r for r in clones.scaling(rows, lifecycle_points)}
    for e in entries:
        r = scaled[e["id"]]
        e.update(tiers=r["tiers"], client_mode=r["client_mode"], pool_size=r["pool_size"],
                 speedup=r["speedup"], efficiency=r["efficiency"], scaled_tier=r["scaled_tier"],
                 scaling=r["scaling"], replicas=r["replicas"], baseline_runs=r["baseline_runs"],
                 vs_singleton=r["vs_singleton"], speedup_interval=r["speedup_interval"],
                 vs_singleton_interval=r["vs_singleton_interval"])
    return {"scaling": {k: [list(p) for p in v] for k, v in clones.curves(list(scaled.values())).items()}}


def analyse(result: ResultFolder, simulate: bool = True) -> Analysis:
    """Steps, maxima, hints and the summary dict of a loaded result folder; simulate=False
    leaves out the simulation's check of the prediction (seconds a point)."""
    caps = bottleneck.Capacities.from_experiment(result.experiment)
    all_steps, run_max, hints, entries = {}, {}, {}, []
    excluded, notes, lost = [], [], [{"run_id": None, "what": w} for w in result.lost]
    for run in result.runs:
        s = part_settings(result, run.meta.get("kind")) if result.kind == "classic" else result.settings
        if result.kind == "classic" and run.meta.get("kind") not in PARTS:
            lost.append({"run_id": run.id, "what": f"run.json kind {run.meta.get('kind')!r} is neither "
                                                   f"of the classic parts ({', '.join(PARTS)}): "
                                                   "left out of both analyses"})
        st = steps.of_run(run, s)
        all_steps[run.id] = st
        run_max[run.id] = maxima.run_maximum(st)
        hints[run.id] = bottleneck.hint(st, caps.for_run(run.meta), s.tolerance, s.utilisation_threshold,
                                        bottleneck.read_dumps(run.threaddumps))
        if result.kind == "segments" and not saturating(result.experiment, run.id) and hints[run.id].kind == "rising":
            load = planned_load(result.experiment, run.id)
            hints[run.id].text = (f"low load by design (think time {load.get('think_time') or 0:g} s, open-loop "
                                  f"rate {load.get('arrival_rate') or 0:g}/s): no plateau sought, and no path "
                                  "maximum for the segment law (e.g. the traces' low-load run)")
        entries.append(_run_entry(run, st, run_max[run.id], hints[run.id]))
        entries[-1]["cpu_shares"] = regime.shares(st, hints[run.id], caps.host_cores)
        entries[-1]["host_bound"] = regime.host_bound(st, hints[run.id], s.utilisation_threshold, caps.host_cores,
                                                      pinned=bool(caps.stack_cores),
                                                      own_service=run.meta.get("backend") == "own")
        entries[-1]["not_warm"] = regime.not_warm(run.meta)
        lost.extend({"run_id": run.id, "what": w} for w in run.lost)
        if result.kind != "clones" and not isinstance(run.meta.get("path"), int):
            lost.append({"run_id": run.id, "what": "run.json has no integer \"path\": left out of "
                                                   "the decomposition"})
        for x in st:
            if x.flags:
                (excluded if x.excluded else notes).append(
                    {"run_id": run.id, "step": x.index, "users": x.users, "flags": dict(x.flags)})
            if x.excluded and steps.INCOMPLETE in x.flags:
                lost.append({"run_id": run.id, "what": f"step {x.index} ({x.users} users): "
                             f"{x.flags[steps.INCOMPLETE]}"})
    e = result.experiment
    s = result.settings
    summary = {
        "format": FORMAT_VERSION,
        "experiment": {k: e.get(k) for k in ("name", "kind", "status", "started", "ended", "mode",
                                             "host", "cpu_affinity", "cpu_quotas", "versions",
                                             "definition", "stack", "scaling", "profile", "time")},
        "settings": s.to_json(), "method": dict(METHOD), "runs_total": len(result.runs),
        "runs": entries, "excluded_steps": excluded, "step_notes": notes, "lost": lost,
    }
    if result.kind in ("segments", "calibration"):
        summary.update(_segments_section(result, entries, run_max, all_steps=all_steps))
    if result.kind == "clones":
        summary.update(_clones_section(entries))
    if result.kind == "classic":
        part = {r.id: r.meta.get("kind") for r in result.runs}
        summary.update(_segments_section(result, entries, run_max,
                                         [r for r in result.runs if part[r.id] == "segments"],
                                         part_settings(result, "segments"), all_steps))
        summary.update(_clones_section([e for e in entries if part[e["id"]] == "clones"],
                                       clones.PROFILE_LIFECYCLE_POINTS if isinstance(result.experiment.get("profile"), dict) else ()))
        summary["side_by_side"] = sidebyside.rows(summary)
        summary["method"]["classic beside this run"] = sidebyside.__doc__.split("\n", 3)[3].strip()
    if result.kind in ("clones", "classic"):
        from analysis.predict import section as prediction
        summary["prediction"] = prediction.build(result, all_steps, simulate=simulate)
    summary["faults"] = [f for run in result.runs
                         for f in faultmod.summarize(run.id, run.faults, run.history, all_steps.get(run.id))]
    traced = traces.summarize(result, all_steps, summary)       # runs with spans (docs/tracing.md)
    if traced:
        summary["traces"] = traced
        summary["method"]["traces"] = traces.__doc__.split("Method (also printed in the report):")[1].strip()
    summary["nodes"] = nodemod.rows(result.runs, all_steps, run_max, e)
    summary["findings"] = [f.to_json() for f in registry.findings(summary)]
    summary["findings_title"] = ("checked on this run" if summary["findings"] and all(
        f["method"] == LATENCY for f in summary["findings"]) else "the classic results, checked on this run")
    return Analysis(result, all_steps, run_max, hints, summary)


def build(folder: str | Path) -> dict:
    """summary.json content for a result folder."""
    return analyse(load(folder)).summary
