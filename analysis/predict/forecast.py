"""Predict every configuration of a clones (or classic) experiment from its baseline alone.

`plan(result)` lists the configurations the experiment runs (experiment.json "definition" —
so it works right after the baseline, before the others have run); `predict(result, steps)`
fits the model to the baseline run(s) and predicts each configuration at its own user
steps: throughput, response time and bottleneck per step, the saturation throughput (the
highest predicted step, as the measured maximum is the highest measured step) and the knee
(the first step within the tolerance of it). Beside it, two naive predictions from the same
baseline: linear scaling (the baseline's curve times the scaled resource's multiple) and the
Universal Scalability Law fitted to the baseline's user sweep (p copies of it, each with N/p
users). A client per request builds its client on every call, which a singleton baseline never
does: it is predicted from the baseline plus the client-build probe the runner measures on the
baseline's stack (buildcost.py); without a probe it is listed as not predicted, or — after the
fact, marked so — predicted from its own lowest-load step.
"""
from __future__ import annotations

import json
import math
import time
import warnings
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
from scipy.optimize import OptimizeWarning, curve_fit

from analysis.predict import baseline_demands as dmod, buildcost
from analysis.predict.fit import Config, fit, model
from analysis.predict.model import solve_model

FORMAT = 1
FILE = "prediction.json"
OLD_KEYS = {"calibrated_on": "fitted_to", "calibration": "fit"}   # as a runner wrote them before the model's
                                                                  # fit got its name: still read
REQUEST_WHY = ("a client per request builds its client (fetches and parses the WSDL) on every call, which a "
               "singleton baseline never does: its per-call cost is not in the baseline")


def config_of(meta: dict) -> Config:
    tiers = {k: int(v or 0) for k, v in (meta.get("tiers") or {}).items()}
    backend = meta.get("backend") or "axis"
    mode = meta.get("client_mode") or "singleton"
    return Config(clones=max(tiers.get("clone", 1), 1), service=max(tiers.get(backend, 1), 1),
                  fronts=max(tiers.get("front", 1), 1), client_mode=mode,
                  pool_size=meta.get("pool_size") if mode == "pool" else None)


def plan(experiment: dict) -> list[dict]:
    """[{id, config: Config, users: [...]}] of the clone runs the experiment defines."""
    out = []
    for r in ((experiment.get("definition") or {}).get("runs") or []):
        if r.get("kind") not in (None, "clones"):
            continue
        users = list(((r.get("load") or {}).get("users")) or [])
        out.append({"id": r.get("id"), "config": config_of(r), "users": [int(u) for u in users], "meta": r})
    return out


def knee(users: list[int], xs: list[float], tolerance: float) -> int | None:
    """The first user count whose throughput is within `tolerance` of the highest."""
    if not xs:
        return None
    top = max(xs)
    return next(u for u, x in sorted(zip(users, xs)) if x >= top * (1 - tolerance))


