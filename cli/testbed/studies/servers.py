"""Socket server threading models (docs/method.md, "Socket server models"; docs/servers.md): thread per connection,
one thread polling every socket, and a polling thread feeding a bounded worker pool, each
answering N clients × M request/reply messages of L bytes (studies/servers, Java).

One measurement: start the server model (its own JVM), start the client (another JVM), let the
client warm both up (without the per-message work: the warm-up is for the JIT of the I/O path,
and a poller would do a warm-up's waits one by one), reset the server's counters and turn its
work on, run the measured load, stop the server and read its figures. The server reports its
own threads (exact peaks, means sampled every sample_ms while a connection is open) and RSS;
nothing here samples /proc.

Points, for every entry of `work` (the per-message work):
  clients sweep   every model at every `clients`, length base_length (pooled: pool `pool`)
  lengths sweep   every model at every `lengths`, base_clients clients
  pools sweep     pooled with every `pools` size, and thread, at base_clients and base_length
Messages per connection: `messages`, raised so a run has at least min_total_messages (a run of
a few milliseconds is noise on a shared machine); each sample records the M it used.
`with_work` replaces clients, lengths, pools, messages, min_total_messages for work other than
"none": a single-thread poller does every wait one after the other, so a full sweep with work
would take most of the time budget.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import re
import resource
import select
import signal
import subprocess
import time
from pathlib import Path

from testbed import ROOT
from testbed.studies.runner import Point, PointError, StudyError, whole, wholes

JAR = ROOT / "studies" / "servers" / "target" / "servers.jar"
MODELS = ("thread", "poller", "pooled")
WORK = re.compile(r"^(none|cpu:\d+|wait:\d+)$")
STARTUP_S = 30          # a JVM that has not said "listening" by then is not coming
STOP_S = 15             # the server prints its figures and exits within this after stdin closes
FD_HEADROOM = 256       # descriptors beyond one per connection: the JVM's own jars, pipes, epoll
THREAD_HEADROOM = 512   # threads beyond one per connection: the JVM's own, this user's others

PARAMS = {
    "repeat": 3,
    "models": list(MODELS),
    "clients": [1, 10, 100, 1000],
    "lengths": [512, 1024, 2048, 4096],
    "pools": [1, 2, 5, 10, 20, 30, 50, 100],
    "pool": 1000,                      # the pooled model's pool outside the pools sweep (published)
    "base_clients": 100,               # clients of the lengths and pools sweeps (published)
    "base_length": 1024,               # bytes per message of the clients and pools sweeps (published)
    "messages": 100,                   # per connection (published)
    "min_total_messages": 20000,
    "work": ["none", "wait:1000"],
    "with_work": {},                   # sweep keys replaced when work is not "none" (above)
    "warmup_messages": 3000,
    "deadline_s": 60,                  # the client's deadline for warm-up plus measured run
    "sample_ms": 5,
    "jvm_options": ["-Xms256m", "-Xmx256m", "-XX:+UseSerialGC"],
}

_live: list["JsonProcess"] = []     # processes of the measurement in progress (cleanup kills them)
_limits_before: dict[int, tuple[int, int]] = {}   # soft limits prepare raised (cleanup puts them back)


WITH_WORK_KEYS = ("clients", "lengths", "pools", "messages", "min_total_messages")


def sweep_params(params: dict, work: str) -> dict:
    """The parameters of the sweeps with this work: with_work's keys replace the others unless none."""
    return params if work == "none" else {**params, **params["with_work"]}


