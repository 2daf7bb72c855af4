"""Where the time goes, from the traces of a run (docs/tracing.md): the second, independent
decomposition beside the segment law.

Input: runs/<id>/spans.json.gz (the runner copies each step's traces out of Zipkin). One
trace of /seg/5 is a chain of spans, each tier's SERVER span below its caller's CLIENT span
(HAProxy's span, derived from its log line, in between):

    locust CLIENT ─ haproxy web ─ front SERVER ─ (segments) ─ front CLIENT ─ haproxy clones ─
    clone SERVER ─ clone CLIENT ─ haproxy soap ─ axis | gsoap SERVER

Method (also printed in the report):
  own time of a tier   its SERVER span minus the CLIENT spans it makes (the calls it waits for);
  hop                  a CLIENT span minus the callee's SERVER span: both ends' HTTP stacks and
                       (de)serialization, the network, HAProxy and its queue; "of which HAProxy":
                       HAProxy's span minus the callee's (1 ms resolution: HAProxy logs ms);
  whole                Locust's client span = hop(locust→front) + own(front) + hop(front→clone)
                       + own(clone) + hop(clone→service) + own(service), exactly;
  segments ③ ④ ⑤       inside the front, from its method spans: ③ = the AccessBean's span minus
                       the session bean's (the facade and the container's dispatch), ④ = the
                       session bean's minus the Invoker's, ⑤ = the Invoker's (its demand and the
                       call through the client tier to the service);
  per step             the mean over the step's traces (at most the runner's per-step limit);
  beside the law       the span-derived time of segment k at low load against the segment law's
                       1/T(k) of the same experiment; also, as the law itself differences paths,
                       the front's span on path k minus its span on path k-1. Low load: a step
                       whose stack CPU (every tier, HAProxy and Locust; other programs on the
                       host left out) is at most LOW_LOAD of the host's cores — of any traced run
                       of the series whose requests pass segment k (tracing.toml's low-load run:
                       /seg/5, one user with think time, traced at 50 %); else the path-k run's
                       step with the fewest users, flagged "not low load" (with think time 0, one
                       user keeps a request in flight all the time: no low load on this host).
  parts                the disjoint parts of one request in its order — each hop, each tier's own
                       time, the clone's split into "waiting for a client" (its own timer: the
                       singleton's lock, a pooled client; span tag testbed.client_wait_us) and
                       "working" — add up to Locust's span exactly; per step each part's p50, p99 and
                       max over the step's traces;
  unaccounted          Locust's own response time of the request (the latency its statistics and
                       latency.hlog count; span tag locust.response_ms) less the sum of the parts:
                       reported, never spread over the parts (Locust's span also holds its own work
                       around the request, so it is usually a small negative);
  slow requests        the anatomy: the step's traced requests at or above its p99 from every
                       request (latency.hlog; without it the traced ones' p99), each part's mean and
                       share of their latency, beside the same for the requests between the 40th
                       and 60th percentile of the traced ones — where the slow ones' extra time went;
  Agreement rule: they agree when |span − 1/T(k)| ≤ AGREE × 1/T(k). They measure different
  things: 1/T(k) is the time segment k holds the bottleneck per request at saturation; a span
  is a latency at low load. A CPU-bound segment spreads over the cores at saturation
  (1/T(k) ≈ its CPU time ÷ the busy cores), so its span ≈ cores × 1/T(k); a segment that holds
  one lock (the singleton SOAP client) runs one at a time, so span ≈ 1/T(k); the ratio column
  shows which holds.
"""
from __future__ import annotations

import gzip
import json
import statistics
from pathlib import Path

SPANS_FILE = "spans.json.gz"
LOW_LOAD = 0.20      # the stack's CPU in the step, as a share of the host's cores, at most
AGREE = 0.20         # relative difference within which span and 1/T(k) agree
TIERS = ("front", "clone", "axis", "gsoap")
HOPS = ("locust→front", "front→clone", "clone→service")
SEGMENT_SPANS = {"3": ("accessbean.", "segmentservicebean."), "4": ("segmentservicebean.", "invoker.invoke"),
                 "5": ("invoker.invoke", None)}           # keys as in summary.json (text)
