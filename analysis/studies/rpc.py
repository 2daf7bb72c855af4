"""What the RPC latency study's samples mean (docs/method.md, "RPC latency by transport";
docs/rpc.md): the report opens with the classic findings (rpc_findings.py), then response time by transport and size,
the speed-up over TCP, where a call's time goes, the raw floor, the RPC layer's cost over it,
CPU per call and while idle, and every point in detail."""
from __future__ import annotations

from matplotlib.figure import Figure

from analysis.judge import published
from analysis.studies import rpc_findings
from analysis.studies import rpc_table as t

METHOD = """
Programs (studies/rpc, built by the root CMake build; docs/rpc.md):
  rpc-onc-client / rpc-onc-server      ONC RPC from rpc_bench.x (rpcgen at build time, libtirpc):
                                       procedure 0 (null) and ECHO of an opaque<> argument, echoed back.
                                       Transports made by hand: a socket bound to 127.0.0.1:0 or to a
                                       path, svc_vc_create on it, svc_register(..., protocol 0) -- no
                                       rpcbind; the client connects the socket itself and calls
                                       clnt_vc_create on it (the same code for TCP and AF_LOCAL).
  rpc-gsoap-client / rpc-gsoap-server  the testbed's gSOAP proxy and service (services/gsoap: generated
                                       from the contract WSDL, tb::Service's operations and hooks,
                                       serve_request): ping (null) and sendBytes (count + checksum back).
                                       Transports through gSOAP's callbacks only: tcp is gSOAP's own;
                                       unix = soap->fopen connecting a Unix socket; shm = fopen/fsend/
                                       frecv/fclose/fpoll over two shared-memory rings.
  rpc-raw-pingpong                     the same bytes there and back with no RPC layer: the floor.
Shared-memory transport: two single-producer/single-consumer rings (128 KiB each way) in a memfd
the server creates and hands over a Unix socket (SCM_RIGHTS); the socket stays open as the peers'
liveness signal. "spin" waits by polling the ring (a core at 100 % while waiting); "futex" sleeps in
FUTEX_WAIT and the writer wakes it only when it said it sleeps.
Each measurement: the client starts its server (pinned to the second allowed CPU before exec, killed
if the client dies), pins itself to the first, makes the warm-up calls, then the timed calls; every
reply is checked (echo byte for byte; count and FNV-1a checksum; raw echo), each call's bytes differ.
Then the connection idles for idle_ms while the server's CPU clock and /proc/PID/schedstat are read.
Per call: total = the client's call, clock_gettime(CLOCK_MONOTONIC) around it. client = total minus
the time inside the transport's send/receive (gSOAP: the fsend/frecv callbacks; ONC: libtirpc's
read/write/poll, timed by interposing those functions). server = from the first receive of a request
to its reply handed to the transport, minus the time inside its send/receive. transport = total -
client - server (medians). The timestamps cost ~40 ns per send/receive.
Across rounds: median of the rounds' medians, median of their p99s; spread = (max - min) / median of
the round medians. Raw ping-pong: half round trip = round trip / 2 (the classic "raw latency").
Speed-up = TCP's median / the lighter transport's median, same system and size.
The host is shared: other work competes for both CPUs; the load average is recorded per measurement.
"""

SIZE_ORDER = [None, 0, 4, 64, 256, 1024, 2048, 4096]
COLOURS = {"tcp": "C0", "unix": "C1", "shm-spin": "C2", "shm-futex": "C3"}


def summarize(experiment: dict, samples: list[dict]) -> dict:
    rs = t.rows(samples)
    sp = t.speedups(rs)
    return {"rows": rs, "speedups": sp, "rpc_layer": t.rpc_layer(rs),
            "findings": [f.to_json() for f in rpc_findings.all_findings(rs, sp)]}


def _sizes(rs: list[dict], system: str | None = None) -> list:
    """The sizes measured (by the RPC systems unless a system is named), null first."""
    have = {r["size"] for r in rs if (r["system"] != "raw" if system is None else r["system"] == system)}
    return [s for s in SIZE_ORDER if s in have] + sorted(s for s in have if s not in SIZE_ORDER and s is not None)


def _configs(rs: list[dict], rpc_only: bool = True) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r["system"], r["transport"]) for r in rs if not rpc_only or r["system"] != "raw"))


def _x(sizes: list) -> dict:
    return {s: i for i, s in enumerate(sizes)}


def latency_figure(rs: list[dict]) -> Figure:
    systems = [s for s in ("onc", "gsoap") if any(r["system"] == s for r in rs)]
    fig = Figure(figsize=(6 * max(1, len(systems)), 4.5), layout="constrained")
    sizes = _sizes(rs)
    xs = _x(sizes)
    for i, system in enumerate(systems or ["onc"]):
        ax = fig.add_subplot(1, max(1, len(systems)), i + 1)
        for transport in t.TRANSPORTS:
            pts = sorted((xs[r["size"]], r["median_us"]) for r in rs if (r["system"], r["transport"]) == (system, transport))
            if pts:
                ax.plot(*zip(*pts), "o-", color=COLOURS[transport], label=t.TRANSPORTS[transport])
            # the floor: the raw round trip of the same bytes; under the null call, of 4 bytes
            raw = sorted((xs[None] if r["size"] == t.RAW_CLASSIC_SIZE and None in xs and t.RAW_CLASSIC_SIZE not in xs
                          else xs[r["size"]], 2 * r["half_rtt_us"]) for r in rs
                         if r["system"] == "raw" and r["transport"] == transport
                         and (r["size"] in xs or r["size"] == t.RAW_CLASSIC_SIZE))
            if raw and pts:
                ax.plot(*zip(*raw), "--", color=COLOURS[transport], alpha=0.6, label=f"raw round trip, {t.TRANSPORTS[transport]}")
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([t.size_text(s) for s in sizes], rotation=30)
        ax.set_yscale("log")
        ax.set_xlabel("argument size")
        ax.set_ylabel("response time, median (µs, log)")
        ax.set_title(f"{t.SYSTEMS.get(system, system)}: call vs raw round trip")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize="x-small")
    return fig


