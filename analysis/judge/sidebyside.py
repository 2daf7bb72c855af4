"""The classic report beside this run: every published figure of the WAS/Axis diagnosis report
(analysis/judge/published.toml, read by analysis/judge/classic.PUBLISHED) next to this run's figure with its 95 % interval, and both
normalized by their own reference, since absolute rates differ by machine.

References (each side divided by its own): path maxima and per-segment throughputs by T(①),
the whole path of the shortest route (the static page); clone runs by the singleton client on
one clone. A normalized figure of this run carries the ratio of the two intervals
([a_lo/b_hi, a_hi/b_lo]); the reference row itself is 1 by definition. Capacity is a count of
users: N = N* + X·Z with the published example's think time Z, X = T(①-⑤) and N* its critical
users; its interval comes from X's. An interval's upper end may be unbounded ("∞": the two
path intervals overlap, so the segment's demand may be zero).
"""
from __future__ import annotations

import statistics

from analysis.judge import published
from analysis.judge.classic import PUB, PUBLISHED

CIRCLED = {1: "①", 2: "②", 3: "③", 4: "④", 5: "⑤"}
CAPACITY_Z_S = float(PUB.think_time_s)     # the published capacity example's think time Z
Interval = tuple[float, float | None]


def _path_name(k: int) -> str:
    return f"T({CIRCLED[1]}-{CIRCLED[k]})" if k > 1 else f"T({CIRCLED[1]})"


def _ratio(a: Interval | None, b: Interval | None) -> Interval | None:
    """x/y over x in a, y in b; an unbounded end stays unbounded (None)."""
    if a is None or b is None or b[0] is None or b[0] <= 0 or a[0] < 0:
        return None
    high = None if a[1] is None or b[1] is None else a[1] / b[0]
    return a[0] / b[1] if b[1] else 0.0, high


def _row(group, figure, published, measured, interval, reference, pub_norm, norm, norm_interval,
         note="", published_text=None) -> dict:
    return {"group": group, "figure": figure, "published": published,
            "published_text": published_text, "measured": measured,
            "interval": None if interval is None else list(interval), "reference": reference,
            "published_normalized": pub_norm, "normalized": norm,
            "normalized_interval": None if norm_interval is None else list(norm_interval), "note": note}


def _path_rows(summary: dict) -> list[dict]:
    series = next((p["series"] for p in summary.get("paths", [])), None)
    paths = {p["path"]: p for p in summary.get("paths", []) if p["series"] == series}
    segs = {g["segment"]: g for g in summary.get("segments", []) if g["series"] == series}
    pub = PUBLISHED["paths"]
    ref = paths.get(1)
    t1 = ref["max_throughput"] if ref else None
    t1_iv = tuple(ref["interval"]) if ref and ref.get("interval") else None
    rows = []
    for k in sorted(pub):
        p = paths.get(k)
        x = p["max_throughput"] if p else None
        iv = tuple(p["interval"]) if p and p.get("interval") else None
        norm = x / t1 if x is not None and t1 else None
        rows.append(_row("paths", f"path maximum {_path_name(k)}", pub[k], x, iv, _path_name(1),
                         pub[k] / pub[1], 1.0 if k == 1 and x else norm,
                         None if k == 1 else _ratio(iv, t1_iv),
                         "reference" if k == 1 else ("" if p else "path not run")))
    for k, published in sorted(PUBLISHED["segments"].items()):
        g = segs.get(k)
        x = None if g is None else (g["throughput"] if g["throughput"] is not None else g.get("derived"))
        iv = tuple(g["interval"]) if g and g.get("interval") else None
        note = ""
        if g is None:
            note = "not measured"
        elif g["throughput"] is None and g.get("derived") is not None:
            note = f"within the ±{g['tolerance']:.0%} noise band of T(1..{k - 1})"
        elif x is None and g.get("path_throughput") and g.get("previous_path_throughput"):
            note = (f"not measurable: T(1..{k}) is not below T(1..{k - 1}) by more than the "
                    f"±{g['tolerance']:.0%} noise band")
        elif x is None:
            note = "not measurable: " + ("a path has no maximum" if "maximum" in (g.get("reason") or "")
                                         else "see the segments table")
        rows.append(_row("segments", f"segment throughput T({CIRCLED[k]})", published, x, iv, _path_name(1),
                         published / pub[1], x / t1 if x is not None and t1 else None, _ratio(iv, t1_iv), note))
    p5 = paths.get(5)
    if p5 and p5["max_throughput"] is not None and p5.get("critical_users") is not None:
        n_star, x5 = p5["critical_users"], p5["max_throughput"]
        iv5 = p5.get("interval")
        n = n_star + x5 * CAPACITY_Z_S
        iv = None if not iv5 else (n_star + iv5[0] * CAPACITY_Z_S, n_star + iv5[1] * CAPACITY_Z_S)
        measured_note = f"N = {n_star:g} + {x5:,.1f} × {CAPACITY_Z_S:g}"
    else:
        n, iv, measured_note = None, None, "path ⑤ has no maximum"
    rows.append(_row("capacity", f"capacity with think time Z = {CAPACITY_Z_S:g} s (users)", PUB.capacity_users, n, iv, "",
                     None, None, None, measured_note, published_text=PUBLISHED["capacity"]))
    return rows


