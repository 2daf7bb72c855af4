"""The smallest configuration that meets the service levels, measured (`./testbed capacity`,
docs/compare.md, "Capacity"). The model chooses where to measure; the answer is a measurement.

    ./testbed capacity --slo slo.toml --from results/clones-<stamp>

1. The load: the levels that apply to the path capacity sizes (/seg/5; keys "*" and "/seg/5")
   state it — the largest of their "throughput >= X/s" and their "at R/s". No load stated: refused.
2. The ladder: the configurations `./testbed predict --target` walks (analysis/predict/target.py),
   smallest first — fewest JVM replicas, then fewest clients: on one clone the singleton, pools of
   2 ... 32, a client per request; then two clones ... Each has its predicted saturation
   throughput, its critical users N* and the users that reach the load.
3. The model's choice: the first configuration of the ladder predicted to reach the load.
4. The walk: measure the choice. If it meets every level, measure its smaller neighbour (the one
   before it on the ladder): a miss there ends the walk, a pass walks down on. If the choice misses,
   walk up the ladder until a configuration meets. The answer: the configuration that met every level
   and whose smaller neighbour measured a miss (or that is the smallest of the ladder). A level "not
   decided" (its interval straddles the limit) is not met: a capacity has to be shown, not hoped.
   At most `budget` measurements; then the walk stops "not settled" with what it measured.

Each measurement is one run (kind clones, /seg/5) of the folder's baseline configuration changed
to the candidate — same backend, operation, payload and demands — primed until warm by the
steady-state rule, at closed-loop steps of users around the candidate's predicted N*. The model's
error at each point: predicted / measured saturation throughput − 1.
"""
from __future__ import annotations

import json
import math
from typing import Callable

from analysis import slo
from analysis.predict import target as tmod
from analysis.predict.check_run import demands_toml
from analysis.predict.fit import Config, model
from analysis.predict.model import solve_model

PATH = 5                   # the path a configuration of the clone tier serves: /seg/5
BUDGET = 6                 # measurements at most, by default
MAX_USERS = 400            # a step's users at most (the front's threads are 200; HAProxy queues the rest)
MIN_STEP_S, MAX_STEP_S = 5, 120     # a step's measured seconds: what its levels need, within these
WARMUP_S = 2
FILE_JSON, FILE_HTML = "capacity.json", "capacity.html"


class CapacityError(ValueError):
    """Capacity cannot be asked this way; the text names the problem and the fix in one line."""


def load_of(levels: dict[str, list[dict]]) -> tuple[float, list[dict], list[str]]:
    """(the load to size for, the levels that apply to /seg/5, the keys that do not apply)."""
    applied, ignored = [], []
    for key, items in levels.items():
        if key in ("*", f"/seg/{PATH}"):
            applied += items
        else:
            ignored.append(key)
    if not applied:
        raise CapacityError(f"no level applies to /seg/{PATH}, the path capacity sizes: put the levels under \"*\" "
                            f"or \"/seg/{PATH}\" (the file has {', '.join(repr(k) for k in ignored)})")
    rates = [lv["limit"] for lv in applied if lv["metric"] == "throughput" and lv["op"] in (">", ">=")]
    rates += [lv["at"] for lv in applied if lv["at"] is not None]
    if not rates:
        raise CapacityError("the levels state no load to size for: add \"throughput >= X/s\" or a level "
                            "\"at X/s\" (e.g. \"p99 < 200 ms at 100/s\")")
    if max(rates) <= 0:
        raise CapacityError("the load the levels state is 0/s: give a throughput above 0")
    return max(rates), applied, ignored


class Ladder:
    """The candidates, smallest first, each predicted once for a load when first asked."""

    def __init__(self, fitted, base: Config, modes: list[str], request=None, tolerance: float = 0.05):
        self.fitted, self.request, self.tolerance = fitted, request, tolerance
        self.configs = tmod.candidates(base, modes, request is not None)
        self._seen: dict[tuple[int, float], dict] = {}

    def __len__(self) -> int:
        return len(self.configs)

    def predicted(self, i: int, rate: float) -> dict:
        if (i, rate) not in self._seen:
            cfg = self.configs[i]
            x, n_star, where = tmod.saturation(self.fitted, cfg, self.request, self.tolerance)
            m = model(self.fitted, cfg, think_time=0.0, request=self.request)
            n_rate = users_for(m, rate) if x >= rate else None
            self._seen[i, rate] = {"config": cfg, "text": cfg.text(), "slug": slug(cfg), "max_throughput": x,
                             "critical_users": n_star, "bottleneck": where, "users_at_load": n_rate,
                             "response_ms_at_load": (solve_model(m, n_rate).response_time * 1e3
                                                     if n_rate else None)}
        return self._seen[i, rate]