SEGMENT_NAMES = {"3": "③", "4": "④", "5": "⑤"}
RESPONSE_TAG = "locust.response_ms"      # Locust's span: its response time of the request (loadgen/trace_context.py)
WAIT_TAG = "testbed.client_wait_us"      # the clone's SERVER span: the call's wait for a SOAP client (ClientTime)


def load(run_dir: Path) -> dict | None:
    """The run's spans file, or None when the run was not traced."""
    path = Path(run_dir) / SPANS_FILE
    if not path.exists():
        return None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError, EOFError):
        return None


def _ms(span: dict | None) -> float | None:
    return None if span is None or span.get("duration") is None else span["duration"] / 1000.0


def _service(span: dict) -> str:
    return (span.get("localEndpoint") or {}).get("serviceName") or "?"


def decompose(spans: list[dict]) -> dict | None:
    """One trace -> {"total", "tiers": {tier: own ms}, "hops": {hop: ms}, "haproxy": {hop: ms},
    "segments": {k: ms}, "service": "axis"|"gsoap"|None, "spans": n}; None without a Locust root."""
    by_id = {s["id"]: s for s in spans if "id" in s}
    children: dict[str, list[dict]] = {}
    for s in spans:
        children.setdefault(s.get("parentId") or "", []).append(s)
    root = next((s for s in spans if _service(s) == "locust" and s.get("kind") == "CLIENT"), None)
    if root is None:
        return None

    def below(span: dict, service: str | None = None, kind: str | None = None) -> dict | None:
        """The first span under `span` (breadth first) of that service and kind."""
        todo = list(children.get(span["id"], []))
        while todo:
            s = todo.pop(0)
            if (service is None or _service(s) == service) and (kind is None or s.get("kind") == kind):
                return s
            todo.extend(children.get(s["id"], []))
        return None

    def callee(client: dict) -> tuple[dict | None, dict | None]:
        """(HAProxy's span, the tier's SERVER span) under a CLIENT span."""
        hp = below(client, "haproxy")
        server = next((s for s in _walk(children, client) if s.get("kind") == "SERVER"
                       and _service(s) not in ("haproxy", _service(client))), None)
        return hp, server

    out = {"total": _ms(root), "tiers": {}, "hops": {}, "haproxy": {}, "segments": {}, "service": None,
           "front": None, "spans": len(spans), "waits": {}, "client": _tag_ms(root, RESPONSE_TAG, 1.0)}
    client, hop_names = root, iter(HOPS)
    while client is not None:
        hop = next(hop_names, None)
        hp, server = callee(client)
        if hop is None or server is None:
            break
        tier = _service(server)
        out["hops"][hop] = _ms(client) - _ms(server)
        if hp is not None:
            out["haproxy"][hop] = _ms(hp) - _ms(server)
        nxt = below(server, tier, "CLIENT")
        out["tiers"][tier] = _ms(server) - (_ms(nxt) or 0.0)
        wait = _tag_ms(server, WAIT_TAG, 1e-3)
        if wait is not None:                 # the clone's own time: waiting for its client, then working
            out["waits"][tier] = min(wait, out["tiers"][tier])
        if tier in ("axis", "gsoap"):
            out["service"] = tier
        if tier == "front":
            out["segments"] = _segments(server, children)
            out["front"] = _ms(server)
        client = nxt
    return out


def _tag_ms(span: dict, key: str, to_ms: float) -> float | None:
    """A span's numeric tag in ms (to_ms: its unit in ms), None when absent or not a number."""
    try:
        return float((span.get("tags") or {})[key]) * to_ms
    except (KeyError, TypeError, ValueError):
        return None


