"""IPC throughput (docs/method.md, "IPC throughput"): push a fixed amount of data from a client process to a
server process in fixed-size messages over seven mechanisms, and time both processes.

One measurement is one run of build/studies/ipc/tb-ipc: it makes the channel, starts the
server and the client as two separate processes (fork + exec), reaps both with wait4 (user
and system time of each), removes the channel and prints one JSON line; real time is the
transfer's, from starting the client until both have exited. The server checks what arrived
(message count, bytes, each message's sequence number, an order-sensitive checksum against
the client's); a run that lost, reordered or changed data is invalid and never averaged.

Points: every mechanism at each of `sizes` with `bytes` per run (the classic study: ~100 MB
at 71 and 512 B), then the sweep: every mechanism at each of `sweep_sizes` with
min(sweep_bytes, sweep_messages × size) bytes, so small messages do not take minutes. Sizes a
mechanism cannot carry (System V: kernel.msgmax; POSIX: fs.mqueue.msgsize_max; a Unix
datagram: the socket buffer) are skipped and listed with the limit's source.

Names: every measurement of a run uses the runner's pid (ipc_objects.py); each measurement
removes whatever its run left, and cleanup() removes the run's own objects and those of runs
whose process is gone.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from analysis.studies.ipc import LABELS
from testbed import ROOT
from testbed.studies.runner import PointError, Point, StudyError, whole, wholes
from testbed.studies import ipc_objects

BINARY = ROOT / "build" / "studies" / "ipc" / "tb-ipc"
MECHANISMS = ("unix-stream", "unix-dgram", "fifo", "pipe", "sysv-mq", "posix-mq", "shm-ring")
MIN_SIZE = 8                 # every message carries its 64-bit sequence number
MAX_SIZE = 1 << 20

PARAMS = {
    "repeat": 5,                                   # measurements per point, in rounds
    "mechanisms": list(MECHANISMS),
    "sizes": [71, 512],                            # the classic packet sizes
    "bytes": 100_000_000,                          # per run at `sizes` (the classic ~100 MB)
    "sweep_sizes": [16, 32, 64, 128, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536],
    "sweep_bytes": 100_000_000,                    # per sweep run, at most ...
    "sweep_messages": 200_000,                     # ... and at most this many messages
    "min_rate": 20_000,                            # messages/s below which a run is given up
}


def check(params: dict) -> None:
    mechs = params["mechanisms"]
    if not isinstance(mechs, list) or not mechs or any(m not in MECHANISMS for m in mechs):
        raise StudyError(f"mechanisms: a list drawn from {', '.join(MECHANISMS)} (got {mechs!r})")
    for key in ("sizes", "sweep_sizes"):
        wholes(params, key, MIN_SIZE, MAX_SIZE, empty=True)     # message sizes in bytes
    if not params["sizes"] and not params["sweep_sizes"]:
        raise StudyError("sizes and sweep_sizes are both empty: nothing to measure")
    for key in ("bytes", "sweep_bytes", "sweep_messages", "min_rate"):
        whole(params, key, 1, 1 << 50)
    too_small = [s for s in params["sizes"] if params["bytes"] < s]
    if too_small:
        raise StudyError(f"bytes = {params['bytes']} is less than one message of {too_small}")


def kernel_limits() -> dict[str, dict]:
    """Each mechanism's largest message on this machine, from the same sources tb-ipc reads
    (`tb-ipc limits` says the same, measured from inside; prepare() records it)."""
    def proc(path: str) -> int | None:
        try:
            return int(Path(path).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
    msgmax, msgmnb = proc("/proc/sys/kernel/msgmax"), proc("/proc/sys/kernel/msgmnb")
    mqmax = proc("/proc/sys/fs/mqueue/msgsize_max")
    wmem = proc("/proc/sys/net/core/wmem_default")
    return {
        "sysv-mq": {"max_size": msgmax, "source": f"kernel.msgmax = {msgmax} (queue: kernel.msgmnb = {msgmnb} bytes)"},
        "posix-mq": {"max_size": mqmax, "source": f"fs.mqueue.msgsize_max = {mqmax}"},
        "unix-dgram": {"max_size": wmem - 32 if wmem else None,
                       "source": f"socket buffer net.core.wmem_default = {wmem} less 32 bytes"},
        "shm-ring": {"max_size": 262144, "source": "the ring's size, 256 KiB"},
    }


def _messages(params: dict, size: int, sweep: bool) -> int:
    if not sweep:
        return params["bytes"] // size
    return max(1, min(params["sweep_bytes"] // size, params["sweep_messages"]))


def plan(params: dict) -> tuple[list[Point], list[dict]]:
    """The points, and the (mechanism, size) pairs skipped because the mechanism cannot carry
    the size."""
    limits = kernel_limits()
    pts, skipped = [], []
    sweep = [s for s in params["sweep_sizes"] if s not in params["sizes"]]
    for group, sizes in (("main", params["sizes"]), ("sweep", sweep)):
        for size in sizes:
            for m in params["mechanisms"]:
                lim = limits.get(m, {})
                if lim.get("max_size") is not None and size > lim["max_size"]:
                    skipped.append({"mechanism": m, "size": size, "limit": lim["max_size"],
                                    "source": lim["source"]})
                    continue
                n = _messages(params, size, group == "sweep")
                timeout = 30 + n / params["min_rate"]
                pts.append(Point(f"{m}-{size}", f"{LABELS[m]}, {size} B", {
                    "mechanism": m, "size": size, "messages": n, "bytes": n * size, "group": group},
                    timeout_s=timeout))
    return pts, skipped


def points(params: dict) -> list[Point]:
    return plan(params)[0]


def prepare(ctx) -> None:
    if not BINARY.exists():
        raise StudyError(f"{BINARY.relative_to(ROOT)} is not built: run ./testbed build")
    for old in ipc_objects.stale():
        gone = ipc_objects.remove(old)
        if gone:
            ctx.say(f"ipc: removed what an earlier, killed run left: {', '.join(gone)}")
    n = ipc_objects.names()
    ipc_objects.remove(n)
    n.dir.mkdir(mode=0o700, exist_ok=True)
    out = subprocess.run([str(BINARY), "limits"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise StudyError(f"tb-ipc limits failed: {out.stderr.strip()[:300]}")
    ctx.facts["limits"] = json.loads(out.stdout)
    ctx.facts["skipped"] = plan(ctx.params)[1]
    ctx.facts["kernel"] = os.uname().release
    ctx.facts["load_average_at_start"] = [round(x, 2) for x in os.getloadavg()]
    ctx.facts["channel_names"] = f"{n.dir}/{n.base}.fifo|.sock|.dgram, /{n.base} (POSIX queue, shm), " \
                                 f"System V key {n.key:#x}"


def measure(ctx, point: Point, rep: int) -> dict:
    p = point.params
    n = ipc_objects.names()
    n.dir.mkdir(mode=0o700, exist_ok=True)
    deadline = max(5, int(point.timeout_s) - 10)     # the peers stop first and say so
    argv = [str(BINARY), "run", "--mech", p["mechanism"], "--size", str(p["size"]),
            "--messages", str(p["messages"]), *n.argv, "--deadline", str(deadline)]
    try:
        data = ctx.run_json(argv, timeout=point.timeout_s)
    finally:
        left = ipc_objects.remove(n, keep_dir=True)
    data = verified(data, p)
    data["left_behind"] = left
    data["load_1min"] = round(os.getloadavg()[0], 2)     # how busy the machine was (shared hosts)
    return data


def verified(data: dict, p: dict) -> dict:
    """tb-ipc's own verdict, checked again from the figures it printed, plus the rates."""
    want_n, want_b = p["messages"], p["bytes"]
    cli, srv = data.get("client") or {}, data.get("server") or {}
    why = []
    if data.get("mechanism") != p["mechanism"] or data.get("size") != p["size"]:
        raise PointError(f"tb-ipc measured {data.get('mechanism')} at {data.get('size')} B, "
                         f"not {p['mechanism']} at {p['size']} B")
    if srv.get("messages") != want_n or srv.get("bytes") != want_b:
        why.append(f"server received {srv.get('messages')} of {want_n} messages")
    if cli.get("checksum") is None or cli.get("checksum") != srv.get("checksum"):
        why.append(f"checksum sent {cli.get('checksum')}, received {srv.get('checksum')}")
    if srv.get("order_errors"):
        why.append(f"{srv['order_errors']} messages out of order")
    if why and data.get("valid"):
        data["valid"] = False
        data["invalid_reason"] = "; ".join(why) + " (tb-ipc said valid)"
    elif not data.get("valid") and not data.get("invalid_reason"):
        data["invalid_reason"] = "; ".join(why) or "tb-ipc marked the run invalid"
    real = data.get("real_s") or 0
    if data.get("valid") and real > 0:
        data["messages_per_s"] = want_n / real
        data["mb_per_s"] = want_b / real / 1e6
    return data


def cleanup(ctx) -> None:
    """The run's objects, and those of earlier runs whose process is gone."""
    ctx.facts["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    left = ipc_objects.remove(ipc_objects.names())
    for old in ipc_objects.stale():
        left += ipc_objects.remove(old)
    if left:
        ctx.say(f"ipc: removed at the end: {', '.join(left)}")


def describe(data: dict) -> str:
    c, s = data["client"], data["server"]
    return (f"{data['real_s']:.3f} s, {data['messages_per_s']:,.0f} msg/s, {data['mb_per_s']:,.0f} MB/s; "
            f"client user {c['user_s']:.2f} sys {c['sys_s']:.2f}, server user {s['user_s']:.2f} sys {s['sys_s']:.2f}")