def _pick(runs: list[dict], value: str, interval: str) -> tuple[float | None, Interval | None, int]:
    """Median of `value` over the matching runs (repeats), the envelope of their intervals."""
    have = [r for r in runs if r.get(value) is not None]
    if not have:
        return None, None, 0
    ivs = [r.get(interval) for r in have]
    env = None if any(i is None for i in ivs) else (
        min(i[0] for i in ivs), None if any(i[1] is None for i in ivs) else max(i[1] for i in ivs))
    return statistics.median(r[value] for r in have), env, len(have)


def _clone_rows(summary: dict) -> list[dict]:
    runs = [r for r in summary.get("runs", []) if r.get("client_mode")]
    single = PUBLISHED["singleton_clones"]
    ref_pub = single[1]
    ref = "singleton, 1 clone"

    def match(mode, scaling=None, replicas=None, clones=None):
        return [r for r in runs if r.get("client_mode") == mode
                and (scaling is None or r.get("scaling") == scaling)
                and (replicas is None or r.get("replicas") == replicas)
                and (clones is None or (r.get("tiers") or {}).get("clone") == clones)]

    rows = []
    base = match("singleton", "baseline")
    x, iv, _ = _pick(base, "max_throughput", "max_interval")
    rows.append(_row("clones", "singleton client, 1 clone (tps)", ref_pub, x, iv, ref, 1.0,
                     1.0 if x else None, None, "reference" if base else "not run"))
    for n in (2, 4):
        rs = match("singleton", "client tier", n)
        x, iv, _ = _pick(rs, "max_throughput", "max_interval")
        sp, sp_iv, _ = _pick(rs, "speedup", "speedup_interval")
        rows.append(_row("clones", f"singleton client, {n} clones (tps)", single[n], x, iv, ref,
                         single[n] / ref_pub, sp, sp_iv, "" if rs else "not run"))
    for n in (2, 4):
        rs = match("singleton", "service tier", n)
        x, iv, _ = _pick(rs, "max_throughput", "max_interval")
        sp, sp_iv, _ = _pick(rs, "speedup", "speedup_interval")
        rows.append(_row("clones", f"service tier ×{n}, singleton on 1 clone (tps)", None, x, iv, ref, 1.0,
                         sp, sp_iv, "" if rs else "not run", published_text="no change"))
    for n, published in sorted(PUBLISHED["request"].items()):
        rs = match("request", clones=n)
        x, iv, _ = _pick(rs, "max_throughput", "max_interval")
        r, r_iv, _ = _pick(rs, "vs_singleton", "vs_singleton_interval")
        rows.append(_row("clones", f"client per request, {n} clone{'s' if n > 1 else ''} (tps)", published,
                         x, iv, ref, published / ref_pub, r, r_iv,
                         "" if rs else "not run in this experiment"))
    rs = match("pool")
    x, iv, _ = _pick(rs, "max_throughput", "max_interval")
    r, r_iv, _ = _pick(rs, "vs_singleton", "vs_singleton_interval")
    size = next((p.get("pool_size") for p in rs if p.get("pool_size")), None)
    rows.append(_row("clones", "the eventual fix (tps)", PUBLISHED["fix"], x, iv, ref, PUBLISHED["fix"] / ref_pub,
                     r, r_iv, (f"this run: a pool of {size} clients on 1 clone" if size else "pool of clients")
                     if rs else "not run", published_text=f"about {PUBLISHED['fix']}"))
    return rows


