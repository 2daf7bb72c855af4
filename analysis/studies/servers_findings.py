"""The classic findings of the socket server models study (docs/method.md, "Socket server
models"), judged on one run's point rows (analysis/studies/servers.py), once per per-message work.

Noise tolerance X of a sweep: the larger of 10 % and the median, over the sweep's points with
two or more runs, of the completion time's interquartile spread (p75 − p25) / median (with 3 runs,
half the range: one run caught by a burst of the machine's other work moves the range, not the
median). Two configurations whose medians differ by less than X are not told apart by this run.

  pool matches  "matches" = pooled median completion <= thread-per-connection's × (1 + X);
                K* = the smallest pool from which every larger pool of the sweep matches;
                holds when K* <= 30 (the published ~20–30) and below the client count
  poller        holds when at the fewest clients the poller is within X of the best model,
                and at every larger client count slower than the best other model by more than X
  length        holds when, for every model, the longest message's median completion differs from
                the shortest's by at most max(25 %, X) (8× the bytes for at most 1.25× the time);
                the lengths between are shown, not judged (their ups and downs are the noise)
  default point holds when the pooled model (pool `pool`) has a lower median than thread-per-
                connection at the published point (100 clients × 100 × 1 024)
"""
from __future__ import annotations

import statistics

from analysis.judge import published
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURABLE, Finding, missing
from analysis.judge.method import SERVERS

MIN_TOLERANCE = 0.10        # below this, repeated runs on a shared 2-core machine do not agree
LENGTH_TOLERANCE = 0.25     # "barely matters": 8× the bytes for at most 1.25× the time
PUB = published.servers()   # the published set-up and findings (analysis/judge/published.toml, "servers")
PUBLISHED_POOL = PUB.pool_matches_from[1]   # the published pool from which pooled matches (~20–30)
PUBLISHED = PUB.texts()     # the findings' published texts: pool, poller, length, default


def tolerance(rows: list[dict]) -> tuple[float, str]:
    """X for these rows, and how it was obtained (for the finding's 'why')."""
    spreads = [(c["p75"] - c["p25"]) / c["median"] for c in (r["completion"] for r in rows)
               if c["n"] >= 2 and c["median"]]
    if not spreads:
        return MIN_TOLERANCE, f"X = {MIN_TOLERANCE:.0%} (the floor: no point has two runs to measure noise)"
    med = statistics.median(spreads)
    x = max(MIN_TOLERANCE, med)
    return x, (f"X = {x:.0%}: the larger of {MIN_TOLERANCE:.0%} and the median run-to-run spread "
               f"(p75−p25)/median of these {len(spreads)} points ({med:.0%})")


def _s(v: float | None) -> str:
    return "—" if v is None else (f"{v:.3f} s" if v < 10 else f"{v:.1f} s")


def _n(count: float, word: str) -> str:
    return f"{count:.0f} {word}" + ("" if round(count) == 1 else "s")


def _med(row: dict | None) -> float | None:
    return row["completion"]["median"] if row else None


def _work_text(work: str) -> str:
    return "" if work == "none" else f" — with per-message work {work}"


def _published(key: str, work: str) -> str:
    return PUBLISHED[key] if work == "none" else f"(without work) {PUBLISHED[key]}"


def pool_matches(work: str, thread: dict | None, pooled: list[dict], clients: int) -> Finding:
    claim = "the pooled poller matches thread-per-connection with a pool far smaller than the client count" \
        + _work_text(work)
    key = f"pool-matches-{work}"
    if not thread or not _med(thread) or not [r for r in pooled if _med(r)]:
        return missing(claim, _published("pool", work), "needs thread-per-connection and the pool sweep at "
                       f"{clients} clients with valid runs", key, method=SERVERS)
    pooled = sorted((r for r in pooled if _med(r)), key=lambda r: r["pool"])
    x, how = tolerance([thread] + pooled)
    limit = _med(thread) * (1 + x)
    k_star = None
    for r in reversed(pooled):
        if _med(r) > limit:
            break
        k_star = r["pool"]
    parts = [f"thread {_s(_med(thread))}"] + [f"pool {r['pool']}: {_s(_med(r))} (×{_med(r) / _med(thread):.2f})"
                                             for r in pooled]
    at = next((r for r in pooled if r["pool"] == k_star), None)
    use = (f"; at pool {k_star} up to {_n(at['busy_peak'], 'worker')} busy at once, {at['busy_mean']:.1f} on average"
           if at and at.get("busy_peak") is not None and at.get("busy_mean") is not None else "")
    measured = "; ".join(parts) + (f" → matches from pool {k_star}{use}" if k_star else " → no pool matches")
    rule = (f"matches = pooled median ≤ thread's × (1 + X), {how}; holds when the smallest pool from which "
            f"every larger one matches is ≤ {PUBLISHED_POOL} and below the {clients} clients")
    if k_star is None:
        return Finding(claim, measured, _published("pool", work), DOES_NOT_HOLD, rule, key, method=SERVERS)
    ok = k_star <= PUBLISHED_POOL and k_star < clients
    if ok and k_star == pooled[0]["pool"] and k_star < 10:
        rule += f"; even the smallest pool tried ({k_star}) matches: the work per message is too small for " \
                "the pool to be the limit"
    return Finding(claim, measured, _published("pool", work), HOLDS if ok else DOES_NOT_HOLD, rule, key,
                   method=SERVERS)