def parts(d: dict) -> dict[str, float]:
    """One decomposed trace as its disjoint parts, in the request's order; they add up to Locust's
    span (d["total"]) exactly. The clone's own time is split where it reported its wait for a
    client (WAIT_TAG): "clone: waiting for a client" (the singleton's lock, a pooled client) and
    "clone: working"."""
    out: dict[str, float] = {}
    for hop, tier in zip(HOPS, ("front", "clone", None)):
        if hop in d["hops"]:
            out[f"hop {hop}"] = d["hops"][hop]
        if tier is None:
            if d.get("service") and d["service"] in d["tiers"]:
                out[d["service"]] = d["tiers"][d["service"]]
        elif tier in d["tiers"]:
            wait = d["waits"].get(tier)
            if wait is None:
                out[tier] = d["tiers"][tier]
            else:
                out[f"{tier}: waiting for a client"] = wait
                out[f"{tier}: working"] = d["tiers"][tier] - wait
    return out


def remainder(d: dict) -> float | None:
    """The client's measured latency (Locust's response time, RESPONSE_TAG) less the sum of the
    parts (Locust's span): what the spans do not account for; None without that tag."""
    return None if d.get("client") is None or d.get("total") is None else d["client"] - d["total"]


def _rank(values: list[float], q: float) -> float | None:
    """The nearest-rank q-quantile (0..1) of values, None when empty."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(q * len(v) + 0.5) - 1))]


def distribution(ds: list[dict]) -> dict[str, dict]:
    """Each part's p50, p99 and max over a step's decomposed traces (ms), and the remainder's."""
    out: dict[str, dict] = {}
    names = list(dict.fromkeys(k for d in ds for k in parts(d)))
    series = {k: [parts(d)[k] for d in ds if k in parts(d)] for k in names}
    series["remainder"] = [r for r in (remainder(d) for d in ds) if r is not None]
    for k, v in series.items():
        if v:
            out[k] = {"p50": _rank(v, 0.5), "p99": _rank(v, 0.99), "max": max(v)}
    return out


def anatomy(ds: list[dict], threshold_ms: float | None, source: str) -> dict | None:
    """Where the time of the slow requests went, beside the median ones: of a step's decomposed
    traces, those whose client latency (Locust's response time; its span where untagged) is at or
    above threshold_ms (the step's p99), and those between the 40th and 60th percentile of the
    traced latencies; per group the mean latency, each part's mean and share of it, and the
    remainder. None without a trace at or above the threshold."""
    def latency(d):
        return d["client"] if d.get("client") is not None else d["total"]
    ranked = sorted((d for d in ds if latency(d) is not None), key=latency)
    if not ranked:
        return None
    if threshold_ms is None:
        threshold_ms, source = _rank([latency(d) for d in ranked], 0.99), "the traced requests' p99"
    slow = [d for d in ranked if latency(d) >= threshold_ms]
    if not slow:
        return None
    lo, hi = int(0.4 * len(ranked)), max(int(0.4 * len(ranked)) + 1, int(0.6 * len(ranked)))
    middle = ranked[lo:hi]

    def group(g: list[dict]) -> dict:
        mean = statistics.fmean(latency(d) for d in g)
        names = list(dict.fromkeys(k for d in g for k in parts(d)))
        each = {k: statistics.fmean(parts(d).get(k, 0.0) for d in g) for k in names}
        rest = [r for r in (remainder(d) for d in g) if r is not None]
        return {"traces": len(g), "latency_ms": mean, "parts": each,
                "shares": {k: v / mean if mean else None for k, v in each.items()},
                "remainder_ms": statistics.fmean(rest) if rest else None,
                "largest": max(each, key=each.get) if each else None}
    return {"threshold_ms": threshold_ms, "threshold": source, "slow": group(slow), "median": group(middle)}


