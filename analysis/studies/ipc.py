"""What an IPC study's samples mean (cli/testbed/studies/ipc.py measures them; docs/method.md, "IPC
throughput"):
per mechanism and message size, the medians and spreads of real, user and system time (scaled to
100 MB, the classic study's transfer), messages/s and MB/s; the classic findings with a verdict
each; the limits that made sizes skip; the figures (analysis/studies/ipc_figures.py) and the
"which to choose" section (analysis/studies/ipc_choice.py).

Only valid measurements (status "ok": every byte arrived, in order, checksum equal) count.
"""
from __future__ import annotations

from analysis import stats
from analysis.judge import published
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, Finding, judged, missing
from analysis.judge.method import IPC
from analysis.studies import ipc_choice, ipc_figures

LABELS = {"unix-stream": "Unix stream socket", "unix-dgram": "Unix datagram socket", "fifo": "FIFO",
          "pipe": "pipe", "sysv-mq": "System V queue", "posix-mq": "POSIX queue",
          "shm-ring": "shared-memory ring"}
PUB = published.ipc()                  # the published figures (analysis/judge/published.toml, "ipc")
SMALL, LARGE = PUB.sizes[0], PUB.sizes[-1]   # the classic packet sizes, 71 and 512 B
PER = PUB.transfer_bytes               # times are shown per 100 MB, the classic transfer
SAME_WITHIN = 1.25                     # "about equally fast": the slower within 25 % of the faster
SLOWER_BY = 1.10                       # "slower": at least 10 % more real time
NARROWER_BY = 0.05                     # "the gap narrows": the ratio drops by at least 0.05
RATE_FLOOR, RATE_SLACK = PUB.rate_floor, 0.05  # "above ~240 000 messages/s", ~ = 5 %
METRICS = ("real", "client_user", "client_sys", "server_user", "server_sys", "cpu", "cpu_us_per_message",
           "messages_per_s", "mb_per_s")

METHOD = """
One measurement = one run of tb-ipc (studies/ipc/): it creates the channel, starts the server
and then the client as two separate processes (fork + exec of itself), waits for both with
wait4 and prints one JSON line. The client sends N messages of S bytes (N = bytes / S); each
message starts with its 64-bit sequence number, the rest is a fixed pseudo-random pattern.
Stream mechanisms (Unix stream socket, FIFO, pipe) are read one message at a time with a read
loop, so every mechanism does one receive per message; the server then checks that the stream
ends. Message mechanisms move one message per call (send/recv, msgsnd/msgrcv, mq_send/
mq_receive; the ring copies in and out). Buffers and queue depths are the system defaults.

real   the transfer: from starting the client until both processes have exited (exec and
       exit of the client included: about a millisecond)
user, sys   each process's own (rusage from wait4); both include the checksum, a few
       cycles per 8 bytes on each side
Every figure is scaled to 100 MB (time x 100 000 000 / bytes moved); with the default
bytes = 100 000 000 that is the measured value. messages/s = N / real, MB/s = bytes / real / 10^6.

Verification, every run: the server counts messages and bytes, checks each sequence number,
and folds every message into an order-sensitive 64-bit checksum; the client does the same over
what it sent. Unequal count, bytes or checksum, a message out of order or bytes after the last
message make the run invalid: listed under "Lost, failed or invalid", never in a median.
Medians over the valid runs of a point, [min-max] beside them; spread = (max - min) / median.

Points run in rounds (every point once, then again), so the machine's drift spreads over every
mechanism. Sizes above a mechanism's limit are not run (section Limits). Each process has a
deadline (alarm); the runner stops a run that exceeds bytes / min_rate + 30 s.
"""


def _ok(samples: list[dict]) -> list[dict]:
    return [s for s in samples if s.get("status") == "ok" and isinstance(s.get("data"), dict)]


def _per_run(d: dict) -> dict:
    """One valid measurement's figures, times scaled to 100 MB."""
    k = PER / d["bytes"]
    c, s = d["client"], d["server"]
    cpu = c["user_s"] + c["sys_s"] + s["user_s"] + s["sys_s"]
    return {"real": d["real_s"] * k, "client_user": c["user_s"] * k, "client_sys": c["sys_s"] * k,
            "server_user": s["user_s"] * k, "server_sys": s["sys_s"] * k, "cpu": cpu * k,
            "cpu_us_per_message": cpu / d["messages"] * 1e6,
            "messages_per_s": d["messages_per_s"], "mb_per_s": d["mb_per_s"]}


def rows(experiment: dict, samples: list[dict]) -> list[dict]:
    """One row per point (mechanism, size), in the study's order, with a description of each
    metric over its valid runs."""
    runs: dict[str, list[dict]] = {}
    for s in _ok(samples):
        runs.setdefault(s["point"], []).append(_per_run(s["data"]))
    out = []
    for p in experiment.get("points", []):
        pr, mine = p["params"], runs.get(p["id"], [])
        row = {"id": p["id"], "mechanism": pr["mechanism"], "label": LABELS.get(pr["mechanism"], pr["mechanism"]),
               "size": pr["size"], "group": pr.get("group", "main"), "messages": pr["messages"],
               "bytes": pr["bytes"], "n": len(mine)}
        for m in METRICS:
            row[m] = stats.describe([r[m] for r in mine])
        out.append(row)
    return out


