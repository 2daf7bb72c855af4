"""The RPC latency study (docs/method.md, "RPC latency by transport"; docs/rpc.md): what a call costs on TCP loopback,
a Unix-domain socket and a user-level shared-memory channel, for ONC RPC and gSOAP, from the
null call to a 4 KiB argument -- and the raw ping-pong on each transport as the floor.

Each point is one (system, transport, size) and one run of a measuring program of
studies/rpc (built by the root CMake build into build/studies/rpc/):

  rpc-onc-client     ONC RPC (rpcgen + libtirpc): null procedure / ECHO of an opaque argument
  rpc-gsoap-client   the testbed's gSOAP proxy and service: ping / sendBytes
  rpc-raw-pingpong   a message of the size there and back, no RPC layer

Each program starts its own server (or echo peer) pinned to another CPU, makes `warmup`
untimed and `calls` timed calls (each checked), writes one line per call (and the server one
per request) and prints a JSON summary. This module turns the per-call files into
percentiles (analysis/stats.py), keeps them gzipped under raw/ and returns the figures.

Parameters (loadgen/experiments/rpc.toml):
  repeat           measurements per point (rounds); calls x repeat = the calls behind a point
  calls, warmup    timed and untimed calls per measurement
  sizes            argument bytes; the null call is always measured as well
  rpc              "system/transport" pairs: onc/tcp, onc/unix, gsoap/tcp, gsoap/unix,
                   gsoap/shm-spin, gsoap/shm-futex
  raw              raw ping-pong transports: tcp, unix, shm-spin, shm-futex (at every size
                   >= 1 of `sizes`, and 4 bytes, the classic raw figure)
  idle_ms          after the calls, the connection idles this long: the server's CPU then
  pin              client and server on two different CPUs when the process may use 2+
  point_timeout_s  one measurement longer than this is stopped and marked
"""
from __future__ import annotations

import gzip
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from analysis import stats
from testbed import ROOT
from testbed.studies.runner import Point, PointError, StudyError, whole, wholes

BIN_DIR = ROOT / "build" / "studies" / "rpc"
PROGRAMS = {"onc": "rpc-onc-client", "gsoap": "rpc-gsoap-client", "raw": "rpc-raw-pingpong"}
SERVERS = {"onc": "rpc-onc-server", "gsoap": "rpc-gsoap-server"}
TRANSPORTS = {"onc": ("tcp", "unix"), "gsoap": ("tcp", "unix", "shm-spin", "shm-futex"),
              "raw": ("tcp", "unix", "shm-spin", "shm-futex")}
SYSTEM_NAMES = {"onc": "ONC RPC", "gsoap": "gSOAP", "raw": "raw ping-pong"}
RAW_CLASSIC_SIZE = 4          # the classic study's raw latency is for 4-byte messages
MAX_SIZE = 65536              # rpc_bench.x ECHO_MAX

PARAMS = {
    "repeat": 3,
    "calls": 3400,
    "warmup": 400,
    "sizes": [0, 4, 64, 256, 1024, 2048, 4096],
    "rpc": ["onc/tcp", "onc/unix", "gsoap/tcp", "gsoap/unix", "gsoap/shm-spin", "gsoap/shm-futex"],
    "raw": ["tcp", "unix", "shm-spin", "shm-futex"],
    "idle_ms": 300,
    "pin": True,
    "point_timeout_s": 240,
}


def check(params: dict) -> None:
    whole(params, "calls", 1, 10_000_000)
    whole(params, "warmup", 0, 10_000_000)
    whole(params, "idle_ms", 0, 10_000)
    whole(params, "point_timeout_s", 5, 3600)
    sizes = wholes(params, "sizes", 0, MAX_SIZE)      # argument sizes in bytes
    if len(set(sizes)) != len(sizes):
        raise StudyError(f"sizes = {sizes!r}: a size is listed twice")
    rpc = params["rpc"]
    known = [f"{s}/{t}" for s in ("onc", "gsoap") for t in TRANSPORTS[s]]
    if not isinstance(rpc, list) or any(x not in known for x in rpc) or len(set(rpc)) != len(rpc):
        raise StudyError(f"rpc = {rpc!r}: expected distinct entries of {', '.join(known)}")
    raw = params["raw"]
    if not isinstance(raw, list) or any(x not in TRANSPORTS["raw"] for x in raw) or len(set(raw)) != len(raw):
        raise StudyError(f"raw = {raw!r}: expected distinct entries of {', '.join(TRANSPORTS['raw'])}")
    if not isinstance(params["pin"], bool):
        raise StudyError(f"pin = {params['pin']!r}: expected true or false")


