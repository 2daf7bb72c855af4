"""The classic findings of the segment and clone-scaling experiments (docs/method.md, "The segment
law" and "Clone scaling and the client lifecycles"), judged on a run's summary: what each report
(and the terminal summary) opens with. The published figures are those of the WAS/Axis
diagnosis report, read from analysis/judge/published.toml (PUB; PUBLISHED is the same as a dict);
every verdict comes from this run's numbers by the rule stated in its `why`, and every finding
names the section of docs/method.md it rests on.

Rules (a finding whose runs are missing is "not measured"; one whose run has no maximum because the
load generator was the limit of every step is "not testable", with that cause):
- segment ⑤ dominates: T(1..5) <= T(1..4)/2, i.e. the SOAP call takes at least half of the
  whole path's demand (the published T(1..4) → T(1..5)).
- the JSP (②) costs next to nothing: read by the front's demand where the run sampled the front's,
  HAProxy's and the host's CPU (analysis/measure/front_demand.py), it holds when the JSP's cost on the front plus
  the reading's resolution stays within the noise band's share of path ①'s CPU per request on the
  host, and does not hold when path ②'s steps all read above path ①'s by more than that. Where it
  cannot tell, and without that reading: T(1..2) within the tolerance band of T(1..1) or above it
  (as published: T(1..2) just below T(1..1)); below the band it does not hold only where the drop passes the band by
  more than both paths' 95 % intervals combined (√(w₁² + w₂²) of T(1..1)): the drop's own 95 %
  interval lies wholly past the band. Else: not measurable at this resolution.
- the access bean (③) and the EJB-like bean (④) cost measurably, read by the front's demand where
  the run sampled the front's and HAProxy's CPU (analysis/measure/front_demand.py): holds when every step of path
  k reads above every step of path k-1 in the front's CPU per request over HAProxy's; does not hold
  when they overlap and the segment's cost plus the reading's resolution stays within the noise
  band's share of path k-1's CPU per request on the host: next to nothing, by the JSP's rule. Where
  it cannot tell (wider steps: a front under a quota, HAProxy queueing for it; a drift; a cost and
  resolution reaching past the band with overlapping steps) and without that reading: T(1..k) is below T(1..k-1) by
  more than the noise band and by more than both paths' 95 % intervals (T(k)'s interval is
  bounded), so T(k) is told from noise (the published T(③) and T(④)). The segment law resolves
  no finer than that band: a T(1..k) inside it with both paths' 95 % intervals narrower
  than the band does not hold (a cost that size would have shown); with wider intervals, or a
  T(1..k) above the band (drift between the two runs), the run cannot tell: not measurable at
  this resolution.
- cloning the service tier gives nothing: every service-tier speed-up < 1.25.
- cloning the client tier is near-linear: every client-tier speed-up >= 0.75 × replicas
  (the published singleton on 1, 2 and 4 clones).
- the singleton plateaus at low CPU: the baseline run's bottleneck hint is "software" (a
  plateau with host and every tier below the utilisation threshold) and its clone threads are
  BLOCKED on the singleton's monitor.
- a client per request is a multiple of the singleton: request vs singleton >= 1.5 on 1 clone
  (the published client per request against the singleton, on 1 clone).
- a pool of clients (the eventual fix) is several times the singleton: >= 2 (the published fix
  against the singleton).
The segment findings compare path maxima that each use the whole host: where another program
used a share of it during a path they rest on (analysis/judge/regime.py, "shared"), they are "not
testable on this host". The clone findings are about a lock, so they need runs in the lock's regime: where a run they
rest on was host-bound (analysis/judge/regime.py: host or load generator out of CPU at the plateau)
and the rule failed — or could only pass because of it (the service tier's flatness, the
singleton's baseline) — the verdict is "not testable on this host" with the cause and the fix,
never "does not hold". A host-bound run can only lower a throughput, so a speed-up or ratio that
reaches its bound despite it still holds (unless the baseline it is divided by was host-bound).
A "not testable on this host" verdict names "Scaling an experiment to the host" as its method.
"""
from __future__ import annotations