def _walk(children: dict[str, list[dict]], span: dict):
    todo = list(children.get(span["id"], []))
    while todo:
        s = todo.pop(0)
        yield s
        todo.extend(children.get(s["id"], []))


def _segments(front: dict, children: dict[str, list[dict]]) -> dict[int, float]:
    """Segments ③ ④ ⑤ inside the front from its method spans (see the module's method)."""
    spans = [s for s in _walk(children, front) if _service(s) == "front"]

    def first(prefix: str) -> dict | None:
        return next((s for s in spans if (s.get("name") or "").startswith(prefix)), None)
    out = {}
    for k, (outer, inner) in SEGMENT_SPANS.items():
        a = first(outer)
        if a is None:
            continue
        b = first(inner) if inner else None
        out[k] = _ms(a) - (_ms(b) or 0.0)
    return out


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def step_rows(run_id: str, data: dict, step_cpu: dict[int, float | None],
              step_p99: dict[int, float | None] | None = None) -> list[dict]:
    """Per step of one run: how many traces, the mean of each part over them (ms), each part's
    distribution and the anatomy of its slow requests. step_cpu: step index -> the stack's CPU as a
    share of the host's cores, for the low-load test; step_p99: step index -> the step's p99 from
    every request (latency.hlog), the anatomy's threshold."""
    rows = []
    for st in data.get("steps", []):
        ds = [d for d in (decompose(t) for t in st.get("traces", [])) if d]
        if not ds:
            rows.append({"run_id": run_id, "step": st.get("index"), "users": st.get("users"), "traces": 0,
                         "stack_share": step_cpu.get(st.get("index"))})
            continue
        keys = lambda field: sorted({k for p in ds for k in p[field]}, key=str)  # noqa: E731
        rows.append({
            "run_id": run_id, "step": st.get("index"), "users": st.get("users"), "traces": len(ds),
            "stack_share": step_cpu.get(st.get("index")),
            "service": next((p["service"] for p in ds if p["service"]), None),
            "total": _mean([p["total"] for p in ds]),
            "front": _mean([p["front"] for p in ds if p["front"] is not None]),
            "tiers": {k: _mean([p["tiers"][k] for p in ds if k in p["tiers"]]) for k in keys("tiers")},
            "hops": {k: _mean([p["hops"][k] for p in ds if k in p["hops"]]) for k in keys("hops")},
            "haproxy": {k: _mean([p["haproxy"][k] for p in ds if k in p["haproxy"]]) for k in keys("haproxy")},
            "segments": {k: _mean([p["segments"][k] for p in ds if k in p["segments"]])
                         for k in keys("segments")},
            "distribution": distribution(ds),
            "anatomy": anatomy(ds, (step_p99 or {}).get(st.get("index")),
                               "the step's p99 of every request (latency.hlog)")})
    return rows


def is_low(row: dict) -> bool:
    return row.get("stack_share") is not None and row["stack_share"] <= LOW_LOAD


def low_load(rows: list[dict]) -> tuple[dict | None, bool]:
    """(the step used for the comparison, whether it is at low load by the rule)."""
    traced = sorted((r for r in rows if r.get("traces")), key=lambda r: (r["users"] or 0, r["step"] or 0))
    low = [r for r in traced if is_low(r)]
    if low:
        return low[0], True
    return (traced[0], False) if traced else (None, False)


def segment_at_low_load(k: str, run: dict, runs: list[dict]) -> tuple[dict, dict | None, bool]:
    """(run, step, low load?) for segment k's span: the quietest low-load step, with segment k's
    spans, of the runs of run's series (the path-k run first); else run's own fewest-users step."""
    same = sorted((r for r in runs if r["series"] == run["series"]), key=lambda r: r is not run)
    lows = [(r, s) for r in same for s in r["steps"]
            if s.get("traces") and is_low(s) and (s.get("segments") or {}).get(k) is not None]
    if lows:
        r, s = min(lows, key=lambda rs: rs[1]["stack_share"])
        return r, s, True
    row, low = low_load(run["steps"])
    return run, row, low


