"""What the socket server models study's samples mean (cli/testbed/studies/servers.py makes them):
one row per point with the median and spread over its runs, the three sweeps (clients, message
length, pool size) for every per-message work, the classic findings
(analysis/studies/servers_findings.py), figures and the report's sections."""
from __future__ import annotations

from analysis import html as h
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


def _range(d: dict) -> str:
    if not d or d["median"] is None:
        return '<span class="na">no valid run</span>'
    if d["n"] < 2:
        return h.esc(f"{d['median']:.3f}")
    return h.esc(f"{d['median']:.3f} ({d['min']:.3f}–{d['max']:.3f})")


def _n(v, digits: int = 0) -> str:
    return "#" + (h.num(None) if v is None else h.esc(f"{v:,.{digits}f}"))


def _table(tid: str, first: str, rows: list[tuple[str, dict]]) -> str:
    head = [first, "model", "M per connection", "runs", "completion s: median (range)", "messages/s",
            "p99 ms", "threads peak / mean", "busy peak / mean", "JVM threads peak", "RSS peak / mean MiB"]
    body = []
    for key, r in rows:
        model = MODEL_TEXT[r["model"]] + (f", pool {r['pool']}" if r["model"] == "pooled" else "")
        both = lambda a, b, d=0: "#" + (h.num(None) if a is None else h.esc(f"{a:,.0f} / {b:,.{d}f}"))  # noqa: E731
        body.append([h.esc(key), h.esc(model), _n(r["messages"]), _n(r["completion"]["n"]),
                     "#" + _range(r["completion"]), _n(r["messages_per_s"]),
                     _n(None if r["p99_us"] is None else r["p99_us"] / 1000, 2),
                     both(r["threads_peak"], r["threads_mean"]), both(r["busy_peak"], r["busy_mean"], 1),
                     _n(r["os_threads_peak"]), both(r["rss_peak_mib"], r["rss_mean_mib"])])
    return h.table(tid, head, body, "no points")


def _work_title(work: str) -> str:
    return "no per-message work" if work == "none" else f"per-message work {work}"


def sections(summary: dict, images: dict) -> list[str]:
    base = summary["base"]
    sw = sweeps(summary["rows"], base)
    out = [f"<h2>The published default point: {base['base_clients']} clients × {base['base_length']} bytes</h2>",
           "<p>Each model at the published client count and message length (the pooled model with the published "
           f"pool of {base['pool']}), for each per-message work. Threads are the model's own (acceptor, selector, "
           "workers, connection threads); busy = of those, handling a message at that moment; JVM threads = all "
           "threads of the server process (/proc), including the JVM's own.</p>"]
    for work, s in sw.items():
        rows = [(_work_title(work), s["default"][m]) for m in MODELS if m in s["default"]]
        out.append(_table(f"default-{work.replace(':', '')}", "work", rows))
    sets = [("clients", "Clients", "clients", "messages per second against the number of client connections (M "
             "per connection is raised at few clients, and lowered with work, so completion times of different "
             "client counts are not comparable; messages/s are, connection set-up included)",
             lambda s: [(str(n), m[k]) for n, m in s["clients"].items() for k in MODELS if k in m]),
            ("pools", "Pool size", "pool", f"the pooled model at {base['base_clients']} clients with pools of "
             "1 … 100 workers, beside thread-per-connection (dashed, with its range and the noise tolerance X, "
             "dotted) and the poller",
             lambda s: ([("—", s["thread"])] if s["thread"] else []) + [(str(r["pool"]), r) for r in s["pools"]]),
            ("lengths", "Message length", "bytes", f"completion time against the message length at "
             f"{base['base_clients']} clients",
             lambda s: [(str(n), m[k]) for n, m in s["lengths"].items() for k in MODELS if k in m])]
    for name, title, first, text, pick in sets:
        bars = "" if name == "clients" else ", bars = range of the runs"
        out.append(f"<h2>{h.esc(title)} sweep</h2><p>{h.esc(text[0].upper() + text[1:])}; medians{bars}.</p>")
        if name in images:
            out.append(images[name])
        for work, s in sw.items():
            out.append(f"<h3>{h.esc(_work_title(work).capitalize())}</h3>")
            out.append(_table(f"{name}-{work.replace(':', '')}", first, pick(s)))
    if "threads" in images:
        out += ["<h2>Threads and memory</h2><p>The model's threads (peak) and the server's peak RSS against the "
                "number of clients (no per-message work). What each model promises: thread-per-connection one "
                "thread per connection + the acceptor, the poller 1, the pooled model its pool + the selector; "
                "the figure is what this run measured.</p>", images["threads"]]
    return out