def check(params: dict) -> None:
    models = params["models"]
    if not isinstance(models, list) or not models or any(m not in MODELS for m in models):
        raise StudyError(f"models must be a non-empty list of {', '.join(MODELS)} (got {models!r})")
    ww = params["with_work"]
    if not isinstance(ww, dict) or set(ww) - set(WITH_WORK_KEYS):
        raise StudyError(f"with_work may only hold {', '.join(WITH_WORK_KEYS)} (got {ww!r})")
    for where, p in (("", params), ("with_work.", sweep_params(params, "wait:1"))):
        wholes(p, "clients", 1, 10000, where)
        wholes(p, "lengths", 8, 1 << 20, where)
        wholes(p, "pools", 1, 10000, where)
        whole(p, "messages", 1, 1_000_000, where)
        whole(p, "min_total_messages", 0, 5_000_000, where)
        if max(p["clients"]) * messages_for(p, max(p["clients"])) > 20_000_000:
            raise StudyError(f"{where}clients × messages is over 20 000 000 messages in one run; use fewer")
    for key, lo, hi in (("pool", 1, 10000), ("base_clients", 1, 10000), ("base_length", 8, 1 << 20),
                        ("warmup_messages", 0, 1_000_000), ("deadline_s", 5, 3600), ("sample_ms", 1, 1000)):
        whole(params, key, lo, hi)
    work = params["work"]
    if not isinstance(work, list) or not work or not all(isinstance(w, str) and WORK.match(w) for w in work):
        raise StudyError(f"work must be a non-empty list of none, cpu:<µs>, wait:<µs> (got {work!r})")
    opts = params["jvm_options"]
    if not isinstance(opts, list) or not all(isinstance(o, str) and o.startswith("-") for o in opts):
        raise StudyError(f"jvm_options must be a list of JVM options such as \"-Xmx256m\" (got {opts!r})")


def messages_for(params: dict, clients: int) -> int:
    """Messages per connection: `messages`, or more so the run has min_total_messages."""
    return max(params["messages"], math.ceil(params["min_total_messages"] / clients))


def _point(params: dict, work: str, model: str, clients: int, length: int, pool: int | None) -> Point:
    wid = work.replace(":", "")
    pid = f"{wid}-{model}-n{clients}-l{length}" + (f"-k{pool}" if model == "pooled" else "")
    m = messages_for(sweep_params(params, work), clients)
    pool_text = f", pool {pool}" if model == "pooled" else ""
    label = (f"{model}{pool_text}, {clients} client{'' if clients == 1 else 's'} × {m} messages × {length} B, "
             f"work {work}")
    return Point(pid, label, {"work": work, "model": model, "clients": clients, "messages": m,
                              "length": length, "pool": pool if model == "pooled" else None},
                 timeout_s=params["deadline_s"] + STARTUP_S + STOP_S)


def points(params: dict) -> list[Point]:
    """Per work: the clients sweep, with the pools and lengths sweeps measured right after its
    base_clients points, so the configurations the findings compare run close together in time
    (the machine's other load drifts over minutes); pools largest first, so the pools around
    the published 20–30 run nearest thread-per-connection's point."""
    out: dict[str, Point] = {}

    def add(*args):
        p = _point(params, *args)
        out.setdefault(p.id, p)

    def around_the_base(work, sp):
        if "pooled" in params["models"]:
            if "thread" in params["models"]:
                add(work, "thread", params["base_clients"], params["base_length"], None)
            for k in sorted(sp["pools"], reverse=True):
                add(work, "pooled", params["base_clients"], params["base_length"], k)
        for length in sp["lengths"]:
            for model in params["models"]:
                add(work, model, params["base_clients"], length, params["pool"])
    for work in params["work"]:
        sp = sweep_params(params, work)
        for n in sp["clients"]:
            for model in params["models"]:
                add(work, model, n, params["base_length"], params["pool"])
            if n == params["base_clients"]:
                around_the_base(work, sp)
        if params["base_clients"] not in sp["clients"]:
            around_the_base(work, sp)
    return list(out.values())


def _raise_limit(which: int, need: int, name: str, fix: str) -> dict:
    """Raises this process's soft limit (children inherit it) to `need`; StudyError when the hard
    limit is lower. Returns what was found and what is used."""
    soft, hard = resource.getrlimit(which)
    cap = math.inf if hard == resource.RLIM_INFINITY else hard
    if need > cap:
        raise StudyError(f"{name}: {need} needed for the largest point but the hard limit is {hard}; {fix}")
    used = soft
    if soft != resource.RLIM_INFINITY and soft < need:
        _limits_before.setdefault(which, (soft, hard))
        resource.setrlimit(which, (need, hard))
        used = need
    show = lambda v: "unlimited" if v == resource.RLIM_INFINITY else v   # noqa: E731
    return {"soft_before": show(soft), "soft_used": show(used), "hard": show(hard)}


def _read(path: str) -> str | None:
    with contextlib.suppress(OSError):
        return Path(path).read_text().strip()
    return None


