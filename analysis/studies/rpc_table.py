"""The RPC study's figures per point, from the measurements in samples.jsonl
(cli/testbed/studies/rpc.py writes them): one row per (system, transport, size), and the
tables derived from the rows -- speed-up over TCP, the split of a call, the RPC layer's
cost over the raw transport.

Across a point's rounds (repeats): median = the median of the rounds' medians, p99 = the
median of the rounds' p99s, spread = (max - min) / median of the rounds' medians
(analysis/stats.py). Client, transport and server are medians too; transport = total -
client - server of each round's medians (a difference of medians, not a median of
differences).
"""
from __future__ import annotations

import statistics

from analysis import stats

SYSTEMS = {"onc": "ONC RPC", "gsoap": "gSOAP", "raw": "raw ping-pong"}
TRANSPORTS = {"tcp": "TCP", "unix": "Unix socket", "shm-spin": "shm (spin)", "shm-futex": "shm (futex)"}
LIGHTER = ("unix", "shm-spin", "shm-futex")
# the analogue of the classic socket-over-VIA: user-level, polling; the futex variant next
USER_LEVEL = ("shm-spin", "shm-futex")
RAW_CLASSIC_SIZE = 4


def size_text(size: int | None) -> str:
    return "null" if size is None else f"{size} B"


def config_text(system: str, transport: str) -> str:
    return f"{SYSTEMS.get(system, system)} over {TRANSPORTS.get(transport, transport)}"


def _median(values: list) -> float | None:
    xs = [v for v in values if v is not None]
    return statistics.median(xs) if xs else None


def _known(v):
    """The programs print -1 for a figure they could not take."""
    return v if v is not None and v >= 0 else None


def rows(samples: list[dict]) -> list[dict]:
    """One row per point with at least one good measurement, in measuring order."""
    by: dict[str, list[dict]] = {}
    for s in samples:
        if s.get("status") == "ok" and isinstance(s.get("data"), dict):
            by.setdefault(s["point"], []).append(s)
    out = []
    for pid, ss in by.items():
        p, ds = ss[0]["params"], [s["data"] for s in ss]
        medians = [d["total_us"]["median"] for d in ds]
        spread = stats.describe(medians)
        prog = [d.get("program") or {} for d in ds]
        r = {"id": pid, "label": ss[0]["label"], "system": p["system"], "transport": p["transport"],
             "size": p["size"], "rounds": len(ds), "calls": sum(d.get("calls", 0) for d in ds),
             "median_us": spread["median"], "spread": spread["spread"],
             "round_medians_us": medians,
             "p99_us": _median([d["total_us"].get("p99") for d in ds]),
             "p1_us": _median([d["total_us"].get("p1") for d in ds]),
             "request_bytes": prog[0].get("request_bytes"), "response_bytes": prog[0].get("response_bytes"),
             "client_cpu_us": _median([g.get("client_cpu_us_per_call") for g in prog]),
             "server_cpu_us": _median([g.get("server_cpu_us_per_call") for g in prog]),
             "idle_cpu_pct": _median([_known(g.get("server_idle_cpu_pct")) for g in prog]),
             "idle_runnable_pct": _median([_known(g.get("server_idle_runnable_pct")) for g in prog]),
             "load_avg": _median([d.get("load_avg_1min") for d in ds])}
        if p["system"] == "raw":
            r["half_rtt_us"] = _median([d["half_rtt_us"]["median"] for d in ds])
        else:
            r["client_us"] = _median([d["client_us"]["median"] for d in ds])
            r["server_us"] = _median([d.get("server_us", {}).get("median") for d in ds])
            r["transport_us"] = _median([d.get("transport_us") for d in ds])
        out.append(r)
    return out


def find(rs: list[dict], system: str, transport: str, size) -> dict | None:
    for r in rs:
        if r["system"] == system and r["transport"] == transport and r["size"] == size:
            return r
    return None


def speedups(rs: list[dict]) -> list[dict]:
    """Each lighter transport's speed-up over TCP, same system and size: TCP median / its median."""
    out = []
    for r in rs:
        if r["transport"] == "tcp":
            continue
        tcp = find(rs, r["system"], "tcp", r["size"])
        if tcp and r["median_us"]:
            out.append({"system": r["system"], "transport": r["transport"], "size": r["size"],
                        "tcp_us": tcp["median_us"], "us": r["median_us"],
                        "speedup": stats.ratio(tcp["median_us"], r["median_us"])})
    return out


def speedup(sp: list[dict], system: str, transport: str, size) -> float | None:
    for x in sp:
        if (x["system"], x["transport"], x["size"]) == (system, transport, size):
            return x["speedup"]
    return None


def rpc_layer(rs: list[dict]) -> list[dict]:
    """The null call over each transport against the raw round trip of 4 bytes on it (the
    classic way): layer = null - raw RTT; share = layer / null."""
    out = []
    for r in rs:
        if r["system"] == "raw" or r["size"] is not None:
            continue
        raw = find(rs, "raw", r["transport"], RAW_CLASSIC_SIZE)
        rtt = 2 * raw["half_rtt_us"] if raw and raw.get("half_rtt_us") is not None else None
        layer = r["median_us"] - rtt if rtt is not None else None
        out.append({"system": r["system"], "transport": r["transport"], "null_us": r["median_us"],
                    "raw_rtt_us": rtt, "layer_us": layer, "share": stats.ratio(layer, r["median_us"])})
    return out


def layer_of(layers: list[dict], system: str, transport: str) -> dict | None:
    for x in layers:
        if (x["system"], x["transport"]) == (system, transport):
            return x
    return None


def lightest(rs: list[dict], system: str) -> str | None:
    """The transport a system's comparison uses: the user-level one when measured (spin first),
    else the Unix socket."""
    have = {r["transport"] for r in rs if r["system"] == system}
    for t in USER_LEVEL + ("unix",):
        if t in have:
            return t
    return None