def raw_sizes(params: dict) -> list[int]:
    return sorted({s for s in params["sizes"] if s >= 1} | {RAW_CLASSIC_SIZE})


def size_text(size: int | None) -> str:
    return "null call" if size is None else f"{size} B"


def points(params: dict) -> list[Point]:
    """Size by size (the null call first), every configuration of a size side by side in time,
    the raw ping-pong of that size right after (the raw 4 B after the null call)."""
    timeout = float(params["point_timeout_s"])
    rsizes, placed, out = raw_sizes(params), set(), []

    def raw_points(size: int) -> list[Point]:
        placed.add(size)
        return [Point(f"raw-{t}-{size}", f"raw / {t} / {size} B", {"system": "raw", "transport": t, "size": size},
                      timeout) for t in params["raw"]]

    for size in [None] + sorted(params["sizes"]):
        for entry in params["rpc"]:
            system, transport = entry.split("/")
            out.append(Point(f"{system}-{transport}-{'null' if size is None else size}",
                             f"{SYSTEM_NAMES[system]} / {transport} / {size_text(size)}",
                             {"system": system, "transport": transport, "size": size}, timeout))
        want = RAW_CLASSIC_SIZE if size is None else size
        if want in rsizes and want not in placed:
            out += raw_points(want)
    for size in rsizes:
        if size not in placed:
            out += raw_points(size)
    return out


def cpu_pair(pin: bool) -> tuple[int, int] | None:
    """(client CPU, server CPU): the first two this process may use, or None."""
    allowed = sorted(os.sched_getaffinity(0))
    return (allowed[0], allowed[1]) if pin and len(allowed) >= 2 else None


def _program(name: str) -> Path:
    return BIN_DIR / name


def _dpkg_version(package: str) -> str:
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, timeout=10)
        return r.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def prepare(ctx) -> None:
    needed = [_program(PROGRAMS[s]) for s in ("onc", "gsoap", "raw")] + [_program(n) for n in SERVERS.values()]
    if any(not p.exists() for p in needed):
        from testbed import build
        ctx.say("rpc: the study's programs are not built yet; building (cmake) ...")
        try:
            build.native()
        except build.BuildError as e:
            raise StudyError(f"building studies/rpc failed: {e}; see .testbed/build/ and run ./testbed build") from None
    missing = [str(p.relative_to(ROOT)) for p in needed if not p.exists()]
    if missing:
        raise StudyError(f"missing {', '.join(missing)}: run ./testbed build (needs libtirpc-dev, rpcsvc-proto, "
                         f"libgsoap-dev; ./testbed setup installs them)")
    pair = cpu_pair(ctx.params["pin"])
    cpus = sorted(os.sched_getaffinity(0))
    ctx.facts.update({
        "cpus allowed": ", ".join(map(str, cpus)),
        "pinning": (f"client on CPU {pair[0]}, server on CPU {pair[1]} (sched_setaffinity: the client pins "
                    f"itself, the server is pinned in its forked child before exec)") if pair else
                   ("not pinned: " + ("pin = false" if not ctx.params["pin"] else "only one CPU allowed")),
        "load average at start": "%.2f %.2f %.2f" % os.getloadavg(),
        "kernel": os.uname().release,
        "libtirpc": _dpkg_version("libtirpc3"),
        "gSOAP": _dpkg_version("libgsoap-dev"),
        "calls per point": f"{ctx.params['calls']} timed x {ctx.params['repeat']} repeat(s) = "
                           f"{ctx.params['calls'] * ctx.params['repeat']} (after {ctx.params['warmup']} warm-up calls each)",
    })


def _argv(ctx, point: Point, sockdir: str, raw_client: Path, raw_server: Path) -> list[str]:
    p, prm = point.params, ctx.params
    system = p["system"]
    argv = [str(_program(PROGRAMS[system])), "--transport", p["transport"],
            "--size", "null" if p["size"] is None else str(p["size"]),
            "--calls", str(prm["calls"]), "--warmup", str(prm["warmup"]), "--idle-ms", str(prm["idle_ms"]),
            "--dir", sockdir, "--raw-out", str(raw_client),
            "--timeout-s", str(max(5, int(point.timeout_s) - 5))]
    if system in SERVERS:
        argv += ["--server", str(_program(SERVERS[system])), "--server-raw-out", str(raw_server)]
    pair = cpu_pair(prm["pin"])
    if pair:
        argv += ["--client-cpu", str(pair[0]), "--server-cpu", str(pair[1])]
    return argv