def prepare(ctx) -> None:
    from testbed import build
    try:
        build.java()                # a no-op when servers.jar is up to date
    except build.BuildError as e:
        raise StudyError(f"building studies/servers failed: {str(e).splitlines()[0]}; see .testbed/build/maven.log")
    if not JAR.exists():
        raise StudyError(f"{JAR.relative_to(ROOT)} is missing after the build; run ./testbed build")
    p = ctx.params
    biggest = max(p["clients"] + sweep_params(p, "wait:1")["clients"] + [p["base_clients"]])
    threads = biggest + max([p["pool"]] + p["pools"] + sweep_params(p, "wait:1")["pools"])
    ctx.facts["nofile"] = _raise_limit(resource.RLIMIT_NOFILE, biggest + FD_HEADROOM, "open files (ulimit -n)",
                                       "raise it (ulimit -Hn, /etc/security/limits.conf) or use fewer clients")
    ctx.facts["nproc"] = _raise_limit(resource.RLIMIT_NPROC, threads + THREAD_HEADROOM,
                                      "processes/threads per user (ulimit -u)",
                                      "raise it (ulimit -Hu) or use fewer clients")
    ctx.facts["kernel"] = {"threads-max": _read("/proc/sys/kernel/threads-max"),
                           "somaxconn": _read("/proc/sys/net/core/somaxconn"),
                           "ip_local_port_range": _read("/proc/sys/net/ipv4/ip_local_port_range")}
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=STARTUP_S)
    ctx.facts["java"] = (java.stderr.splitlines() or ["?"])[0]
    ctx.facts["jvm_options"] = " ".join(p["jvm_options"])
    ctx.facts["client"] = "one thread, one NIO Selector over all connections (servers.jar client)"
    ctx.facts["server_figures"] = (f"the server's own JSON on exit: thread peaks exact, means sampled every "
                                   f"{p['sample_ms']} ms while a connection is open; RSS from /proc/self/status")


class JsonProcess:
    """A program of servers.jar in its own process group, talking JSON lines on stdout and
    reading control lines on stdin. Every wait has a deadline; kill() ends the whole group."""

    def __init__(self, what: str, argv: list[str], log: Path):
        self.what, self.log_path = what, log
        self.log = open(log, "w")
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                  start_new_session=True)
        self.buf = b""
        _live.append(self)

    def event(self, name: str, timeout: float) -> dict:
        end = time.monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                with contextlib.suppress(ValueError):
                    obj = json.loads(line)
                    if isinstance(obj, dict) and obj.get("event") == name:
                        return obj
            left = end - time.monotonic()
            if left <= 0:
                raise PointError(f"timeout: the {self.what} sent no '{name}' within {timeout:.0f} s; stopped")
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        self.p.wait(timeout=5)
                    raise PointError(f"the {self.what} exited {self.p.returncode} before '{name}': "
                                     f"{self.stderr_tail()}")
                self.buf += chunk

    def send(self, line: str) -> None:
        try:
            self.p.stdin.write(line.encode() + b"\n")
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise PointError(f"the {self.what} is gone ({self.stderr_tail()})") from None

    def close_input(self) -> None:
        with contextlib.suppress(BrokenPipeError, ValueError, OSError):
            self.p.stdin.close()

    def stderr_tail(self) -> str:
        self.log.flush()
        lines = [ln for ln in self.log_path.read_text(errors="replace").splitlines() if ln.strip()]
        return " | ".join(lines[-3:])[:400] or "no output on stderr"

    def kill(self) -> None:
        if self.p.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.p.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.p.wait(timeout=5)
        for f in (self.p.stdin, self.p.stdout, self.log):
            with contextlib.suppress(Exception):
                f.close()
        if self.log_path.exists() and self.log_path.stat().st_size == 0:
            self.log_path.unlink()
        with contextlib.suppress(ValueError):
            _live.remove(self)