import math
from dataclasses import replace

from analysis.judge import published, regime
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURABLE, NOT_TESTABLE, Finding, missing
from analysis.judge.method import CLONES, SCALING, SEGMENT_LAW
from analysis.measure import clones

PUB = published.classic()           # the published figures (analysis/judge/published.toml, "classic")
PUBLISHED = PUB.as_dict()           # the same as a dict: {"paths": {1: 812, ...}, ...}
SINGLETON_MONITOR = "SingletonSoapClient"


def _verdict(ok: bool) -> str:
    return HOLDS if ok else DOES_NOT_HOLD


def _n(x, digits: int = 0) -> str:
    return "—" if x is None else f"{x:,.{digits}f}"


# ------------------------------------------------------------------------------ segments
def _unshared(f: Finding, summary: dict, series: str, ks: tuple[int, ...]) -> Finding:
    """f, or "not testable" when a path it rests on was measured on a shared host."""
    if f.verdict not in (HOLDS, DOES_NOT_HOLD, NOT_MEASURABLE):
        return f
    entries = {r["id"]: r for r in summary.get("runs", [])}
    for p in summary.get("paths", []):
        if p["series"] != series or p["path"] not in ks:
            continue
        for rid in p.get("run_ids") or []:
            entry = entries.get(rid) or {}
            cause = regime.shared(entry)
            if cause:
                return Finding(f.claim, f.measured, f.published, NOT_TESTABLE,
                               f"path {p['path']} ({rid}): {cause}: the segment law compares paths that each had "
                               f"the whole host ({f.why}); fix: {regime.SHARED_FIX}", f.key, method=SCALING)
            if entry.get("not_warm"):
                cold = entry["not_warm"]
                return Finding(f.claim, f.measured, f.published, NOT_TESTABLE,
                               f"path {p['path']} ({rid}): {cold['cause']}: its steps measured JVMs still warming "
                               f"({f.why}); fix: {cold['fix']}", f.key, method=SCALING)
    return f


def _unmeasured(claim: str, published_text: str, why: str, key: str, runs: list, *, method: str) -> Finding:
    """missing(...), or "not testable" where a run the finding needed has no maximum because none of
    its steps measured the stack: the load generator was their limit (analysis/generator.py)."""
    for r in runs:
        b = (r or {}).get("host_bound")
        if b and r.get("max_throughput") is None:
            return Finding(claim, "—", published_text, NOT_TESTABLE,
                           f"{r['id']}: {b['cause']}: no step of it measured the stack ({why}); fix: {b['fix']}",
                           key, method=SCALING)
    return missing(claim, published_text, why, key, method=method)


def _path_runs(summary: dict, series: str, ks: tuple[int, ...]) -> list[dict]:
    """The summary's run entries of paths ks of a series."""
    entries = {r["id"]: r for r in summary.get("runs", [])}
    return [entries[rid] for p in summary.get("paths", []) if p["series"] == series and p["path"] in ks
            for rid in p.get("run_ids") or [] if rid in entries]


def segment_findings(summary: dict) -> list[Finding]:
    return [f for name in {g["series"]: 0 for g in summary.get("segments", [])}
            for f in _segment_findings(summary, name)]