def agreement(segment_rows: list[dict], runs: list[dict], cores: float | None) -> list[dict]:
    """Segments ③ ④ ⑤: span-derived time (low load) beside the law's 1/T(k), per series."""
    out = []
    for g in segment_rows:
        k = str(g.get("segment"))
        if k not in SEGMENT_SPANS:
            continue
        t = g.get("throughput") if g.get("throughput") is not None else g.get("derived")
        law_ms = 1000.0 / t if t else None
        # the run of path k of this series carries segment k's spans (the first path with them)
        run = next((r for r in runs if str(r["path"]) == k and r["series"] == g.get("series")), None)
        if run is None:
            continue
        at, row, low = segment_at_low_load(k, run, runs)
        span_ms = (row or {}).get("segments", {}).get(k) if row else None
        # the other span-derived figure: the front's span on path k minus on path k-1, each at its
        # own run's quietest step (as the law differences the path runs)
        prev = next((r for r in runs if str(r["path"]) == str(int(k) - 1) and r["series"] == run["series"]), None)
        own_row, prev_row = low_load(run["steps"])[0], (low_load(prev["steps"])[0] if prev else None)
        diff_ms = (own_row["front"] - prev_row["front"] if own_row and prev_row and own_row.get("front") is not None
                   and prev_row.get("front") is not None else None)
        ratio = span_ms / law_ms if span_ms is not None and law_ms else None
        out.append({"series": g.get("series"), "segment": k, "run_id": at["run_id"],
                    "step_users": (row or {}).get("users"), "low_load": low,
                    "stack_share": (row or {}).get("stack_share"), "traces": (row or {}).get("traces"),
                    "span_ms": span_ms, "diff_ms": diff_ms, "law_ms": law_ms,
                    "within_noise": g.get("throughput") is None,
                    "ratio": ratio, "agree": None if ratio is None else abs(ratio - 1.0) <= AGREE,
                    "cores": cores, "why": why(ratio, cores, g.get("throughput") is None)})
    return out


def why(ratio: float | None, cores: float | None, within_noise: bool) -> str:
    """A sentence on what the ratio span ÷ 1/T(k) says (the module's method)."""
    if ratio is None:
        return "no traced step of this path, or T(k) not measurable"
    note = " (T(k) inside the law's noise band: 1/T(k) is uncertain)" if within_noise else ""
    if abs(ratio - 1.0) <= AGREE:
        return "agree: the segment is served one request at a time (a lock), or neither figure has parallelism" + note
    if cores and abs(ratio - cores) <= AGREE * cores:
        return (f"span ≈ {cores:g} × 1/T(k): CPU work that the {cores:g} cores run in parallel at saturation "
                "(1/T(k) = CPU time ÷ cores; the span is the CPU time of one request)" + note)
    if ratio < 1.0:
        return ("span shorter than 1/T(k): at saturation the segment costs more per request than alone "
                "(contention, queueing in the segment, the load generator's share of the CPU)" + note)
    return (f"span ÷ 1/T(k) = {ratio:.2f}, beyond the {cores or '?'} cores: the span includes waiting that holds "
            "no shared resource at saturation (network, I/O, sleeps), which the law does not see" + note)


def summarize(result, all_steps: dict, summary: dict) -> dict | None:
    """summary.json "traces": per run and step, and the agreement with the segment law; None
    when no run of the experiment was traced."""
    runs = []
    cores = ((summary.get("experiment") or {}).get("host") or {}).get("cores")
    for run in result.runs:
        data = load(run.dir)
        if data is None:
            continue
        share = {s.index: (sum(s.cpu.values()) / (100.0 * cores) if s.cpu and cores else None)
                 for s in all_steps.get(run.id, [])}
        p99 = {s.index: (s.latency or {}).get("p99_ms") for s in all_steps.get(run.id, [])}
        series = " ".join(f"{'n=' if k == 'n' else ''}{run.meta[k]}" for k in ("backend", "op", "n")
                          if run.meta.get(k) not in (None, ""))
        runs.append({"run_id": run.id, "path": run.meta.get("path"), "series": series or "all",
                     "trace_sample": data.get("trace_sample"), "error": data.get("error"),
                     "steps": step_rows(run.id, data, share, p99)})
    if not runs:
        return None
    return {"runs": runs, "agreement": agreement(summary.get("segments") or [], runs, cores),
            "rule": {"low_load": LOW_LOAD, "agree": AGREE}}


