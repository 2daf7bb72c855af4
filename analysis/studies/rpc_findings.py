"""The classic findings of the RPC latency study (docs/method.md, "RPC latency by transport"),
each judged from this run's rows (analysis/studies/rpc_table.py) by the rule stated in its `why`.

The published figures (a Pentium III 500 MHz, Linux 2.2: raw 4-byte latency, the null RPC over
TCP and over the user-level transport and its split, a null ONC RPC's bytes, the speed-ups) are
read from analysis/judge/published.toml ("rpc").
"""
from __future__ import annotations

from analysis.judge import published
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, Finding, missing
from analysis.judge.method import RPC
from analysis.studies import rpc_table as t

PUB = published.rpc()

SEVERAL = 2.0      # "several times faster": at least this factor
BIG = 4096         # the classic's large argument


def _us(v: float | None) -> str:
    return "—" if v is None else (f"{v:.2f} µs" if v < 10 else f"{v:.1f} µs")


def _x(v: float | None) -> str:
    return "—" if v is None else f"{v:.1f}×"


def raw_latency(rs: list[dict]) -> Finding:
    claim = "A user-level transport cuts the raw 4-byte latency (half round trip) several-fold below TCP's"
    pub = PUB.raw_text()
    tcp = t.find(rs, "raw", "tcp", t.RAW_CLASSIC_SIZE)
    user = next((t.find(rs, "raw", u, t.RAW_CLASSIC_SIZE) for u in t.USER_LEVEL
                 if t.find(rs, "raw", u, t.RAW_CLASSIC_SIZE)), None)
    if not tcp or not user:
        return missing(claim, pub, "needs the raw 4-byte ping-pong over tcp and a shm transport", "raw_latency",
                       method=RPC)
    parts = [f"{t.TRANSPORTS[x]} {_us(r['half_rtt_us'])}" for x in ("tcp",) + t.LIGHTER
             if (r := t.find(rs, "raw", x, t.RAW_CLASSIC_SIZE))]
    factor = tcp["half_rtt_us"] / user["half_rtt_us"] if user["half_rtt_us"] else None
    return Finding(claim, "; ".join(parts) + f" — {t.TRANSPORTS[user['transport']]} {_x(factor)} below TCP",
                   pub, HOLDS if factor is not None and factor >= SEVERAL else DOES_NOT_HOLD,
                   f"holds when the user-level transport ({t.TRANSPORTS[user['transport']]}) has at most "
                   f"1/{SEVERAL:g} of TCP's median half round trip", "raw_latency", method=RPC)


def null_rpc(rs: list[dict], sp: list[dict]) -> Finding:
    claim = "Under the unchanged RPC interface, the user-level transport makes the null RPC several times faster than TCP"
    pub = PUB.null_text()
    user = t.lightest(rs, "gsoap")
    tcp = t.find(rs, "gsoap", "tcp", None)
    if not tcp or user not in t.USER_LEVEL or not t.find(rs, "gsoap", user, None):
        return missing(claim, pub, "needs gSOAP's null call (ping) over tcp and a shm transport", "null_rpc",
                       method=RPC)
    parts = []
    for system in ("gsoap", "onc"):
        base = t.find(rs, system, "tcp", None)
        if not base:
            continue
        others = [f"{t.TRANSPORTS[x]} {_us(r['median_us'])} ({_x(t.speedup(sp, system, x, None))})"
                  for x in t.LIGHTER if (r := t.find(rs, system, x, None))]
        parts.append(f"{t.SYSTEMS[system]}: TCP {_us(base['median_us'])}, " + ", ".join(others))
    factor = t.speedup(sp, "gsoap", user, None)
    return Finding(claim, "; ".join(parts), pub,
                   HOLDS if factor is not None and factor >= SEVERAL else DOES_NOT_HOLD,
                   f"holds when gSOAP's null call over the user-level transport ({t.TRANSPORTS[user]}) is at "
                   f"least {SEVERAL:g}× faster than over TCP (median over median); ONC RPC has no user-level "
                   f"transport here, its Unix-socket figure is shown beside", "null_rpc", method=RPC)


def speedup_shrinks(rs: list[dict], sp: list[dict]) -> Finding:
    claim = "The lighter transport wins by the largest factor at small arguments, and by less as arguments grow"
    pub = PUB.speedup_text()
    pairs = [(s, x) for s in ("onc", "gsoap") for x in t.LIGHTER
             if t.speedup(sp, s, x, None) is not None and t.speedup(sp, s, x, BIG) is not None]
    if not pairs:
        return missing(claim, pub, "needs the null call and 4 KiB over tcp and a lighter transport", "speedup_shrinks",
                       method=RPC)
    shrinks = {(s, x): t.speedup(sp, s, x, BIG) < t.speedup(sp, s, x, None) for s, x in pairs}
    parts = [f"{t.config_text(s, x)} {_x(t.speedup(sp, s, x, None))} (null), "
             + (f"{_x(t.speedup(sp, s, x, 0))} (0 B), " if t.speedup(sp, s, x, 0) is not None else "")
             + f"{_x(t.speedup(sp, s, x, BIG))} (4 KiB)" for s, x in pairs]
    primary = [(s, t.lightest(rs, s)) for s in ("onc", "gsoap") if (s, t.lightest(rs, s)) in shrinks]
    ok = all(shrinks[p] for p in primary)
    exceptions = [t.config_text(s, x) for (s, x), v in shrinks.items() if not v]
    why = (f"speed-up over TCP at the null call → at 4 KiB (medians); holds when it shrinks for each system's "
           f"lightest transport ({', '.join(t.config_text(s, x) for s, x in primary)})")
    if exceptions:
        why += f"; it does not shrink for {', '.join(exceptions)}"
    return Finding(claim, "; ".join(parts), pub, HOLDS if ok else DOES_NOT_HOLD, why, "speedup_shrinks", method=RPC)