def _segment_findings(summary: dict, only: str) -> list[Finding]:
    series = {}
    for g in summary.get("segments", []):
        series.setdefault(g["series"], {})[g["segment"]] = g
    paths = {}
    for p in summary.get("paths", []):
        paths.setdefault(p["series"], {})[p["path"]] = p.get("max_throughput")
    out = []
    for name, segs in series.items():
        if name != only:
            continue
        t = paths.get(name, {})
        label = f" [{name}]" if len(series) > 1 else ""
        pub = PUB.paths
        if t.get(4) and t.get(5):
            share = 1 - t[5] / t[4]
            out.append(_unshared(Finding(
                f"segment ⑤, the SOAP call through the client tier, dominates{label}",
                f"T(1..4) {_n(t[4])}/s → T(1..5) {_n(t[5])}/s: ⑤ takes {share:.0%} of the path's demand",
                PUB.segment5_text(), _verdict(t[5] <= t[4] / 2),
                "holds when T(1..5) ≤ T(1..4)/2", "segment5_dominates", method=SEGMENT_LAW), summary, name, (4, 5)))
        else:
            out.append(_unmeasured(f"segment ⑤ dominates{label}", f"{published.num(pub[4])} → {published.num(pub[5])} tps",
                                   "paths 4 and 5 both need a maximum", "segment5_dominates",
                                   _path_runs(summary, name, (4, 5)), method=SEGMENT_LAW))
        intervals = {p["path"]: p.get("interval") for p in summary.get("paths", []) if p["series"] == name}
        s2 = segs.get(2)
        if s2 and s2.get("path_throughput") and s2.get("previous_path_throughput"):
            claim = f"the JSP (②) costs next to nothing{label}"
            f = _by_demand(_jsp_demand(claim, s2) if s2.get("front_demand") else None,
                           lambda: _jsp_cheap(claim, s2, intervals.get(1), intervals.get(2)))
            out.append(_unshared(f, summary, name, (1, 2)))
        for k, what in ((3, "the access bean (③)"), (4, "the EJB-like session bean (④)")):
            g = segs.get(k)
            if not g or g.get("path_throughput") is None or g.get("previous_path_throughput") is None:
                out.append(_unmeasured(f"{what} costs measurably{label}", PUB.segment_text(k),
                                       f"paths {k - 1} and {k} both need a maximum", f"segment{k}_measurable",
                                       _path_runs(summary, name, (k - 1, k)), method=SEGMENT_LAW))
                continue
            claim = f"{what} costs measurably{label}"
            f = _by_demand(_segment_demand(k, claim, g) if g.get("front_demand") else None,
                           lambda: _segment_cost(k, claim, g, intervals.get(k - 1), intervals.get(k)))
            out.append(_unshared(f, summary, name, (k - 1, k)))
    return out


def _by_demand(reading: Finding | str | None, by_maxima) -> Finding:
    """The front's demand's verdict where it could tell; else the path maxima's (by_maxima()),
    with why the demand could not (reading: a Finding, why not, or None without a reading)."""
    if isinstance(reading, Finding):
        return reading
    f = by_maxima()
    return f if reading is None else replace(
        f, why=f"{f.why}; judged by the path maxima, as the front's demand could not tell: {reading}")


def _half_width(x: float, iv) -> float | None:
    """Relative half-width of a 95 % interval around x."""
    return None if not iv or not x or iv[1] is None else (iv[1] - iv[0]) / 2 / x


def _jsp_cheap(claim: str, g: dict, prev_iv, cur_iv) -> Finding:
    """② costs next to nothing: T(1..2) not below T(1..1) by more than the noise band; a larger
    drop refutes it only where it passes the band by more than the two paths' intervals combined
    (the module rule): a JSP of the classic share (2 %) read at −3.4 % ± 2.2 % is not refuted."""
    tol, prev, cur = g["tolerance"], g["previous_path_throughput"], g["path_throughput"]
    shown = g["derived"] if g.get("derived") is not None else g["throughput"]
    widths = [_half_width(prev, prev_iv), _half_width(cur, cur_iv)]
    measured = (f"T(1..1) {_n(prev)} vs T(1..2) {_n(cur)}/s ({cur / prev - 1:+.1%}"
                + (f"; 95 % intervals ±{widths[0]:.1%}, ±{widths[1]:.1%}" if None not in widths else "") + ")"
                + (f"; T(2) {_n(shown)}/s" if shown else ""))
    pub, key = PUB.jsp_text(), "jsp_cheap"
    rule = f"holds when T(1..2) is within the ±{tol:.0%} noise band of T(1..1) or above it"
    if g["throughput"] is None:
        return Finding(claim, measured, pub, HOLDS, rule, key, method=SEGMENT_LAW)
    past = 1 - cur / prev - tol                          # how far the drop passes the band
    both = None if None in widths else math.hypot(*widths)
    if both is not None and past > both:
        return Finding(claim, measured, pub, DOES_NOT_HOLD,
                       f"{rule}; here T(1..2) is below the band by {past:.1%}, more than the paths' 95 % intervals "
                       f"combined (±{both:.1%})", key, method=SEGMENT_LAW)
    return Finding(claim, measured, pub, NOT_MEASURABLE,
                   "not measurable at this resolution: T(1..2) is below the band"
                   + (f" by {past:.1%}, within the paths' 95 % intervals combined (±{both:.1%})" if both is not None
                      else ", and the paths have no 95 % intervals")
                   + f" ({rule}; measure longer steps — a target_ci below the band — or repeat the experiment on "
                   "a quieter host)", key, method=SEGMENT_LAW)