class Medians:
    """Median of a metric at (mechanism, size), from rows; None when not measured."""

    def __init__(self, table: list[dict]):
        self._by = {(r["mechanism"], r["size"]): r for r in table}

    def __call__(self, mech: str, size: int, metric: str = "real") -> float | None:
        r = self._by.get((mech, size))
        return r[metric]["median"] if r else None

    def text(self, mech: str, size: int, metric: str = "real") -> str:
        r = self._by.get((mech, size))
        d = r[metric] if r else None
        if not d or d["median"] is None:
            return "—"
        if metric == "real":
            return f"{d['median']:.2f} s [{d['min']:.2f}–{d['max']:.2f}]"
        return f"{d['median']:,.0f}/s [{d['min']:,.0f}–{d['max']:,.0f}]"


def findings(med: Medians, mechanisms: list[str]) -> list[Finding]:
    return [_same_speed(med), _socket_slower(med), _gap_narrows(med), _rate_floor(med, mechanisms)]


def _same_speed(med: Medians) -> Finding:
    claim = "FIFO and message queue are about equally fast"
    pub = PUB.same_speed_text()
    why = f"holds when the slower of FIFO and System V queue takes at most ×{SAME_WITHIN} the faster's median real time, at 71 and at 512 B"
    vals = {s: (med("fifo", s), med("sysv-mq", s)) for s in (SMALL, LARGE)}
    if any(None in v for v in vals.values()):
        return missing(claim, pub, "needs FIFO and System V queue runs at 71 and 512 B", "fifo-equals-queue",
                       method=IPC)
    ratio = {s: max(a, b) / min(a, b) for s, (a, b) in vals.items()}
    measured = "; ".join(f"{s} B: FIFO {med.text('fifo', s)}, queue {med.text('sysv-mq', s)} (×{ratio[s]:.2f})"
                         for s in (SMALL, LARGE)) + _cpu_note(med, ("fifo", "sysv-mq"))
    return Finding(claim, measured, pub, judged(all(r <= SAME_WITHIN for r in ratio.values())), why,
                   "fifo-equals-queue", method=IPC)


def _socket_slower(med: Medians) -> Finding:
    claim = "the Unix socket is slower in real time at small packets (71 B)"
    pub = PUB.socket_slower_text()
    why = f"holds when the Unix stream socket's median real time is at least ×{SLOWER_BY} the slower of FIFO and System V queue"
    s, f, q = med("unix-stream", SMALL), med("fifo", SMALL), med("sysv-mq", SMALL)
    if None in (s, f, q):
        return missing(claim, pub, "needs Unix stream socket, FIFO and System V queue runs at 71 B", "socket-slower",
                       method=IPC)
    r = s / max(f, q)
    measured = (f"socket {med.text('unix-stream', SMALL)} vs FIFO {f:.2f} s, queue {q:.2f} s "
                f"(×{r:.2f} the slower of the two)" + _cpu_note(med, ("unix-stream", "fifo", "sysv-mq"), (SMALL,)))
    return Finding(claim, measured, pub, judged(r >= SLOWER_BY), why, "socket-slower", method=IPC)


def _cpu_note(med: Medians, mechs: tuple[str, ...], sizes: tuple[int, ...] = (SMALL, LARGE)) -> str:
    """CPU time of both processes beside the real time: it says whether a difference in real
    time is work or waiting for a core on a busy machine."""
    short = {"unix-stream": "socket", "fifo": "FIFO", "sysv-mq": "queue"}
    parts = [f"{s} B " + ", ".join(f"{short[m]} {med(m, s, 'cpu'):.2f} s" for m in mechs if med(m, s, "cpu") is not None)
             for s in sizes]
    return "; CPU time of both processes: " + "; ".join(parts)


def gap_ratio(med: Medians, size: int) -> float | None:
    s, f, q = med("unix-stream", size), med("fifo", size), med("sysv-mq", size)
    return None if None in (s, f, q) else s / ((f + q) / 2)


def _gap_narrows(med: Medians) -> Finding:
    claim = "the socket's gap narrows at 512 B"
    pub = PUB.gap_text()
    why = (f"relative gap, socket ÷ mean of FIFO and System V queue: holds when the 512 B ratio is at least "
           f"{NARROWER_BY} below the 71 B one (the gap in seconds shrinks with 7× fewer messages whatever happens)")
    r1, r2 = gap_ratio(med, SMALL), gap_ratio(med, LARGE)
    if r1 is None or r2 is None:
        return missing(claim, pub, "needs Unix stream socket, FIFO and System V queue runs at 71 and 512 B",
                       "gap-narrows", method=IPC)
    secs = {s: med("unix-stream", s) - (med("fifo", s) + med("sysv-mq", s)) / 2 for s in (SMALL, LARGE)}
    measured = (f"×{r1:.2f} at 71 B → ×{r2:.2f} at 512 B (gap {secs[SMALL]:+.2f} s → {secs[LARGE]:+.2f} s)")
    if r1 <= 1:
        return Finding(claim, measured, pub, DOES_NOT_HOLD, why + "; here the socket is not slower at 71 B, "
                       "so there is no gap to narrow", "gap-narrows", method=IPC)
    return Finding(claim, measured, pub, judged(r2 <= r1 - NARROWER_BY), why, "gap-narrows", method=IPC)