def measure(ctx, point: Point, rep: int) -> dict:
    p, q = point.params, ctx.params
    java = ["java", *q["jvm_options"], "-jar", str(JAR)]
    deadline = q["deadline_s"]
    base = ctx.raw_dir / f"{point.id}-r{rep}"
    work_from = "reset" if q["warmup_messages"] else "start"      # the warm-up runs without the work
    server = JsonProcess("server", java + ["server", "--model", p["model"], "--pool", str(p["pool"] or 1),
                                           "--work", p["work"], "--work-from", work_from,
                                           "--deadline-s", str(deadline + STARTUP_S + STOP_S),
                                           "--sample-ms", str(q["sample_ms"])], base.with_suffix(".server.log"))
    try:
        port = server.event("listening", STARTUP_S)["port"]
        client = JsonProcess("client", java + ["client", "--port", str(port), "--connections", str(p["clients"]),
                                               "--messages", str(p["messages"]), "--length", str(p["length"]),
                                               "--warmup", str(q["warmup_messages"]), "--deadline-s", str(deadline)],
                             base.with_suffix(".client.log"))
        try:
            if q["warmup_messages"] > 0:
                warm = client.event("warm", deadline + STARTUP_S)
                if not warm.get("complete"):
                    raise PointError(f"warm-up failed: {warm.get('first_error') or 'incomplete'}")
                server.send("reset")
                server.event("reset", STOP_S)
                client.send("go")
            else:
                server.send("reset")
                server.event("reset", STOP_S)
            result = client.event("result", deadline + STARTUP_S)
        finally:
            client.kill()
        server.close_input()
        stats = server.event("stats", STOP_S)
    finally:
        server.kill()
    return _record(p, result, stats, warm if q["warmup_messages"] > 0 else None, deadline)


def _record(p: dict, result: dict, stats: dict, warm: dict | None, deadline: int) -> dict:
    if result.get("deadline_hit"):
        raise PointError(f"timeout: the client stopped at its deadline of {deadline} s after "
                         f"{result.get('verified')} of {result.get('expected')} messages")
    lat = result.get("latency_us") or {}
    data = {"model": p["model"], "pool": p["pool"], "clients": p["clients"], "messages": p["messages"],
            "length": p["length"], "work": p["work"],
            "completion_s": result.get("completion_s"), "exchange_s": result.get("exchange_s"),
            "connect_s": result.get("connect_s"), "messages_per_s": result.get("messages_per_s"),
            "latency_p50_us": lat.get("p50"), "latency_p99_us": lat.get("p99"), "latency_max_us": lat.get("max"),
            "verified": result.get("verified"), "expected": result.get("expected"),
            "warmup_s": (warm or {}).get("completion_s"),
            "server": {k: stats.get(k) for k in
                       ("threads_peak", "threads_mean", "busy_peak", "busy_mean", "connections_peak",
                        "os_threads_peak", "os_threads_mean", "rss_peak_kb", "rss_peak_source", "rss_mean_kb",
                        "samples", "messages", "bad_frames", "ownership_violations", "stopped_by")}}
    problems = []
    if not result.get("complete"):
        problems.append(f"client: {result.get('first_error') or 'not every reply verified'} "
                        f"({result.get('verified')} of {result.get('expected')} verified)")
    if stats.get("messages") != result.get("expected"):
        problems.append(f"server answered {stats.get('messages')} messages in the window, client sent "
                        f"{result.get('expected')}")
    if stats.get("ownership_violations"):
        problems.append(f"{stats['ownership_violations']} connection(s) handled by two workers at once")
    if stats.get("bad_frames"):
        problems.append(f"{stats['bad_frames']} bad frame(s) at the server")
    if problems:
        data.update(valid=False, invalid_reason="; ".join(problems))
    return data


def cleanup(ctx) -> None:
    for proc in list(_live):
        proc.kill()
    for which, limits in _limits_before.items():
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, limits)
    _limits_before.clear()


def describe(d: dict) -> str:
    s = d.get("server") or {}
    f = lambda v, form, scale=1: "?" if v is None else format(v / scale, form)   # noqa: E731
    busy = f", busy ≤ {s['busy_peak']}" if s.get("busy_peak") is not None else ""
    return (f"{f(d.get('completion_s'), '.3f')} s, {f(d.get('messages_per_s'), ',.0f')} msg/s, "
            f"p99 {f(d.get('latency_p99_us'), '.2f', 1000)} ms, threads {s.get('threads_peak', '?')}{busy}, "
            f"RSS {f(s.get('rss_peak_kb'), '.0f', 1024)} MiB")