def users_for(m, rate: float, most: int = 4096) -> int | None:
    """The fewest users (think time 0) at which the model's throughput reaches rate."""
    hi = 1
    while solve_model(m, hi).throughput < rate:
        if hi >= most:
            return None
        hi *= 2
    lo = max(1, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if solve_model(m, mid).throughput >= rate:
            hi = mid
        else:
            lo = mid + 1
    return lo


def slug(cfg: Config) -> str:
    mode = f"pool{cfg.pool_size}" if cfg.client_mode == "pool" else cfg.client_mode
    return f"{mode}-c{cfg.clones}-s{cfg.service}"


def step_users(pred: dict) -> list[int]:
    """Closed-loop steps for a candidate: the users predicted to reach the load (if any), its N*
    and twice N*: the load level itself, and the saturation its maximum is read at."""
    n_star = max(1, int(pred["critical_users"] or 1))
    users = {n_star, 2 * n_star} | ({int(pred["users_at_load"])} if pred.get("users_at_load") else set())
    return sorted(min(MAX_USERS, max(1, u)) for u in users)


def requests_needed(level: dict) -> int:
    """Requests a step needs before the level can be decided when the system is well inside it:
    an error rate of 0 has Wilson's upper bound z²/(n + z²), below the limit p from n > z²/p (twice
    that, so a few errors still leave it decided); a percentile q has a distribution-free interval
    from n·q·(1 − q) ≥ 5 (four times that, so the interval is narrow enough to be on one side)."""
    if level["metric"] == "errors":
        return math.ceil(2 * slo.Z95 ** 2 / max(level["limit"] / 100, 1e-6))
    q = {"p50": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99, "p99.9": 0.999}.get(level["metric"])
    return math.ceil(20 / (q * (1 - q))) if q else 0


def step_seconds(levels: list[dict], rate: float) -> tuple[float, str | None]:
    """(measured seconds a step needs at the load for every level, why it is capped or None)."""
    need = max((requests_needed(lv) for lv in levels), default=0)
    seconds = max(MIN_STEP_S, math.ceil(need / rate)) if rate > 0 else MIN_STEP_S
    if seconds > MAX_STEP_S:
        return MAX_STEP_S, (f"a step needs {need:,} requests ({seconds} s at {rate:g}/s) to decide every level; "
                            f"capped at {MAX_STEP_S} s: a level may stay not decided")
    return seconds, None


def walk(size: int, start: int, measure: Callable[[int], bool], budget: int = BUDGET) -> dict:
    """Measure start, then walk the ladder (module doc, 4). measure(i) -> whether candidate i met
    every level. Returns {"answer": index or None, "status": settled | smallest | none meets |
    not settled, "path": the indices measured in order, "met": {index: bool}}."""
    path, met = [], {}

    def m(i: int) -> bool:
        path.append(i)
        met[i] = bool(measure(i))
        return met[i]

    if not 0 <= start < size or budget < 1:
        raise ValueError("start must be a candidate and budget >= 1")
    if m(start):
        i = start
        while True:
            if i == 0:
                return {"answer": 0, "status": "smallest", "path": path, "met": met}
            if len(path) >= budget:
                return {"answer": i, "status": "not settled", "path": path, "met": met}
            if not m(i - 1):
                return {"answer": i, "status": "settled", "path": path, "met": met}
            i -= 1
    i = start
    while True:
        if i + 1 >= size:
            return {"answer": None, "status": "none meets", "path": path, "met": met}
        if len(path) >= budget:
            return {"answer": None, "status": "not settled", "path": path, "met": met}
        if m(i + 1):
            return {"answer": i + 1, "status": "settled", "path": path, "met": met}
        i += 1


def experiment_toml(pred: dict, base_meta: dict, source: str, rate: float, levels: list[dict] = ()) -> str:
    """One measurement: the source folder's baseline changed to the candidate, its steps as long as
    the levels need (step_seconds)."""
    cfg: Config = pred["config"]
    least, _ = step_seconds(list(levels), rate)
    backend = str(base_meta.get("backend") or "axis")
    pool = f"pool_size = {cfg.pool_size}\n" if cfg.client_mode == "pool" else ""
    return f"""# Written by ./testbed capacity (analysis/capacity.py): one measurement of the walk for {rate:g}/s.
# {cfg.text()}: predicted {pred['max_throughput']:.1f}/s at saturation, N* = {pred['critical_users']},
# from the model fitted to {source}.
name = "capacity-{pred['slug']}"
kind = "clones"
findings = []              # a measurement of the walk: the levels are judged by ./testbed capacity
description = {json.dumps("capacity: " + cfg.text())}

[load]
users = {step_users(pred)}
warmup_seconds = {WARMUP_S}
target_ci = 0.05
min_step_seconds = {least:g}        # what the levels need at {rate:g}/s (analysis/capacity.py: step_seconds)
step_seconds = {max(15, least + WARMUP_S + 10):g}
think_time = 0.0
workers = "auto"
warm = "steady"
hold_seconds = 0

[defaults]
path = {PATH}
backend = {json.dumps(backend)}
op = {json.dumps(str(base_meta.get("op") or "ping"))}
n = {int(base_meta.get("n") or 0)}
tiers = {{ front = 1, clone = {cfg.clones}, {backend} = {cfg.service} }}
client_mode = "{cfg.client_mode}"
{pool}{demands_toml(base_meta)}
[settings]
tolerance = 0.05

[[runs]]
id = "{pred['slug']}"
label = {json.dumps(cfg.text())}
"""


def judged(an, run_id: str, levels: list[dict], pred: dict) -> dict:
    """A measurement's verdicts: each level on the run, its measured maximum, the model's error."""
    run = next((r for r in an.result.runs if r.id.startswith(run_id)), None)
    if run is None:
        return {"meets": False, "why": "the run did not take place", "levels": [], "measured": None,
                "interval": None, "error": None}
    entry = next((e for e in an.summary.get("runs", []) if e["id"] == run.id), {})
    verdicts = [slo.judge_run(run, an.steps.get(run.id, []), entry, lv) for lv in levels]
    measured = entry.get("max_throughput")
    error = pred["max_throughput"] / measured - 1 if measured else None
    bad = [v for v in verdicts if v["verdict"] != "met"]
    why = "; ".join(f"{v['level']}: {v['verdict']}" + (f" ({v['why']})" if v.get("why") else "") for v in bad)
    return {"meets": not bad, "why": why or "every level met", "levels": verdicts, "measured": measured,
            "interval": entry.get("max_interval"), "error": error}


def result(rate: float, levels: list[dict], ignored: list[str], ladder: Ladder, choice: int | None,
           walked: dict | None, measurements: dict[int, dict], source: str, status: str | None = None,
           why: str | None = None) -> dict:
    """capacity.json: the load, the model's choice, the path walked with each point's figures."""
    def row(i: int) -> dict:
        p = ladder.predicted(i, rate)
        out = {k: v for k, v in p.items() if k != "config"}
        out["config"] = {"clones": p["config"].clones, "service": p["config"].service,
                         "client_mode": p["config"].client_mode, "pool_size": p["config"].pool_size}
        return {**out, **measurements.get(i, {})}

    path = (walked or {}).get("path", [])
    answer = (walked or {}).get("answer")
    errors = [abs(measurements[i]["error"]) for i in path if measurements.get(i, {}).get("error") is not None]
    return {"load": rate, "levels": [lv["text"] for lv in levels], "ignored_keys": ignored, "from": source,
            "choice": row(choice) if choice is not None else None,
            "status": status or (walked or {}).get("status", "not measured"),
            "answer": row(answer) if answer is not None else None,
            "measurements": len(path), "path": [{"step": k + 1, **row(i)} for k, i in enumerate(path)],
            "model_error_median": sorted(errors)[len(errors) // 2] if errors else None,
            "model_error_max": max(errors) if errors else None, **({"why": why} if why else {})}


def headline(r: dict) -> str:
    if r["answer"] is not None and r["status"] in ("settled", "smallest"):
        a = r["answer"]
        why = ("the smallest configuration there is" if r["status"] == "smallest" else
               "its smaller neighbour measured a miss")
        return (f"capacity for {r['load']:g}/s: {a['text']} — measured {a['measured']:,.1f}/s, every level met; "
                f"{why} ({r['measurements']} measurements)")
    if r["status"] == "not reachable":
        return f"capacity for {r['load']:g}/s: no configuration is predicted to reach it: {r.get('why', '')}"
    if r["status"] == "none meets":
        return f"capacity for {r['load']:g}/s: no configuration of the ladder measured within the levels"
    return (f"capacity for {r['load']:g}/s: not settled after {r['measurements']} measurements ({r['status']})"
            + (f"; the smallest that met: {r['answer']['text']}" if r["answer"] else ""))


def text(r: dict) -> str:
    lines = [headline(r), f"levels: {'; '.join(r['levels'])} (the model from {r['from']})"]
    if r["choice"]:
        c = r["choice"]
        lines.append(f"the model's choice: {c['text']}, predicted {c['max_throughput']:,.1f}/s at saturation "
                     f"(N* = {c['critical_users']})")
    lines.append(f"{'#':>2}  {'configuration':<34} {'predicted':>10} {'measured':>10} {'error':>7}  verdict")
    for p in r["path"]:
        measured = "—" if p.get("measured") is None else f"{p['measured']:,.1f}"
        err = "—" if p.get("error") is None else f"{p['error']:+.1%}"
        verdict = "meets" if p.get("meets") else "misses: " + str(p.get("why", ""))
        lines.append(f"{p['step']:>2}  {p['text']:<34} {p['max_throughput']:>10,.1f} {measured:>10} {err:>7}  {verdict}")
    if r.get("model_error_median") is not None:
        lines.append(f"the model's error (predicted / measured saturation − 1): median {r['model_error_median']:.1%}, "
                     f"largest {r['model_error_max']:.1%}")
    return "\n".join(lines)


def exit_status(r: dict) -> int:
    return 0 if r["answer"] is not None and r["status"] in ("settled", "smallest") else 1