def _rate_floor(med: Medians, mechanisms: list[str]) -> Finding:
    claim = f"every mechanism moves more than ~{PUB.floor_text()} messages/s"
    floor = RATE_FLOOR * (1 - RATE_SLACK)
    pub = PUB.floor_finding_text()
    why = f"holds when every mechanism's median at 71 and at 512 B is ≥ {floor:,.0f}/s (~ = 5 %)"
    rates = [(med(m, s, "messages_per_s"), m, s) for m in mechanisms for s in (SMALL, LARGE)
             if med(m, s, "messages_per_s") is not None]
    if not rates:
        return missing(claim, pub, "needs runs at 71 or 512 B", "rate-floor", method=IPC)
    low, m, s = min(rates)
    below = sorted({LABELS.get(x, x) for r, x, _ in rates if r < floor})
    measured = f"slowest: {LABELS.get(m, m)} at {s} B, {low:,.0f}/s"
    if below:
        measured += f"; below the floor: {', '.join(below)}"
    measured += f" ({len(rates)} mechanism × size medians)"
    return Finding(claim, measured, pub, HOLDS if low >= floor else DOES_NOT_HOLD, why, "rate-floor", method=IPC)


def summarize(experiment: dict, samples: list[dict]) -> dict:
    table = rows(experiment, samples)
    mechanisms = list(dict.fromkeys(r["mechanism"] for r in table))
    med = Medians(table)
    env = experiment.get("environment") or {}
    left = [{"where": f"{s['label']} #{s['repeat'] + 1}", "what": ", ".join(s["data"]["left_behind"])}
            for s in samples if isinstance(s.get("data"), dict) and s["data"].get("left_behind")]
    return {"rows": table, "mechanisms": mechanisms,
            "sizes": sorted({r["size"] for r in table if r["group"] == "main"}),
            "all_sizes": sorted({r["size"] for r in table}),
            "findings": [f.to_json() for f in findings(med, mechanisms)],
            "choice": ipc_choice.figures(med, mechanisms),
            "limits": env.get("limits") or {}, "skipped": env.get("skipped") or [],
            "left_behind": left, "cores": (experiment.get("host") or {}).get("cores"),
            "load": stats.describe([s["data"]["load_1min"] for s in _ok(samples) if "load_1min" in s["data"]])}


def figures(summary: dict) -> dict:
    return ipc_figures.figures(summary, LABELS)


def view(summary: dict) -> dict:
    """The report's tables (analysis/render/templates/studies/ipc.html.j2), rows picked from the summary."""
    by = {(r["mechanism"], r["size"]): r for r in summary["rows"]}
    skipped: dict[str, list[int]] = {}
    for x in summary["skipped"]:
        skipped.setdefault(x["mechanism"], []).append(x["size"])

    def sweep_cell(m: str, size: int) -> tuple[bool, float | None]:
        """(over the mechanism's limit, MB/s median)."""
        return size in skipped.get(m, []), ((by.get((m, size)) or {}).get("mb_per_s") or {}).get("median")
    return {"labels": LABELS, "load_text": load_text(summary),
            "main": [r for r in summary["rows"] if r["group"] == "main"],
            "sweep_sizes": [_size(x) for x in summary["all_sizes"]],
            "sweep": [(LABELS.get(m, m), [sweep_cell(m, x) for x in summary["all_sizes"]])
                      for m in summary["mechanisms"]],
            "limits": [(LABELS.get(m, m), f"{lim['max_size']:,} B" if lim.get("max_size") else "none (a byte stream)",
                        lim.get("source", ""), ", ".join(_size(x) for x in sorted(skipped.get(m, []))) or "none")
                       for m, lim in summary["limits"].items()],
            "choice": ipc_choice.view(summary, LABELS)}


def load_text(summary: dict) -> str:
    load, cores = summary.get("load") or {}, summary.get("cores")
    if not load or load.get("median") is None:
        return ""
    return (f"The machine's 1-minute load average after each run: median {load['median']:.1f} "
            f"[{load['min']:.1f}–{load['max']:.1f}] on {cores} cores. Where the real time is well above the CPU "
            "time of both processes, they were waiting for a core, not working: compare the CPU column.")


def _size(s: int) -> str:
    return f"{s // 1024} KiB" if s >= 1024 and s % 1024 == 0 else f"{s} B"