def rpc_layer(rs: list[dict]) -> Finding:
    claim = "The RPC layer's own cost over the raw transport is a larger share of the call on the lighter transport"
    pub = PUB.layer_text()
    layers = t.rpc_layer(rs)
    parts, verdicts = [], []
    for system in ("onc", "gsoap"):
        light = t.lightest(rs, system)
        a, b = t.layer_of(layers, system, "tcp"), t.layer_of(layers, system, light) if light else None
        if not a or not b or a["share"] is None or b["share"] is None:
            continue
        parts.append(f"{t.SYSTEMS[system]}: TCP {_us(a['layer_us'])} ({a['share']:.0%}), "
                     f"{t.TRANSPORTS[light]} {_us(b['layer_us'])} ({b['share']:.0%})")
        verdicts.append(b["share"] > a["share"])
    if not verdicts:
        return missing(claim, pub, "needs the null calls and the raw 4-byte ping-pong on the same transports", "rpc_layer",
                       method=RPC)
    return Finding(claim, "; ".join(parts), pub, HOLDS if all(verdicts) else DOES_NOT_HOLD,
                   "layer = null-call median − 2 × the raw 4-byte half round trip on the same transport; holds "
                   "when, for every system, its share of the null call is larger on the lightest transport "
                   "than on TCP", "rpc_layer", method=RPC)


def null_split(rs: list[dict]) -> Finding:
    claim = "A null RPC over the user-level transport is mostly communication, little client or server"
    pub = PUB.split_text()
    user = t.lightest(rs, "gsoap")
    r = t.find(rs, "gsoap", user, None) if user else None
    if not r or r.get("transport_us") is None or not r.get("median_us"):
        return missing(claim, pub, "needs gSOAP's null call with the server's times", "null_split", method=RPC)
    share = r["transport_us"] / r["median_us"]
    parts = [f"gSOAP over {t.TRANSPORTS[user]}: client {_us(r['client_us'])}, transport {_us(r['transport_us'])}, "
             f"server {_us(r['server_us'])} ({share:.0%} transport)"]
    onc = t.find(rs, "onc", t.lightest(rs, "onc") or "", None)
    if onc and onc.get("transport_us") is not None:
        parts.append(f"ONC RPC over {t.TRANSPORTS[onc['transport']]}: client {_us(onc['client_us'])}, "
                     f"transport {_us(onc['transport_us'])}, server {_us(onc['server_us'])}")
    return Finding(claim, "; ".join(parts), pub, HOLDS if share > 0.5 else DOES_NOT_HOLD,
                   "holds when the transport is more than half of the null call's median on the user-level "
                   "transport (client and server: time outside the transport's send/receive, measured inside "
                   "each process; transport: the rest)", "null_split", method=RPC)


def null_bytes(rs: list[dict]) -> Finding:
    sent, received = PUB.null_bytes["sent"], PUB.null_bytes["received"]
    claim = f"A null ONC RPC over TCP sends {sent} bytes and receives {received}"
    pub = PUB.bytes_text()
    r = t.find(rs, "onc", "tcp", None)
    if not r or r.get("request_bytes") is None:
        return missing(claim, pub, "needs the ONC null call over tcp", "null_bytes", method=RPC)
    g = t.find(rs, "gsoap", "tcp", None)
    text = f"ONC RPC {r['request_bytes']} B sent, {r['response_bytes']} B received"
    if g and g.get("request_bytes") is not None:
        text += f" (gSOAP ping: {g['request_bytes']} B sent, {g['response_bytes']} B received)"
    ok = (r["request_bytes"], r["response_bytes"]) == (sent, received)
    return Finding(claim, text, pub, HOLDS if ok else DOES_NOT_HOLD,
                   "bytes the client's write/read system calls moved in one null call (record mark, RPC header, "
                   f"AUTH_NONE); holds when exactly {sent} and {received}", "null_bytes", method=RPC)


def all_findings(rs: list[dict], sp: list[dict]) -> list[Finding]:
    return [null_rpc(rs, sp), speedup_shrinks(rs, sp), raw_latency(rs), rpc_layer(rs), null_split(rs), null_bytes(rs)]