def speedup_figure(rs: list[dict], sp: list[dict]) -> Figure:
    fig = Figure(figsize=(7.5, 4.5), layout="constrained")
    ax = fig.add_subplot()
    sizes = _sizes(rs)
    xs = _x(sizes)
    for n, (system, transport) in enumerate((s, x) for s, x in _configs(rs) if x != "tcp"):
        pts = sorted((xs[p["size"]], p["speedup"]) for p in sp if (p["system"], p["transport"]) == (system, transport)
                     and p["speedup"] is not None)
        if pts:
            ax.plot(*zip(*pts), "o-" if system == "gsoap" else "s--", color=COLOURS[transport],
                    label=t.config_text(system, transport))
    ax.axhline(1, color="gray", lw=1)
    if None in xs and 4096 in xs:
        sp = published.rpc().speedup
        ax.plot([xs[None], xs[4096]], [sp["small"], sp[4096]], "k*", ms=10,
                label=f"published ({published.num(sp['small'])}× small, {published.num(sp[4096])}× at 4 KiB)")
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([t.size_text(s) for s in sizes], rotation=30)
    ax.set_yscale("log")
    ax.set_ylabel("speed-up over TCP (TCP median / median, log)")
    ax.set_title("Speed-up of the lighter transports over TCP")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize="x-small")
    return fig


def split_figure(rs: list[dict]) -> Figure:
    """Stacked client / transport / server per configuration; the null call and 4 KiB side by
    side, each on its own linear scale (a stack on a log axis would misstate the shares)."""
    panels = [(size, [r for r in rs if r["system"] != "raw" and r["size"] == size and r.get("transport_us") is not None])
              for size in (None, 4096)]
    panels = [(size, bars) for size, bars in panels if bars] or [(None, [])]
    height = 0.45 * max(4, max(len(b) for _, b in panels)) + 1.2
    fig = Figure(figsize=(11, height), layout="constrained")
    for i, (size, bars) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        left = [0.0] * len(bars)
        for key, name, colour in (("client_us", "client", "C0"), ("transport_us", "transport", "C7"),
                                  ("server_us", "server", "C1")):
            vals = [max(0.0, r.get(key) or 0.0) for r in bars]
            ax.barh(range(len(bars)), vals, left=left, color=colour, label=name)
            left = [a + b for a, b in zip(left, vals)]
        ax.set_yticks(range(len(bars)))
        ax.set_yticklabels([t.config_text(r["system"], r["transport"]) for r in bars], fontsize="small")
        ax.invert_yaxis()
        ax.set_xlabel("µs per call (medians)")
        ax.set_title(f"{t.size_text(size)}: where the time goes")
        ax.grid(axis="x", alpha=0.3)
        if i == 0:
            ax.legend(fontsize="small")
        if not bars:
            ax.text(0.5, 0.5, "no call with the server's times", transform=ax.transAxes, ha="center")
    return fig


def figures(summary: dict) -> dict[str, Figure]:
    rs = summary["rows"]
    return {"latency": latency_figure(rs), "speedup": speedup_figure(rs, summary["speedups"]),
            "split": split_figure(rs)}


def view(summary: dict) -> dict:
    """The report's tables (analysis/render/templates/studies/rpc.html.j2), rows picked from the summary."""
    rs, sp = summary["rows"], summary["speedups"]
    env = summary["experiment"].get("environment") or {}
    sizes = _sizes(rs)
    raws = [r for r in rs if r["system"] == "raw"]
    raw_sizes = _sizes(raws, "raw")
    loads = [r["load_avg"] for r in rs if r.get("load_avg") is not None]
    cpu = []
    for system, transport in _configs(rs, rpc_only=False):
        r = t.find(rs, system, transport, None) or t.find(rs, system, transport, t.RAW_CLASSIC_SIZE)
        if r:
            cpu.append({**r, "config": t.config_text(system, transport), "size_text": t.size_text(r["size"])})
    return {"sizes": [t.size_text(s) for s in sizes],
            "latency": [(t.config_text(s, x), [t.find(rs, s, x, size) for size in sizes]) for s, x in _configs(rs)],
            "speedup": [(t.config_text(s, x), [t.speedup(sp, s, x, size) for size in sizes])
                        for s, x in _configs(rs) if x != "tcp"],
            "split": [{**r, "config": t.config_text(r["system"], r["transport"]), "size_text": t.size_text(r["size"]),
                       "share": r["transport_us"] / r["median_us"] if r["median_us"] else None}
                      for r in rs if r["system"] != "raw" and r.get("transport_us") is not None],
            "raw_sizes": [t.size_text(s) for s in raw_sizes],
            "raw": [(t.TRANSPORTS[x], [(t.find(raws, "raw", x, s) or {}).get("half_rtt_us") for s in raw_sizes])
                    for x in dict.fromkeys(r["transport"] for r in raws)],
            "layers": [{**x, "config": t.config_text(x["system"], x["transport"])} for x in summary["rpc_layer"]],
            "cpu": cpu, "pinning": env.get("pinning", "not recorded"), "cpus_allowed": env.get("cpus allowed", "?"),
            "calls": max((r["calls"] for r in rs), default=0), "loads": (min(loads), max(loads)) if loads else None}