def poller_best_at_one(work: str, by_clients: dict[int, dict[str, dict]]) -> Finding:
    """by_clients: clients -> model -> row (the clients sweep of this work)."""
    claim = "the single-thread poller is best at 1 client and falls behind above it" + _work_text(work)
    key = f"poller-{work}"
    counts = sorted(n for n, m in by_clients.items() if _med(m.get("poller")) and
                    any(_med(r) for k, r in m.items() if k != "poller"))
    if len(counts) < 2:
        return missing(claim, _published("poller", work), "needs the poller and another model at two or more "
                       "client counts", key, method=SERVERS)
    x, how = tolerance([r for n in counts for r in by_clients[n].values() if _med(r)])
    parts, verdicts = [], []
    for i, n in enumerate(counts):
        poller = _med(by_clients[n]["poller"])
        others = {k: _med(r) for k, r in by_clients[n].items() if k != "poller" and _med(r)}
        best_name = min(others, key=others.get)
        ratio = poller / others[best_name]
        ok = ratio <= 1 + x if i == 0 else ratio > 1 + x
        mark = ("best or within X" if ok else "behind by more than X") if i == 0 else \
            ("behind by more than X" if ok else "not behind by more than X")
        parts.append(f"{_n(n, 'client')}: poller {_s(poller)} vs {best_name} {_s(others[best_name])}"
                     f" (×{ratio:.2f}, {mark})")
        verdicts.append(ok)
    rule = (f"holds when at {_n(counts[0], 'client')} the poller's median is within X of the best other model's "
            f"and at every larger count more than X behind it; {how}")
    if counts[0] != 1:
        rule += f"; the sweep's fewest clients is {counts[0]}, not 1"
    return Finding(claim, "; ".join(parts), _published("poller", work), HOLDS if all(verdicts) else DOES_NOT_HOLD,
                   rule, key, method=SERVERS)


def length_barely_matters(work: str, by_length: dict[int, dict[str, dict]]) -> Finding:
    """by_length: length -> model -> row (the lengths sweep of this work)."""
    claim = "message length (512–4 096 bytes) barely matters" + _work_text(work)
    key = f"length-{work}"
    lengths = sorted(by_length)
    models = sorted({m for row in by_length.values() for m, r in row.items() if _med(r)})
    per_model = {m: [(n, _med(by_length[n].get(m))) for n in lengths if _med(by_length[n].get(m))] for m in models}
    per_model = {m: v for m, v in per_model.items() if len(v) >= 2}
    if not per_model:
        return missing(claim, _published("length", work), "needs two or more message lengths with valid runs", key,
                       method=SERVERS)
    x, how = tolerance([r for row in by_length.values() for r in row.values() if _med(r)])
    limit = max(LENGTH_TOLERANCE, x)
    parts, ok = [], True
    for m, v in per_model.items():
        (short, t_short), (long, t_long) = v[0], v[-1]
        change = t_long / t_short - 1
        ok = ok and abs(change) <= limit
        between = ", ".join(_s(t) for _, t in v[1:-1])
        parts.append(f"{m} {_s(t_short)} → {_s(t_long)} ({change:+.0%})" + (f" [between: {between}]" if between else ""))
    span = f"{lengths[0]} → {lengths[-1]} bytes: "
    rule = (f"holds when for every model the longest message's median completion is within {limit:.0%} of the "
            f"shortest's: the larger of {LENGTH_TOLERANCE:.0%} and X; {how}")
    return Finding(claim, span + "; ".join(parts), _published("length", work), HOLDS if ok else DOES_NOT_HOLD,
                   rule, key, method=SERVERS)


def default_point(work: str, rows: dict[str, dict], pool: int, clients: int, messages: int | None,
                  length: int) -> Finding:
    """rows: model -> row at the default point of this work."""
    claim = f"at {clients} clients the pooled poller (pool {pool}) is slightly better than thread-per-connection" \
        + _work_text(work)
    key = f"default-{work}"
    thread, pooled = _med(rows.get("thread")), _med(rows.get("pooled"))
    if not thread or not pooled:
        return missing(claim, _published("default", work), "needs thread and pooled at the default point", key,
                       method=SERVERS)
    x, how = tolerance([r for r in rows.values() if _med(r)])
    text = ", ".join(f"{m} {_s(_med(r))}" for m, r in sorted(rows.items()) if _med(r))
    ratio = pooled / thread
    measured = f"{clients} × {messages} × {length} B: {text}; pooled/thread ×{ratio:.2f}"
    noise = "within" if abs(ratio - 1) <= x else "beyond"
    rule = f"holds when pooled's median is below thread's (here {noise} the noise X; {how})"
    return Finding(claim, measured, _published("default", work), HOLDS if ratio < 1 else DOES_NOT_HOLD, rule, key,
                   method=SERVERS)


def not_measurable(claim: str, why: str, key: str) -> Finding:
    return Finding(claim, "—", "", NOT_MEASURABLE, why, key, method=SERVERS)
