"""What the socket server models study's samples mean (cli/testbed/studies/servers.py makes them):
one row per point with the median and spread over its runs, the three sweeps (clients, message
length, pool size) for every per-message work, the classic findings
(analysis/studies/servers_findings.py), figures and the report's sections."""
from __future__ import annotations

from analysis import stats
from analysis.studies import servers_findings as sf

MODELS = ("thread", "poller", "pooled")
MODEL_TEXT = {"thread": "thread per connection", "poller": "single-thread poller",
              "pooled": "poller + worker pool"}

METHOD = """
Each measurement starts two fresh JVMs on loopback (java -jar studies/servers/target/servers.jar):
the server, running one model, and the client, which opens N connections and sends M request/reply
messages of L bytes on each, one at a time per connection. The client is one thread with one NIO
Selector over all connections, so its own thread count does not change with N. Every reply is
checked byte for byte against its request (the payload carries the connection and message number).

Warm-up: the client first sends warmup_messages over up to 20 connections and closes them, the
server answering without its per-message work (the warm-up is for the JIT of the I/O path); the
study then resets the server's counters and turns its work on ("reset" on its stdin) and tells
the client to go. The
measured run's completion time runs from the first connect to the last verified reply (connection
set-up included); messages/s = N × M / completion time; a message's latency runs from writing its
request to reading its reply (p99 over all N × M messages of the run).

Server figures come from the server's own JSON, printed when its stdin closes: threads of the model
(acceptor, selector, workers, connection threads) with an exact peak and a mean sampled every
sample_ms while a connection is open; "busy" = of those, threads handling a message at that
moment; RSS from /proc/self/status (peak = VmHWM, reset at the window's start; mean sampled). A
measurement is invalid when a reply does not match, or the server's message count differs from
the client's, or a pooled connection was ever handled by two workers at once.

Models: thread = blocking ServerSocket, acceptor + one thread per connection; poller = one thread
running a Selector that accepts, reads, works and writes; pooled = a Selector thread that clears a
ready connection's interest and hands it to a fixed pool of workers (prestarted), which re-arm the
interest and wake the selector when done. Per-message work: none, cpu:<µs> (burn the handling
thread's CPU time) or wait:<µs> (park the handling thread).

Every point runs `repeat` times, in rounds (all points once, then again); tables give the median
and the range. A point whose client passes its deadline is stopped and marked "timeout". Limits:
the run raises its soft open-files and processes limits for the largest point (see Settings,
environment: nofile, nproc). The machine is shared; compare models within one run.
"""


def _rows(experiment: dict, samples: list[dict]) -> list[dict]:
    ok: dict[str, list[dict]] = {}
    for s in samples:
        if s.get("status") == "ok" and isinstance(s.get("data"), dict):
            ok.setdefault(s["point"], []).append(s["data"])
    rows = []
    for p in experiment.get("points", []):
        data = ok.get(p["id"], [])

        def med(get):
            d = stats.describe([get(x) for x in data if get(x) is not None])
            return d["median"]
        srv = lambda k: (lambda x: (x.get("server") or {}).get(k))   # noqa: E731
        rows.append({"id": p["id"], "label": p["label"], **p["params"],
                     "completion": stats.describe([x["completion_s"] for x in data if x.get("completion_s")]),
                     "messages_per_s": med(lambda x: x.get("messages_per_s")),
                     "p50_us": med(lambda x: x.get("latency_p50_us")),
                     "p99_us": med(lambda x: x.get("latency_p99_us")),
                     "threads_peak": med(srv("threads_peak")), "threads_mean": med(srv("threads_mean")),
                     "busy_peak": med(srv("busy_peak")), "busy_mean": med(srv("busy_mean")),
                     "os_threads_peak": med(srv("os_threads_peak")),
                     "rss_peak_mib": _mib(med(srv("rss_peak_kb"))), "rss_mean_mib": _mib(med(srv("rss_mean_kb")))})
    return rows


def _mib(kb):
    return None if kb is None else kb / 1024


def sweeps(rows: list[dict], params: dict) -> dict:
    """work -> {"clients": {n: {model: row}}, "lengths": {L: {model: row}}, "pools": [row],
    "thread": row at the pool sweep's point, "default": {model: row}}."""
    out = {}
    pool, n0, l0 = params["pool"], params["base_clients"], params["base_length"]
    for work in params["work"]:
        mine = [r for r in rows if r["work"] == work]
        std = [r for r in mine if r["model"] != "pooled" or r["pool"] == pool]
        by_n, by_l = {}, {}
        for r in std:
            if r["length"] == l0:
                by_n.setdefault(r["clients"], {})[r["model"]] = r
            if r["clients"] == n0:
                by_l.setdefault(r["length"], {})[r["model"]] = r
        pools = sorted((r for r in mine if r["model"] == "pooled" and r["clients"] == n0 and r["length"] == l0
                        and r["pool"] != pool), key=lambda r: r["pool"])
        thread = next((r for r in mine if r["model"] == "thread" and r["clients"] == n0 and r["length"] == l0), None)
        out[work] = {"clients": dict(sorted(by_n.items())), "lengths": dict(sorted(by_l.items())), "pools": pools,
                     "thread": thread, "default": by_n.get(n0, {})}
    return out


def summarize(experiment: dict, samples: list[dict]) -> dict:
    params = experiment["params"]
    rows = _rows(experiment, samples)
    sw = sweeps(rows, params)
    findings = []
    for work, s in sw.items():
        n0, l0 = params["base_clients"], params["base_length"]
        default_m = next((r["messages"] for r in s["default"].values()), None)
        findings += [sf.pool_matches(work, s["thread"], s["pools"], n0),
                     sf.poller_best_at_one(work, s["clients"]),
                     sf.length_barely_matters(work, s["lengths"]),
                     sf.default_point(work, s["default"], params["pool"], n0, default_m, l0)]
    return {"rows": rows, "base": {k: params[k] for k in ("pool", "base_clients", "base_length", "work")},
            "findings": [f.to_json() for f in findings]}


def figures(summary: dict) -> dict:
    from analysis.studies import servers_figures
    sw = sweeps(summary["rows"], {**summary["base"]})
    return servers_figures.all_figures(sw, summary["base"])


def _work_title(work: str) -> str:
    return "no per-message work" if work == "none" else f"per-message work {work}"


def view(summary: dict) -> dict:
    """The report's tables (analysis/render/templates/studies/servers.html.j2): per sweep, per work, the id of
    its table and its rows (the first column's text, the point's row)."""
    base = summary["base"]
    sw = sweeps(summary["rows"], base)

    def tables(name: str, pick) -> list[dict]:
        return [{"title": _work_title(work).capitalize(), "id": f"{name}-{work.replace(':', '')}",
                 "rows": pick(work, s)} for work, s in sw.items()]
    return {"base": base, "models": MODEL_TEXT,
            "default": tables("default", lambda w, s: [(_work_title(w), s["default"][m])
                                                       for m in MODELS if m in s["default"]]),
            "clients": tables("clients", lambda w, s: [(str(n), m[k]) for n, m in s["clients"].items()
                                                       for k in MODELS if k in m]),
            "pools": tables("pools", lambda w, s: ([("—", s["thread"])] if s["thread"] else [])
                            + [(str(r["pool"]), r) for r in s["pools"]]),
            "lengths": tables("lengths", lambda w, s: [(str(n), m[k]) for n, m in s["lengths"].items()
                                                       for k in MODELS if k in m])}