def anatomy_lines(a: dict | None) -> list[str]:
    """The anatomy of a step's slow requests beside its median ones, as indented text lines."""
    if not a:
        return []
    out = []
    for name, label in (("slow", f"slow (≥ {a['threshold_ms']:.1f} ms, {a['threshold']})"), ("median", "median")):
        g = a[name]
        top = sorted(g["parts"].items(), key=lambda kv: -kv[1])
        shown = ", ".join(f"{k} {v:.2f} ms ({g['shares'][k]:.0%})" for k, v in top if g["shares"].get(k) is not None)
        rest = "" if g["remainder_ms"] is None else f"; unaccounted {g['remainder_ms']:+.3f} ms"
        out.append(f"    {label}: {g['traces']} trace(s), {g['latency_ms']:.2f} ms: {shown}{rest}")
    return out


def text(t: dict) -> str:
    """The decomposition as plain text (./testbed traces RESULT)."""
    lines = []
    for run in t["runs"]:
        lines.append(f"run {run['run_id']} (/seg/{run['path']}, {run['series']}, traced share "
                     f"{run['trace_sample']}){' — ' + run['error'] if run.get('error') else ''}")
        for r in run["steps"]:
            if not r.get("traces"):
                lines.append(f"  step {r['step']} ({r['users']} users): no trace")
                continue
            tiers = ", ".join(f"{k} {v:.2f}" for k, v in r["tiers"].items() if v is not None)
            hops = ", ".join(f"{h} {r['hops'][h]:.2f}" + (f" (HAProxy {r['haproxy'][h]:.0f})"
                                                          if r["haproxy"].get(h) is not None else "")
                             for h in HOPS if r["hops"].get(h) is not None)
            segs = ", ".join(f"{SEGMENT_NAMES[k]} {v:.2f}" for k, v in sorted(r["segments"].items()))
            host = f", stack CPU {r['stack_share']:.0%} of the host" if r.get("stack_share") is not None else ""
            lines.append(f"  step {r['step']} ({r['users']} users{host}): {r['traces']} traces, whole "
                         f"{r['total']:.2f} ms; own: {tiers}; hops: {hops}" + (f"; segments: {segs}" if segs else ""))
            lines += anatomy_lines(r.get("anatomy"))
    if t.get("agreement"):
        lines.append(f"beside the segment law (agree: within ±{t['rule']['agree']:.0%} of 1/T(k); "
                     f"low load: the stack's CPU ≤ {t['rule']['low_load']:.0%} of the host):")
        for a in t["agreement"]:
            sp = "—" if a["span_ms"] is None else f"{a['span_ms']:.3f} ms"
            law = "—" if a["law_ms"] is None else f"{a['law_ms']:.3f} ms"
            ratio = "—" if a["ratio"] is None else f"{a['ratio']:.2f}"
            diff = "—" if a.get("diff_ms") is None else f"{a['diff_ms']:.3f} ms"
            lines.append(f"  {a['series']} segment {a['segment']}: spans {sp} (front path k − k−1: {diff}) "
                         f"at {a['step_users']} users"
                         f"{'' if a['low_load'] else ' (not low load)'}, 1/T(k) {law}, ratio {ratio}, "
                         f"{'agree' if a['agree'] else 'differ' if a['agree'] is False else '—'}")
    return "\n".join(lines)