def usl(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def fit_usl(points: list[tuple[int, float]]) -> tuple[float, float, float] | None:
    """lambda, sigma, kappa of the Universal Scalability Law through (users, throughput)."""
    if len(points) < 2:
        return None
    n = np.array([p[0] for p in points], dtype=float)
    x = np.array([p[1] for p in points], dtype=float)
    guess = (float(x[np.argmin(n)] / n.min()), 0.5, 0.0)
    try:
        with warnings.catch_warnings():          # a flat baseline leaves the covariance undefined
            warnings.simplefilter("ignore", OptimizeWarning)
            params, _ = curve_fit(usl, n, x, p0=guess, bounds=([0, 0, 0], [np.inf, 1, 1]), maxfev=20000)
    except (RuntimeError, ValueError):
        return None
    return tuple(float(v) for v in params)


def multiple(cfg: Config, base: Config) -> float:
    """How many times the baseline's capacity a naive reading gives: replicas of the scaled
    tier times the clients per clone (a pool of P: P; a client per request: no multiple)."""
    clients = cfg.pool_size or 1 if cfg.client_mode == "pool" else 1
    return (cfg.clones / base.clones) * (cfg.service / base.service) * clients


def naive(cfg: Config, base_curve: list[tuple[int, float]], users: list[int], usl_params, base: Config) -> dict:
    p = multiple(cfg, base)
    ns = np.array([u for u, _ in base_curve], dtype=float)
    xs = np.array([x for _, x in base_curve], dtype=float)
    linear = [p * float(np.interp(u, ns, xs)) for u in users]
    law = [p * usl(u / p, *usl_params) for u in users] if usl_params else None
    return {"multiple": p, "linear": linear, "usl": law}


def _sweep(m, users: list[int]) -> list:
    return [solve_model(m, u) for u in users]


def predict(result, steps: dict, tolerance: float | None = None, own_request_steps: bool = True,
            fit_runs: tuple[str, ...] | None = None) -> dict:
    """The prediction of every planned configuration (see the module doc); raises
    baseline_demands.NoBaseline when the folder has no baseline to fit the model to. fit_runs: ids of runs
    whose steps the CPU fit uses besides the baseline's (baseline_demands.measure; None: its default,
    the baseline's path-5 segment runs where there are any)."""
    tol = tolerance if tolerance is not None else result.settings.tolerance
    d = dmod.measure(result, steps, fit_runs=runs_named(result, fit_runs))
    fitted = fit(d)
    base_cfg = Config()
    base_curve = sorted((s.users, s.throughput) for s in d.steps)
    merged: dict[int, list[float]] = {}
    for u, x in base_curve:
        merged.setdefault(u, []).append(x)
    base_curve = [(u, float(np.median(v))) for u, v in sorted(merged.items())]
    usl_params = fit_usl(base_curve)
    probe, no_probe = buildcost.read(result.path, result.settings)
    if probe is not None and probe.backend != d.backend:
        no_probe = f"the client-build probe built {probe.backend} clients, the baseline calls {d.backend}"
    configs, skipped, seen = [], [], {}
    for item in plan(result.experiment):
        cfg, users = item["config"], item["users"]
        key = (asdict(cfg).__repr__(), tuple(users))
        if key in seen:
            seen[key]["runs"].append(item["id"])
            continue
        entry = {"runs": [item["id"]], "config": asdict(cfg), "text": cfg.text(), "users": users,
                 "baseline": dmod.is_baseline(item["meta"])}
        seen[key] = entry
        request_fitted, source = None, "baseline"
        if cfg.client_mode == "request" and buildcost.usable(probe, d):
            request_fitted = buildcost.request_fit(fitted, probe, d)
            source = (f"the baseline and the client-build probe ({buildcost.FILE}: {probe.builds} builds"
                      + ("; its CPU per build " + probe.under_load if probe.under_load else "") + ")")
        elif cfg.client_mode == "request":
            own = [r for r in result.runs if config_of(r.meta) == cfg and r.id in entry["runs"]]
            if not (own_request_steps and own):
                skipped.append({"runs": entry["runs"], "text": cfg.text(), "why": f"{REQUEST_WHY}; {no_probe}"})
                del seen[key]
                continue
            try:
                rd = dmod.measure(result, steps, runs=own, first_step_only=True)
            except dmod.NoBaseline as e:
                skipped.append({"runs": entry["runs"], "text": cfg.text(), "why": f"{REQUEST_WHY}; and {e}"})
                del seen[key]
                continue
            request_fitted = _request_fit(rd, d.background)
            source = f"its own lowest-load step ({rd.steps[0].users} users), not the baseline"
        m = model(fitted, cfg, request=request_fitted)
        pts = _sweep(m, users)
        xs = [p.throughput for p in pts]
        entry.update(fitted_to=source, model=_model_json(m), points=[p.to_json() for p in pts],
                     predicted_max_throughput=max(xs) if xs else None, knee_users=knee(users, xs, tol),
                     method=sorted({p.method for p in pts}), naive=naive(cfg, base_curve, users, usl_params, base_cfg))
        configs.append(entry)
    return {"format": FORMAT, "written": time.time(), "fitted_to": d.baseline_runs, "tolerance": tol,
            "demands": d.to_json(), "fit": fitted.to_json(),
            "usl": dict(zip(("lambda", "sigma", "kappa"), usl_params)) if usl_params else None,
            "configurations": configs, "not_predicted": skipped,
            "build_probe": probe.to_json() if probe is not None else None}


def read(path) -> dict:
    """A prediction.json as the runner wrote it, the keys of an older runner (OLD_KEYS) read as
    today's, in the file and in each of its configurations."""
    pred = _current_keys(json.loads(Path(path).read_text()))
    if isinstance(pred.get("configurations"), list):
        pred["configurations"] = [_current_keys(c) for c in pred["configurations"]]
    return pred


def _current_keys(d: dict) -> dict:
    return {OLD_KEYS.get(k, k): v for k, v in d.items()}


def runs_named(result, ids: tuple[str, ...] | None) -> list | None:
    """The runs of `result` with these ids, its probes' among them (None: None,
    baseline_demands.measure's default); NoBaseline naming an id the folder does not have."""
    if ids is None:
        return None
    runs = {r.id: r for r in (*result.runs, *dmod.probe_runs(result))}
    unknown = [i for i in ids if i not in runs]
    if unknown:
        raise dmod.NoBaseline(f"{result.path}: no run {', '.join(unknown)} to fit the CPU on "
                              f"(runs: {', '.join(runs)})")
    return [runs[i] for i in ids]


def _request_fit(rd: dmod.Demands, background: dict[str, float] | None = None):
    """A client per request fitted to its own step: everything is CPU outside any lock,
    plus the service's wait and the measured per-call latency not spent on the CPU. background:
    the baseline's fitted U0 per tier, taken out of the step's CPU before it is divided by its
    throughput (the model takes it off the cores already)."""
    from analysis.predict.fit import _split, Fitted
    if background:
        cpu = dict(rd.cpu)
        for t, u0 in background.items():
            per = [max(s.cpu[t] - u0 / s.throughput, 0.0) for s in rd.steps if t in s.cpu and s.throughput]
            cpu[t] = dmod.Estimate.of(per) or cpu.get(t)
        rd = replace(rd, cpu={t: e for t, e in cpu.items() if e})
    outside, inside, notes, fixed = _split(rd)
    hold = rd.lock_hold.mean if rd.lock_hold else 0.0
    cpu_in = sum(inside.values())
    residual = max(hold - rd.service_wait_s - cpu_in, 0.0)
    return Fitted(outside, inside, rd.service_wait_s, residual, dict(rd.pools), rd.threads.get("front", 200),
                      rd.think_time_s, tuple(notes), inside_fixed=fixed)


def _model_json(m) -> dict:
    d = asdict(m)
    for k in ("lock_servers", "concurrency"):
        if d[k] == math.inf:
            d[k] = None
    return d