def _host_band(d: dict, tol: float) -> float | None:
    """The ±tol noise band's share of path k − 1's CPU per request on the whole host, in µs, of a
    segment's demand reading d (None where the run did not sample the host): the throughput rule's
    band, on a host whose speed cancels. The JSP's "next to nothing" and ③/④'s refutation use it."""
    return tol * d["path_host_us"] if d.get("path_host_us") else None


def _at_most(d: dict) -> float:
    """A segment's cost on the front at the top of its reading's resolution, in µs."""
    return d["front_us"] + d["resolution_us"]


def _jsp_demand(claim: str, g: dict) -> Finding | str:
    """② costs next to nothing, read by the front's demand (analysis/measure/front_demand.py): the JSP's cost on
    the front, even at the top of the reading's resolution, within the noise band's share of path
    ①'s CPU per request on the whole host — the throughput rule's band, on a host whose speed
    cancels. Where it cannot tell, why (the path maxima judge then)."""
    d, tol = g["front_demand"], g["tolerance"]
    band = _host_band(d, tol)
    if band is None:
        return "the run did not sample the host's CPU"
    prev, cur = g["previous_path_throughput"], g["path_throughput"]
    measured = (f"the JSP costs the front {d['front_us']:+.1f} µs a request (resolution {d['resolution_us']:.1f} µs) "
                f"of path 1's {d['path_host_us']:.0f} µs on the host; T(1..1) {_n(prev)} vs T(1..2) {_n(cur)}/s "
                f"({cur / prev - 1:+.1%})")
    pub, key = PUB.jsp_text(), "jsp_cheap"
    rule = (f"holds when the JSP's cost on the front plus the reading's resolution stays within the ±{tol:.0%} noise "
            f"band's share of path 1's CPU per request on the host ({band:.0f} µs: the front's CPU per request over "
            "HAProxy's, step by step, cancels the host's speed); does not hold when path 2's steps all read above "
            "path 1's by more than that")
    if _at_most(d) <= band:
        return Finding(claim, measured, pub, HOLDS, rule, key, method=SEGMENT_LAW)
    if d["separated"] and d["front_us"] > band:
        return Finding(claim, measured, pub, DOES_NOT_HOLD, rule, key, method=SEGMENT_LAW)
    return (f"its cost and resolution ({d['front_us']:+.1f} ± {d['resolution_us']:.1f} µs) reach past the band "
            f"({band:.0f} µs) without separating the paths by more than it")