def rows(summary: dict) -> list[dict]:
    """Every published figure beside this run's (summary.json "side_by_side")."""
    return _path_rows(summary) + _clone_rows(summary)


def fmt(x: float) -> str:
    """Three significant digits, thousands separated: 812, 7.40, 0.00911, 37,972."""
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def interval_text(iv) -> str:
    """[low – high] as a person reads it; an unbounded end is ∞."""
    if not iv:
        return ""
    return f"[{fmt(iv[0])} – {'∞' if iv[1] is None else fmt(iv[1])}]"


def value_text(x, iv=None) -> str:
    if x is None:
        return "—"
    return f"{fmt(x)} {interval_text(iv)}".strip()


def text_lines(side: list[dict]) -> list[str]:
    """The table for a terminal: figure, published, this run [interval], normalized both sides."""
    out = [f"  {'figure':48s} {'published':>12s} {'this run [95 % CI]':>30s}   normalized: published | this run"]
    for r in side:
        pub = r["published_text"] or value_text(r["published"])
        norm = (f"{fmt(r['published_normalized'])} | " + value_text(r["normalized"], r["normalized_interval"])
                if r["published_normalized"] is not None else "")
        out.append(f"  {r['figure']:48s} {pub:>12s} {value_text(r['measured'], r['interval']):>30s}   {norm}"
                   + (f"  ({r['note']})" if r["note"] and r["note"] != "reference" else ""))
    return out


# ------------------------------------------------------------------------------ emulated shape
def _profile(summary: dict) -> dict | None:
    p = (summary.get("experiment") or {}).get("profile")
    return p if isinstance(p, dict) else None


def emulation_lines(summary: dict) -> list[str]:
    """What the classic-system profile emulated (experiment.json "profile"), for a terminal."""
    p = _profile(summary)
    if not p:
        return []
    d = p["demands_cpu_us"]
    return [f"emulated by the {p['name']} profile (cli/testbed/fit/profile.py): CPU per request added to the "
            f"every path (segment ①) {d.get('SEG1', 0)} µs, JSP {d['SEG2']} µs, access bean {d['SEG3']} µs, session bean {d['SEG4']} µs, Invoker {d['INVOKER']} µs, "
            f"a client per request's build {p.get('request_cpu_us', 0)} µs on the clone (that run only); "
            f"front quota {p['quotas']['front']:g} core, clone quota {p['quotas']['clone']:g} core per replica; "
            f"service wait {p['wait_us'] / 1000:g} ms; pool of {p['pool_size']}",
            *(f"  profile: {n}" for n in p.get("notes") or [])]


EMULATION_INTRO = (
    "The segment demands of this run are emulated by the {name} profile (cli/testbed/fit/profile.py), "
    "from this stack's own costs measured first (cost probes): CPU added per request so that the "
    "front's cost of each path relative to the static page is the published one, a client per request's "
    "build as dear relative to a pooled call as the classic's, a CPU quota per tier for the classic system's "
    "one machine per tier, and the service wait that puts the singleton at {singleton}/{t1} of T(①); segment ① gets CPU "
    "too, where a later segment of this stack costs more than the shape allows. A tier under a quota does not "
    "cost what it did without one, so the segments, the wait, the request's build and the pool's Invoker CPU are "
    "chosen again during the run from what the quotas gave (the rows below). The singleton's "
    "lock is the real client's: no demand is locked.")


def _passes(retuned: dict) -> list[dict]:
    """A retune's measurements, oldest first: the one it was chosen from last, after the earlier
    one kept under "first" where there was one (a second probe or pass)."""
    return ([retuned["first"]] if retuned.get("first") else []) + [retuned]