def read_columns(path: Path) -> dict[str, list[int]]:
    """A per-call TSV (header line, integer columns), plain or gzipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        header = f.readline().split()
        cols: dict[str, list[int]] = {h: [] for h in header}
        for line in f:
            for h, v in zip(header, line.split()):
                cols[h].append(int(v))
    return cols


def micro(values: list[int]) -> dict:
    """ns per call -> µs: median, quartiles, p1, p90, p99, min, max (analysis/stats.py)."""
    us = [v / 1000.0 for v in values]
    d = stats.describe(us)
    for q in (1, 90, 99):
        d[f"p{q}"] = stats.percentile(us, q)
    return d


def _gzip(path: Path) -> Path:
    out = path.with_name(path.name + ".gz")
    with open(path, "rb") as src, gzip.open(out, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    path.unlink()
    return out


def measure(ctx, point: Point, rep: int) -> dict:
    ctx.raw_dir.mkdir(exist_ok=True)
    raw_client = ctx.raw_dir / f"{point.id}-r{rep}.client.tsv"
    raw_server = ctx.raw_dir / f"{point.id}-r{rep}.server.tsv"
    sockdir = tempfile.mkdtemp(prefix="m", dir=_socket_root(ctx))
    try:
        prog = ctx.run_json(_argv(ctx, point, sockdir, raw_client, raw_server), timeout=point.timeout_s)
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)
    calls = ctx.params["calls"]
    client = read_columns(raw_client)
    if len(client.get("total_ns", [])) != calls:
        raise PointError(f"{raw_client.name}: {len(client.get('total_ns', []))} calls, expected {calls}")
    data = {"program": prog, "calls": calls, "total_us": micro(client["total_ns"]),
            "load_avg_1min": round(os.getloadavg()[0], 2),
            "raw_files": [_gzip(raw_client).name]}
    if point.params["system"] == "raw":
        data["half_rtt_us"] = micro([v // 2 for v in client["total_ns"]])
        return data
    data["client_us"] = micro(client["client_ns"])
    if raw_server.exists():
        server = read_columns(raw_server)
        # the server also answered the warm-up calls: the timed ones are its last `calls`
        data["server_us"] = micro(server["server_ns"][-calls:])
        data["server_span_us"] = micro(server["span_ns"][-calls:])
        data["raw_files"].append(_gzip(raw_server).name)
        med = data["total_us"]["median"] - data["client_us"]["median"] - data["server_us"]["median"]
        data["transport_us"] = med
    if prog.get("ok") != prog.get("checked") or prog.get("mismatches"):
        data.update(valid=False, invalid_reason=f"{prog.get('mismatches')} of {prog.get('checked')} replies wrong")
    return data


def describe(data: dict) -> str:
    t = data["total_us"]
    text = f"median {t['median']:.1f} µs, p99 {t['p99']:.1f} µs ({data['calls']} calls)"
    if "transport_us" in data:
        text += (f"; client {data['client_us']['median']:.1f} · transport {data['transport_us']:.1f} · "
                 f"server {data['server_us']['median']:.1f} µs")
    return text


def _socket_root(ctx) -> str:
    """The run's folder for socket files, /tmp/tb-rpc-PID-XXXXXX (short: a Unix socket path has
    108 bytes); each measurement makes its own folder inside. Its name is kept in ctx before it
    is made, so cleanup() removes it whenever a Ctrl-C lands (even between a mkdir and a try)."""
    root = getattr(ctx, "socket_root", None)
    if root is None:
        root = ctx.socket_root = f"/tmp/tb-rpc-{os.getpid()}-{secrets.token_hex(3)}"
        os.mkdir(root, 0o700)
    return root


def cleanup(ctx) -> None:
    """Nothing outlives a measurement: each program's server dies with it (PR_SET_PDEATHSIG),
    run_json kills the whole process group on a timeout or Ctrl-C, each measurement's socket
    folder is removed when it ends, and the run's socket root here (Ctrl-C held). A program just
    killed may still be leaving (a server in bind() as SIGKILL lands): a root not yet empty is
    tried again for up to 2 s."""
    root = getattr(ctx, "socket_root", None)
    deadline = time.monotonic() + 2
    while root and os.path.exists(root):
        shutil.rmtree(root, ignore_errors=True)
        if time.monotonic() > deadline:
            ctx.say(f"rpc: could not remove {root}; remove it by hand")
            break
        time.sleep(0.05)
