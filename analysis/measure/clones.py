"""Clone scaling: speed-up and efficiency per run against the 1-replica baseline of the same kind,
for the client tier (clone) and the service tier (axis | gsoap) separately, and the
request/pool client lifecycles as ratios to the singleton one.

Method: the baseline of a run scaled in tier t is the set of runs with the same configuration
(client mode, pool size, backend, op, ...), the same counts in every other tier, and 1 replica
of t. speed-up = X / median X(baseline); efficiency = speed-up / replicas of t (1.0 = linear).
Baseline runs get speed-up 1. A run differing from every 1-replica run in more than one tier
gets none. vs_singleton = X / median X(singleton runs with the same tiers and configuration).
Intervals: a ratio of two measured throughputs with 95 % intervals [a_lo, a_hi] and
[b_lo, b_hi] lies in [a_lo/b_hi, a_hi/b_lo] (speedup_interval, vs_singleton_interval; the
baseline's interval spans its runs' intervals).

A row is a dict with at least: id, tiers {front, clone, axis, gsoap}, client_mode, pool_size,
max_throughput, optionally interval [low, high] (95 %), and any other configuration keys
(backend, op, ...) under "config".
"""
from __future__ import annotations

import json
import statistics

from analysis.stats import ratio_interval

SCALING_NAMES = {"clone": "client tier", "axis": "service tier", "gsoap": "service tier",
                 "front": "front tier"}
SINGLETON = "singleton"


# the demand points the classic-system profile sets for one client lifecycle alone, as that
# lifecycle's own cost (cli/testbed/fit/profile.py: a client per request's build, CLONE; the
# pool run's Invoker CPU, INVOKER): with a profile, a lifecycle is held against the singleton
# runs that differ from it only in these
PROFILE_LIFECYCLE_POINTS = ("CLONE", "INVOKER")


def _rest(row: dict, drop: tuple[str, ...] = (), points: tuple[str, ...] = ()) -> str:
    config = {k: v for k, v in (row.get("config") or {}).items() if k not in drop}
    if points and isinstance(config.get("demands"), dict):
        config["demands"] = {p: d for p, d in config["demands"].items() if p not in points}
    if "client_mode" not in drop:
        config["client_mode"] = row.get("client_mode")
        config["pool_size"] = row.get("pool_size")
    return json.dumps(config, sort_keys=True)


def is_baseline(meta: dict) -> bool:
    """A clone run with 1 front, 1 clone, 1 replica of its backend (your own service: its one
    endpoint) and the singleton client (a run's meta, or a summary row's config)."""
    tiers = {k: int(v or 0) for k, v in (meta.get("tiers") or {}).items()}
    backend = meta.get("backend") or "axis"
    return (meta.get("kind") in (None, "clones") and (meta.get("client_mode") or "singleton") == "singleton"
            and tiers.get("clone") == 1 and tiers.get(backend, 1 if backend == "own" else 0) == 1
            and tiers.get("front", 1) == 1)


def _tiers(row: dict) -> dict[str, int]:
    return {k: int(v) for k, v in (row.get("tiers") or {}).items()}


def _differs_in(a: dict[str, int], b: dict[str, int]) -> list[str]:
    return [t for t in sorted(set(a) | set(b)) if a.get(t, 0) != b.get(t, 0)]


def _median_x(rows: list[dict]) -> float | None:
    xs = [r["max_throughput"] for r in rows if r.get("max_throughput") is not None]
    return statistics.median(xs) if xs else None


def _envelope(rows: list[dict]) -> tuple[float, float] | None:
    ivs = [r.get("interval") for r in rows if r.get("max_throughput") is not None]
    if not ivs or any(i is None for i in ivs):
        return None
    return min(i[0] for i in ivs), max(i[1] for i in ivs)


def _ratio(row: dict, base: list[dict]) -> list[float] | None:
    iv = ratio_interval(_envelope([row]), _envelope(base))
    return None if iv is None else list(iv)