def _segment_demand(k: int, claim: str, g: dict) -> Finding | str:
    """③/④ cost measurably, read by the front's demand (analysis/measure/front_demand.py): the front's CPU per
    request in HAProxy's units, path k against path k − 1, every step of each; refuted only where
    the cost is next to nothing even at the top of the reading's resolution (the JSP's rule, turned
    round): a cost inside the resolution, but not bounded below the band, cannot tell. Where the
    reading cannot tell, why (the path maxima judge then: a front under a quota, HAProxy queueing)."""
    d, tol = g["front_demand"], g["tolerance"]
    pub, key = PUB.segment_text(k), f"segment{k}_measurable"
    band = _host_band(d, tol)
    cost = (f"segment {k} costs the front {d['front_us']:+.1f} µs a request (resolution {d['resolution_us']:.1f} µs; "
            f"path {k - 1}: {d['path_front_us']:.0f} µs; HAProxy {d['unit_us']:.0f} µs a request)")
    prev, cur = g["previous_path_throughput"], g["path_throughput"]
    measured = cost + f"; T(1..{k - 1}) {prev:,.0f} vs T(1..{k}) {cur:,.0f}/s ({cur / prev - 1:+.1%})"
    if d["separated"] and d.get("throughput"):
        measured = f"T({k}) {d['throughput']:,.0f}/s by demand: " + measured
    rule = (f"holds when every step of path {k} reads above every step of path {k - 1} in the front's CPU per "
            "request over HAProxy's (the same work on every path: the host's speed cancels); does not hold when "
            f"they overlap and the segment's cost plus the reading's resolution stays within the ±{tol:.0%} noise "
            f"band's share of path {k - 1}'s CPU per request on the host"
            + (f" ({band:.1f} µs)" if band is not None else ""))
    if d["separated"]:
        return Finding(claim, measured, pub, HOLDS, rule, key, method=SEGMENT_LAW)
    if d["reversed"]:
        return (f"every step of path {k} reads below every step of path {k - 1}, a drift (the JIT, the heap) "
                f"larger than the segment ({cost})")
    if band is None:
        return f"the paths' steps overlap and the run did not sample the host's CPU ({cost})"
    if _at_most(d) <= band:
        return Finding(claim, measured, pub, DOES_NOT_HOLD,
                       f"{rule}; here segment {k} costs the front {_at_most(d):.1f} µs at most: "
                       "this stack's own cost (--profile classic-system emulates the classic one)", key,
                       method=SEGMENT_LAW)
    if d["front_us"] >= d["resolution_us"]:
        return f"segment {k} costs the front more than the resolution, but the paths' steps overlap ({cost})"
    return (f"its cost and resolution ({d['front_us']:+.1f} ± {d['resolution_us']:.1f} µs) reach past the band "
            f"({band:.1f} µs) without separating the paths ({cost})")


def _segment_cost(k: int, claim: str, g: dict, prev_iv, cur_iv) -> Finding:
    """③/④ cost measurably, judged at the segment law's resolution (the module rule)."""
    tol, prev, cur = g["tolerance"], g["previous_path_throughput"], g["path_throughput"]
    pub, key = PUB.segment_text(k), f"segment{k}_measurable"
    rule = (f"holds when T(1..{k}) is below T(1..{k - 1}) by more than the ±{tol:.0%} noise band, the "
            "resolution of the segment law, and by more than their 95 % intervals (T(k)'s interval bounded)")
    widths = [_half_width(prev, prev_iv), _half_width(cur, cur_iv)]
    measured = (f"T(1..{k - 1}) {prev:,.0f} vs T(1..{k}) {cur:,.0f}/s ({cur / prev - 1:+.1%}"
                + (f"; 95 % intervals ±{widths[0]:.1%}, ±{widths[1]:.1%}" if None not in widths else "") + ")")
    iv = g.get("interval")
    if g["throughput"] is not None and (iv is None or iv[1] is not None):
        return Finding(claim, f"T({k}) {g['throughput']:,.0f}/s ({measured})", pub, HOLDS, rule, key,
                       method=SEGMENT_LAW)
    precise = None not in widths and max(widths) <= tol
    if precise and cur <= prev * (1 + tol):
        return Finding(claim, measured, pub, DOES_NOT_HOLD,
                       f"{rule}; here the difference is inside the band while both intervals are narrower than "
                       f"it: segment {k} costs less than {tol:.0%} of the path", key, method=SEGMENT_LAW)
    if g["throughput"] is not None:
        why = (f"T(1..{k}) is below T(1..{k - 1}) by more than the band but not by more than their 95 % intervals "
               f"(T({k}) {g['throughput']:,.0f}/s, its interval unbounded): the difference may be noise")
    elif cur > prev * (1 + tol):
        why = (f"T(1..{k}) is above T(1..{k - 1}) by more than the band: the two runs drifted apart by more than "
               "the segment costs")
    else:
        why = "the paths' 95 % intervals are wider than the band, so a cost inside it cannot be told from noise"
    return Finding(claim, measured, pub, NOT_MEASURABLE,
                   f"not measurable at this resolution: {why} ({rule}; measure longer steps "
                   "— a target_ci below the band — or repeat the experiment on a quieter host)", key,
                   method=SEGMENT_LAW)