def emulation(summary: dict) -> dict | None:
    """The report's statement that the segment demands are emulated, and how: {intro, added
    [(what, emulated, this stack's own front cost of the path)], settings [(setting, value)],
    notes}; None without a profile."""
    p = _profile(summary)
    if not p:
        return None
    d = p["demands_cpu_us"]
    front = {int(k): v for k, v in ((p.get("measured") or {}).get("front_s") or {}).items()}   # JSON keys are text
    added = [(what, f"{d.get(key, 0)} µs", f"{front[k] * 1e6:.0f} µs" if k in front else "—")
             for key, what, k in (("SEG1", "① every path, before its page (DEMAND_SEG1_CPU_US)", 1),
                                  ("SEG2", "② the JSP (DEMAND_SEG2_CPU_US)", 2),
                                  ("SEG3", "③ the access bean (DEMAND_SEG3_CPU_US)", 3),
                                  ("SEG4", "④ the session bean (DEMAND_SEG4_CPU_US)", 4),
                                  ("INVOKER", "⑤ the Invoker, front side (DEMAND_INVOKER_CPU_US)", 5))]
    own = (p.get("measured") or {}).get("clone_request_s")
    added.append(("⑤ a client per request's build from the WSDL, on the clone (DEMAND_CLONE_CPU_US, the request "
                  "run only)", f"{p.get('request_cpu_us', 0)} µs", f"{own * 1e6:.0f} µs (clone)" if own else "—"))
    settings = [("front quota (one machine: paths ①–④ and the pool are held by it)",
                 f"{p['quotas']['front']:g} core → T(①) {p['t1']:,.0f}/s"),
                ("clone quota per replica (a client per request builds its client on it)",
                 f"{p['quotas']['clone']:g} core"),
                ("service wait the singleton's lock holds (unlocked)",
                 f"{p['wait_us'] / 1000:g} ms → singleton {p['singleton']:.1f}/s"),
                *([("the wait chosen again before /seg/5 (path ① and a singleton probe under the quotas)",
                    f"T(①) {r['t1_measured']:,.0f}/s measured (planned {r['t1_planned']:,.0f}/s); the singleton's "
                    f"round trip {r['round_trip_s'] * 1e3:.1f} ms (probe {r['probe_rate']:.1f}/s with "
                    f"{r['probe_wait_us'] / 1000:g} ms)")] if (r := p.get("retuned")) else []),
                *([("the segments chosen again after path ① (the front's CPU on it under its quota)",
                    f"segment ① {r['f1_measured_s'] * 1e6:.0f} µs a request measured (planned "
                    f"{r['f1_planned_s'] * 1e6:.0f} µs); JSP, beans and Invoker above are set from it (planned "
                    + ", ".join(f"{r['planned'].get(k, 0)}" for k in ("SEG2", "SEG3", "SEG4", "INVOKER")) + " µs)")]
                  if (r := p.get("paths_retuned")) else []),
                *[(f"segment {CIRCLED[int(k)]}'s CPU chosen again (a first pass of path {CIRCLED[int(k)]} under the front's "
                   f"quota{', and a second' if r.get('first') else ''})",
                   f"{r['cpu_us']} µs ("
                   + "; ".join(f"{n} pass with {q['probe_cpu_us']} µs: {q['probe_front_s'] * 1e6:.0f} µs of front CPU a "
                               "request at its plateau" for n, q in zip(("first", "second"), _passes(r)))
                   + f"; path {CIRCLED[int(k)]} asks {r['target_s'] * 1e6:.0f} µs: path {CIRCLED[int(k) - 1]} as it ran, "
                   f"{r['previous_s'] * 1e6:.0f} µs, and the segment's share of path ①'s {r['f1_s'] * 1e6:.0f} µs)")
                  for k, r in sorted((p.get("segments_retuned") or {}).items()) if r],
                *([("a client per request's build chosen again (probes of that run under the clone's quota)",
                    f"{p['request_cpu_us']} µs ("
                    + "; ".join(f"probe with {q['probe_build_us']} µs: {q['probe_rate']:.0f}/s at "
                                f"{q['clone_per_request_s'] * 1e3:.2f} ms of clone CPU a call"
                                for q in _passes(r))
                    + f") → {r['target']:.0f}/s aimed at")]
                  if (r := p.get("request_retuned")) else []),
                *([("the pool run's Invoker CPU chosen again (a probe of that run under the front's quota)",
                    f"{r['invoker_us']} µs (probe {r['probe_invoker_us']} µs: {r['front_per_request_s'] * 1e6:.0f} µs "
                    f"of front CPU a request) → {r['target']:.0f}/s aimed at")] if (r := p.get("pool_retuned")) else []),
                ("pool of pre-built clients (the fix; large enough not to bind)", str(p["pool_size"])),
                ("T(①) chosen by", f"{p['binding']}, at {p['share']:.0%} of the host")]
    intro = EMULATION_INTRO.format(name=p["name"], singleton=published.num(PUB.singleton[1]),
                                   t1=published.num(PUB.paths[1]))
    return {"intro": intro, "added": added, "settings": settings,
            "notes": list(p.get("notes") or [])}