def scaling(rows: list[dict], lifecycle_points: tuple[str, ...] = ()) -> list[dict]:
    """Rows with added keys: scaled_tier, scaling, replicas, speedup, efficiency, baseline_runs,
    vs_singleton, speedup_interval, vs_singleton_interval. Values are None where no baseline
    run exists. lifecycle_points: demand points left out when a lifecycle run is held against
    the singleton ones (PROFILE_LIFECYCLE_POINTS with the classic-system profile)."""
    out = []
    for orig in rows:
        r = dict(orig, scaled_tier=None, scaling=None, replicas=None, speedup=None, efficiency=None,
                 baseline_runs=[], vs_singleton=None, speedup_interval=None, vs_singleton_interval=None)
        tiers, x = _tiers(r), r.get("max_throughput")
        candidates: dict[str, list[dict]] = {}
        for b in rows:
            if b is orig or _rest(b) != _rest(r):
                continue
            diff = _differs_in(tiers, _tiers(b))
            if len(diff) == 1 and _tiers(b).get(diff[0]) == 1 and tiers.get(diff[0], 0) > 1:
                candidates.setdefault(diff[0], []).append(b)
        if len(candidates) == 1:
            tier, base = next(iter(candidates.items()))
            bx = _median_x(base)
            r.update(scaled_tier=tier, scaling=SCALING_NAMES.get(tier, f"{tier} tier"),
                     replicas=tiers[tier], baseline_runs=[b["id"] for b in base])
            if x is not None and bx:
                r["speedup"] = x / bx
                r["efficiency"] = r["speedup"] / tiers[tier]
                r["speedup_interval"] = _ratio(orig, base)
        elif not candidates and x is not None and _is_baseline(orig, rows):
            r.update(scaled_tier="baseline", scaling="baseline", replicas=1, speedup=1.0,
                     efficiency=1.0)
        if r.get("client_mode") not in (None, SINGLETON):
            same = [b for b in rows if b.get("client_mode") == SINGLETON
                    and _rest(b, ("client_mode",), lifecycle_points) == _rest(r, ("client_mode",), lifecycle_points)
                    and not _differs_in(tiers, _tiers(b))]
            sx = _median_x(same)
            if x is not None and sx:
                r["vs_singleton"] = x / sx
                r["vs_singleton_interval"] = _ratio(orig, same)
        out.append(r)
    return out


def _is_baseline(r: dict, rows: list[dict]) -> bool:
    """r has 1 replica in some tier that another run of its kind scales."""
    tiers = _tiers(r)
    for b in rows:
        if b is r or _rest(b) != _rest(r):
            continue
        diff = _differs_in(tiers, _tiers(b))
        if len(diff) == 1 and tiers.get(diff[0]) == 1 and _tiers(b).get(diff[0], 0) > 1:
            return True
    return False


def config_text(config: dict) -> str:
    """A run's configuration as a person reads it: `singleton · front 1 · clone 2 · axis 1 ·
    /seg/5 axis ping`; the demands (a table of their own in the report) and the kind left out."""
    c = dict(config)
    parts = []
    mode, pool = c.pop("client_mode", None), c.pop("pool_size", None)
    if mode:
        parts.append(f"pool of {pool}" if mode == "pool" and pool else str(mode))
    parts += [f"{t} {n}" for t, n in (c.pop("tiers", None) or {}).items() if n]
    path, backend, op, n = (c.pop(k, None) for k in ("path", "backend", "op", "n"))
    if path is not None:
        parts.append(f"/seg/{path}" + (f" {backend} {op}" + (f" n={n}" if n else "") if path == 5 else ""))
    elif backend or op:
        parts.append(" ".join(str(x) for x in (backend, op, f"n={n}" if n else None) if x))
    for k, v in sorted((c.pop("knobs", None) or {}).items()):
        if k.startswith("OWN_"):          # your own service: named once, in the report's settings
            continue
        parts.append(f"{k[5:].lower()} {v} CPU" if k.startswith("CPUS_") else f"{k}={v}")
    parts += [f"{k} {v}" for k, v in sorted(c.items()) if k not in ("demands", "kind") and v not in (None, "")]
    return " · ".join(parts)


def curves(rows: list[dict]) -> dict[str, list[tuple[int, float, str]]]:
    """Speed-up curves for plotting: "client tier" / "service tier" -> [(replicas, speedup,
    series label)], each series starting at its baseline (1, 1.0)."""
    out: dict[str, list[tuple[int, float, str]]] = {}
    for r in rows:
        if r.get("speedup") is None or r.get("scaled_tier") in (None, "baseline"):
            continue
        cfg = config_text(r.get("config") or {})
        label = f"{r['scaled_tier']} ({r.get('client_mode')}{', ' + cfg if cfg else ''})"
        points = out.setdefault(r["scaling"], [])
        if (1, 1.0, label) not in points:
            points.append((1, 1.0, label))
        points.append((r["replicas"], r["speedup"], label))
    return out