# ------------------------------------------------------------------------------ clones
def _bound(runs: list[dict]) -> list[dict]:
    """The host-bound or not warm runs among runs (analysis/judge/regime.py), baseline first."""
    return sorted((r for r in runs if r and (r.get("host_bound") or r.get("not_warm"))),
                  key=lambda r: r.get("scaled_tier") != "baseline")


def _judged(claim: str, measured: str, published: str, ok: bool, rule: str, key: str,
            runs: list[dict], base: dict | None, what: str, bound_decides: bool = False) -> Finding:
    """The verdict of a clone finding with the regime check: a host-bound baseline (or, when
    bound_decides, any host-bound run) makes it untestable; so does a failure beside a
    host-bound run."""
    hot = _bound(runs + [base])
    base_hot = base is not None and (base.get("host_bound") or base.get("not_warm"))
    if hot and (base_hot or bound_decides or not ok):
        r = hot[0]
        if r.get("host_bound"):
            b = r["host_bound"]
            why = f"{b['cause']}: the machine, not {what}, set the maximum"
        else:
            b = r["not_warm"]
            why = f"{b['cause']}: its steps measured JVMs still warming, not only {what}"
        return Finding(claim, measured, published, NOT_TESTABLE, f"{r['id']}: {why} ({rule}); fix: {b['fix']}",
                       key, method=SCALING)
    return Finding(claim, measured, published, _verdict(ok), rule, key, method=CLONES)


def clone_findings(summary: dict) -> list[Finding]:
    runs = summary.get("runs", [])
    out = []
    base = next((r for r in runs if r.get("scaled_tier") == "baseline" and r.get("client_mode") == "singleton"), None)
    if base is None:   # no run scales a tier (a --target check: the baseline beside a pool): one of each
        base = next((r for r in runs if clones.is_baseline(r.get("config") or {})), None)
    svc = [r for r in runs if r.get("scaling") == "service tier" and r.get("speedup") is not None]
    cli = [r for r in runs if r.get("scaling") == "client tier" and r.get("speedup") is not None]

    def speedups(rs):
        return ", ".join(f"×{r['replicas']}: {r['speedup']:.2f}" for r in sorted(rs, key=lambda r: r["replicas"]))
    if svc:
        out.append(_judged("cloning the SOAP service tier gives nothing", speedups(svc), PUB.service_tier,
                           all(r["speedup"] < 1.25 for r in svc),
                           "holds when every service-tier speed-up is below 1.25", "service_tier_flat",
                           svc, base, "the singleton's lock", bound_decides=True))
    else:
        out.append(_unmeasured("cloning the SOAP service tier gives nothing", PUB.service_tier,
                               "no run scaled the service tier alone", "service_tier_flat",
                               [base] + [r for r in runs if r.get("scaling") == "service tier"], method=CLONES))
    if cli:
        short = [r for r in cli if r["speedup"] < 0.75 * r["replicas"]]
        out.append(_judged("cloning the client tier gives near-linear gains", speedups(cli),
                           PUB.client_tier_text(), not short,
                           "holds when every speed-up is ≥ 0.75 × the replicas", "client_tier_linear",
                           short, base, "the singleton clones' locks"))
    else:
        out.append(_unmeasured("cloning the client tier gives near-linear gains", PUB.client_tier_text(ratios=False),
                               "no run scaled the client tier alone", "client_tier_linear",
                               [base] + [r for r in runs if r.get("scaling") == "client tier"], method=CLONES))
    claim = "the singleton client caps throughput while CPU stays far from 100 % (threads BLOCKED on it)"
    if base is None or base.get("max_throughput") is None:
        out.append(_unmeasured(claim, PUB.singleton_text(), "no singleton baseline run",
                               "singleton_software_bottleneck", [base], method=CLONES))
    else:
        b = base["bottleneck"]
        blocked = sum(n for d in b.get("threaddumps", []) if d["tier"] == "clone"
                      for m, n in d.get("blocked_by_monitor", {}).items() if m.endswith(SINGLETON_MONITOR))
        dumps = any(d["tier"] == "clone" for d in b.get("threaddumps", []))
        host = b.get("host_utilisation")
        measured = (f"{_n(base['max_throughput'])}/s, host CPU {host:.0%} of capacity" if host is not None else
                    f"{_n(base['max_throughput'])}/s") + (f", {blocked} clone threads BLOCKED on {SINGLETON_MONITOR}"
                                                         if dumps else ", no thread dump")
        if not b.get("plateaued"):
            out.append(Finding(claim, measured, PUB.singleton_text(), NOT_MEASURABLE,
                               "the load did not reach a plateau (more users would have bought throughput)",
                               "singleton_software_bottleneck", method=CLONES))
        else:
            out.append(_judged(claim, measured, PUB.singleton_text(),
                               b["kind"] == "software" and (blocked > 0 or not dumps),
                               "holds when the plateau's bottleneck hint is 'software' (host and every tier "
                               "below the utilisation threshold) and the clone's threads wait on the singleton",
                               "singleton_software_bottleneck", [], base, "the singleton's lock"))
    for mode, ratio, pub, key in (("request", 1.5, PUB.request_text(), "request_multiple"),
                                  ("pool", 2.0, PUB.fix_text(), "pool_fix")):
        r = next((r for r in runs if r.get("client_mode") == mode and r.get("vs_singleton") is not None), None)
        claim = ("a client per request gives a multiple of the singleton's throughput on one clone" if mode == "request"
                 else "pre-built clients (a pool, the eventual fix) give several times the singleton's throughput")
        if r is None:
            out.append(_unmeasured(claim, pub, f"no {mode} run beside a singleton one", key,
                                   [base] + [x for x in runs if x.get("client_mode") == mode], method=CLONES))
        else:
            out.append(_judged(claim, f"{_n(r['max_throughput'])}/s, {r['vs_singleton']:.2f}× the singleton",
                               pub, r["vs_singleton"] >= ratio, f"holds when {mode} / singleton ≥ {ratio}",
                               key, [r], base, f"the {mode} lifecycle"))
    return out


# ------------------------------------------------------------------------------ calibration
def calibration_findings(summary: dict) -> list[Finding]:
    """Both laws checked on known demands; "not testable" where a path they rest on shared the host."""
    return [_unshared(f, summary, c.get("series"), (1, 2, 3, 4, 5))
            for c in summary.get("calibration", []) for f in _calibration_findings(c)]


def _calibration_findings(c: dict) -> list[Finding]:
    if c.get("regime_declared") == "serial":
        errs = [g["error"] for g in c["segments"] if g.get("expected") is not None and g["segment"] > 1
                and g.get("error") is not None]
        if not errs:
            return [missing("the serial-demand law gives back known serial demands", "",
                            "no segment with both a configured and a derived value", "calibration_serial",
                            method=SEGMENT_LAW)]
        worst = max(errs, key=abs)
        return [Finding("the serial-demand law gives back known serial demands",
                        f"derived vs configured T(k): worst {worst:+.1%} over {len(errs)} segment(s)", "",
                        _verdict(abs(worst) <= 0.15), "holds when every derived T(k) is within ±15 % of "
                        "the configured demand (the testbed's own check; no published figure)",
                        "calibration_serial", method=SEGMENT_LAW)]
    if c.get("regime_declared") == "parallel":
        return [Finding("demands on different resources follow the bottleneck law, not the serial sum",
                        c.get("verdict") or "—", "", _verdict(c.get("matched") == "bottleneck"),
                        "holds when the bottleneck prediction has the lower mean |error| over the paths",
                        "calibration_parallel", method=SEGMENT_LAW)]
    return []
