"""Tracing of the stack (docs/tracing.md): Zipkin, where every tier sends the spans of the
requests Locust sampled, in both modes, and in local mode the process that runs it.

Who records what (a W3C `traceparent` with the sampled flag starts a trace at Locust; nobody
else starts one, so an unsampled request costs the tiers nothing but a header look-up):
  locust        its client span (loadgen/trace_context.py), for --trace-sample of its requests
  haproxy       a span per entry (web, clones, soap) derived from its log line: HAProxy 2.6
                checks the traceparent (FRONTEND_LINES: one header, W3C level 1, else a new
                unsampled context), gives a sampled request a span id of its own in the
                forwarded traceparent and logs its timings (%Tq/%Tw/%Tc/%Tr/%Ta, millisecond
                resolution) to Unix sockets; the relay (haproxy/spans.py, an HAProxy
                `program`) turns each line into a span
  front, clone, axis  their own spans (java-common's org.soaptestbed.common.trace, switched on
                by java-common/bin/java-tier): a server span per request (a servlet filter),
                the front's segments ③ ④ ⑤ and its call to the client tier, the clone's SOAP
                call (its traceparent set by an interceptor of Axis2's HttpClient 5)
  gsoap         its own server span with parse / operation / serialize children
                (services/gsoap/src/tracing.cpp)
The tiers learn where Zipkin is from ZIPKIN_URL; tracing is on when it is set and its host
resolves, unless TRACING=0.

Where Zipkin runs:
  containers  the `zipkin` service of docker-compose.tracing.yml, under compose's profile
              "tracing" (docker-compose.override.yml); every service has
              ZIPKIN_URL=http://zipkin:9411, which resolves only while the profile runs
  local       `./testbed up --tracing`: Zipkin's server jar (services/zipkin, from Maven
              Central) on loopback at replica_port_base + 960
People reach its UI through HAProxy's zipkin entry (ZIPKIN_PORT, default 9411, on
BIND_ADDRESS, credentials as the stats page when UI_PASSWORD is set).
Zipkin keeps spans in memory, at most ZIPKIN_MAX_SPANS (the oldest traces go first); the
experiment runner copies each run's spans into its result folder (run/record/traces.py).
"""
from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path

from testbed import ROOT, procs
from testbed.config import StackConfig
from testbed.tiers import ZIPKIN_JAR

ZIPKIN_OFFSET = 960                              # local: replica_port_base + this
DOCKER_ZIPKIN_PORT = 9411                        # the zipkin container's own port
DOCKER_ZIPKIN_URL = f"http://zipkin:{DOCKER_ZIPKIN_PORT}"
RELAY_SOCKET_IN_CONTAINER = "/run/haproxy/trace-relay/spans.sock"    # the relay's, in the haproxy container
# Zipkin's JVM: a small heap, the serial collector and the client compiler: a collector on a
# 2-core machine beside the stack should take little CPU (it starts in ~10 s instead of ~30 s
# with C2); out of memory it exits (and is started again: compose's restart policy).
ZIPKIN_HEAP_MIB = 640
ZIPKIN_JVM_FLAGS = ["-Xms64m", f"-Xmx{ZIPKIN_HEAP_MIB}m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-XX:+ExitOnOutOfMemoryError"]
# Its spans are bounded in bytes at every producer (2048 bytes of JSON: haproxy/spanline.py,
# java-common's SpanBounds), and one such span takes at most ~4.0 KB of Zipkin's heap (measured:
# tests/hostile_observability/zipkin_memory_bench.py), so the default count keeps spans of the
# largest size within 60 % of the heap: 100,000 x 4.0 KB = 400 MB of 640 MiB (docs/tracing.md).
ZIPKIN_HEAP_BYTES_PER_SPAN = 4_000
DEFAULT_MAX_SPANS = 100_000


class TracingError(RuntimeError):
    """Tracing cannot run as asked; the text names the fix."""


def max_spans(knobs: dict[str, str]) -> int:
    raw = knobs.get("ZIPKIN_MAX_SPANS") or str(DEFAULT_MAX_SPANS)
    if not raw.isdigit() or not 1000 <= int(raw) <= 5_000_000:
        raise TracingError(f"ZIPKIN_MAX_SPANS={raw!r}: expected a whole number of spans, 1000..5000000")
    return int(raw)


def zipkin_args(port: int, bind: str) -> list[str]:
    """Zipkin's command-line settings: listen on bind:port only (Armeria's first port)."""
    return [f"--armeria.ports[0].ip={bind}", f"--armeria.ports[0].port={port}",
            "--armeria.ports[0].protocols[0]=http"]


# ---------------------------------------------------------------------------------------
# HAProxy: the rule on a request's trace context, the lines that forward and log a sampled
# request, and the relay it runs
# ---------------------------------------------------------------------------------------
# Every entry frontend gets these when tracing is on. HAProxy takes a trace context only when the
# request has exactly one `traceparent` header whose whole value (no comma splitting) is W3C
# Trace Context level 1: version 00, lower-case hex, 32/16/2 digits, neither id all zeros; it is
# sampled when bit 0 of the flags is set. Anything else present -- a second header, a list, any
# other spelling -- is never forwarded: it and tracestate are removed and the request gets a new,
# unsampled context. A valid unsampled context passes unchanged. A sampled one is traced while
# the traced requests of all entries together stay within TRACE_MAX_RATE a second (a stick
# table's rate): HAProxy gives it a span id of its own (random, from a UUID), so the tier behind
# it is the child of HAProxy's span, and logs one line for it, built from the value it checked,
# to the span relay's Unix sockets (and none for any other request: set-log-level silent). Over
# the rate, it is forwarded with the sampled flag cleared, and not logged.
FRONTEND_LINES = """\
    # tracing (docs/tracing.md): one traceparent, W3C level 1, or a new unsampled context; a sampled
    # request within TRACE_MAX_RATE gets a span id of HAProxy's own and one log line for the span relay
    acl tp_any req.fhdr_cnt(traceparent) gt 0
    acl tp_one req.fhdr_cnt(traceparent) eq 1
    acl tp_form req.fhdr(traceparent) -m reg ^00-[0-9a-f]{{32}}-[0-9a-f]{{16}}-[0-9a-f]{{2}}$
    acl tp_zero req.fhdr(traceparent) -m reg ^00-(0{{32}}|[0-9a-f]{{32}}-0{{16}})-
    acl tp_valid var(txn.tp) -m found
    acl tp_bad var(txn.tp_bad) -m bool
    acl tp_sampled var(txn.tp_sampled) -m bool
    acl tp_within sc2_http_req_rate le {max_rate}
    acl traced var(txn.tp_trace) -m found
    http-request set-var(txn.tp) req.fhdr(traceparent) if tp_one tp_form !tp_zero
    http-request set-var(txn.tp_bad) bool(1) if tp_any !tp_valid
    http-request del-header tracestate if tp_bad
    http-request set-header traceparent 00-%[uuid(4),regsub(-,,g)]-%[uuid(4),regsub(-,,g),bytes(0,16)]-00 if tp_bad
    http-request set-var(txn.tp_sampled) bool(1) if {{ var(txn.tp) -m reg [13579bdf]$ }}
    http-request track-sc2 int(1) table trace_rate if tp_sampled
    http-request set-var(txn.tp_trace) var(txn.tp),field(2,-) if tp_sampled tp_within
    http-request set-var(txn.tp_parent) var(txn.tp),field(3,-) if traced
    http-request set-var(txn.tp_span) uuid(4),regsub(-,,g),bytes(0,16) if traced
    http-request set-header traceparent 00-%[var(txn.tp_trace)]-%[var(txn.tp_span)]-01 if traced
    http-request set-header traceparent 00-%[var(txn.tp),field(2,-)]-%[var(txn.tp),field(3,-)]-00 if tp_sampled !traced
    http-request set-log-level silent unless traced
{log_lines}
    log-format "{fmt}"
"""
# fields of a line, in order: haproxy/spanline.py's FIELDS reads them back
LOG_LINE_MAX = 2048            # bytes of a line at most (HAProxy cuts it there)
LOG_FORMAT = ("tp %[var(txn.tp_trace)] %[var(txn.tp_parent)] %[var(txn.tp_span)] %Ts.%ms %Th %Ti %TR %Tw "
              "%Tc %Tr %Ta %ST %f %b %s %HM %{+Q}HU")
# the rate of traced requests over every entry frontend: one entry, tracked by each traced request
RATE_TABLE = """
# the traced requests of every entry together (tracing, docs/tracing.md): at most TRACE_MAX_RATE a second
backend trace_rate
    stick-table type integer size 1 expire 10s store http_req_rate(1s)
"""
DEFAULT_TRACE_MAX_RATE = 10_000
RELAY_SOCKETS = 4              # the relay's sockets, HAProxy's lines dealt out to them in turn


def trace_max_rate(knobs: dict[str, str]) -> int:
    """TRACE_MAX_RATE: sampled requests a second HAProxy traces, its entries together."""
    raw = (knobs.get("TRACE_MAX_RATE") or str(DEFAULT_TRACE_MAX_RATE)).strip()
    if not raw.isdigit() or not 1 <= int(raw) <= 1_000_000:
        raise TracingError(f"TRACE_MAX_RATE={raw!r}: expected a whole number of traced requests a second, 1..1000000")
    return int(raw)


def relay_paths(socket_path: str | Path, sockets: int = RELAY_SOCKETS) -> list[Path]:
    """The relay's sockets: the path itself when one, else <stem>-1<suffix> ... <stem>-N<suffix>."""
    path = Path(socket_path)
    if sockets == 1:
        return [path]
    return [path.with_name(f"{path.stem}-{i}{path.suffix}") for i in range(1, sockets + 1)]


def haproxy_frontend_lines(socket_path: str | Path, max_rate: int) -> str:
    """An entry's tracing lines; HAProxy deals its log lines out to the relay's sockets in turn
    (`sample i:N`): each socket's queue holds only a few (net.unix.max_dgram_qlen)."""
    paths = relay_paths(socket_path)
    logs = "\n".join(f"    log {p} len {LOG_LINE_MAX} format raw sample {i}:{len(paths)} local1 info"
                     for i, p in enumerate(paths, 1))
    return FRONTEND_LINES.format(log_lines=logs, max_rate=max_rate, fmt=LOG_FORMAT)


def haproxy_relay_program(socket_path: str | Path, zipkin_url: str, python: str = "python3",
                          env: dict[str, str] | None = None) -> str:
    """The rate table, and the relay as a `program` of HAProxy's master: it starts and stops with
    HAProxy, through the keeper that starts it again should it die (haproxy/keeper.py). A reload
    (scaling) sends the old one SIGUSR1, then starts a new one: the old one receives until the new
    one has renamed its sockets onto the paths, then sends what it has and exits (haproxy/spans.py,
    Handover) -- no line is lost in between."""
    prefix = "env " + " ".join(f"{k}={v}" for k, v in (env or {}).items()) + " " if env else ""
    return (f"{RATE_TABLE}\n# the span relay (docs/tracing.md): HAProxy's log lines of sampled requests -> spans\n"
            f"program trace-relay\n"
            f"    command {prefix}{python} -m testbed.haproxy.keeper -- {python} -m testbed.haproxy.spans "
            f"--socket {socket_path} --sockets {RELAY_SOCKETS} --zipkin {zipkin_url}\n")


def docker_haproxy(knobs: dict[str, str]) -> tuple[str, str]:
    """haproxy.render's `trace` in the haproxy container: the relay's socket in its state folder."""
    return (haproxy_frontend_lines(RELAY_SOCKET_IN_CONTAINER, trace_max_rate(knobs)),
            haproxy_relay_program(RELAY_SOCKET_IN_CONTAINER, DOCKER_ZIPKIN_URL))


# ---------------------------------------------------------------------------------------
# Local mode
# ---------------------------------------------------------------------------------------
def zipkin_port(cfg: StackConfig) -> int:
    return cfg.replica_port_base + ZIPKIN_OFFSET


def relay_socket(cfg: StackConfig) -> Path:
    """The span relay's socket (tracing.relay_paths: its sockets), in a folder of the stack's state
    folder that only this user may enter."""
    path = cfg.state_dir / "trace-relay" / "spans.sock"
    if max(len(os.fsencode(p)) for p in relay_paths(path)) > 107:
        raise TracingError(f"{path}: too long for a Unix socket (107 bytes); move the state folder with "
                           "TESTBED_STATE_DIR=<a shorter path>")
    return path


def local_url(cfg: StackConfig) -> str:
    """Where the tiers, Locust and the relay send spans in local mode (Zipkin on loopback)."""
    return f"http://127.0.0.1:{zipkin_port(cfg)}"


def local_server(cfg: StackConfig) -> str:
    """HAProxy's zipkin_ui backend: the local Zipkin (answers 503 while it does not run)."""
    return f"    server zipkin 127.0.0.1:{zipkin_port(cfg)}  # up --tracing"


# what the relay's `command` line may hold unquoted: HAProxy splits it at spaces and reads # \ ' " $
_PLAIN_PATH = re.compile(r"^[A-Za-z0-9._/+@%:,=~-]+$")


def local_haproxy(cfg: StackConfig) -> tuple[str, str]:
    """haproxy.render's `trace` in local mode: the relay runs with this Python and package. The
    paths go into HAProxy's `program` line as words: one HAProxy would split or expand is refused,
    naming the fix (TracingError)."""
    paths = {"this Python (the checkout's .venv)": sys.executable, "the checkout": str(ROOT / "cli"),
             "the state folder (TESTBED_STATE_DIR)": str(relay_socket(cfg))}
    for what, path in paths.items():
        if not _PLAIN_PATH.match(path):
            raise TracingError(f"--tracing: the path of {what}, {path!r}, holds a character HAProxy's "
                               "configuration reads specially (a space, # \\ ' \" $ ...); move it to a path "
                               "of letters, digits and . _ - / only")
    return (haproxy_frontend_lines(relay_socket(cfg), trace_max_rate(cfg.knobs)),
            haproxy_relay_program(relay_socket(cfg), local_url(cfg), python=sys.executable,
                                  env={"PYTHONPATH": str(ROOT / "cli")}))


def start(cfg: StackConfig, log_dir: Path) -> dict:
    """Zipkin as a local process on loopback; {"zipkin": Proc}."""
    if not ZIPKIN_JAR.exists():
        raise TracingError(f"{ZIPKIN_JAR.relative_to(ROOT)} not built: ./testbed build (Maven fetches Zipkin's "
                           "server jar), or start without --tracing")
    port = zipkin_port(cfg)
    if not procs.port_free(port):
        raise TracingError(f"port {port} (Zipkin) is in use by another program; free it or move the replica "
                           "ports with TESTBED_REPLICA_PORT_BASE=<port>")
    env = {"MEM_MAX_SPANS": str(max_spans(cfg.knobs)), "STORAGE_TYPE": "mem"}
    zipkin = procs.start("zipkin", ["java", *ZIPKIN_JVM_FLAGS, "-jar", str(ZIPKIN_JAR),
                                    *zipkin_args(port, "127.0.0.1")],
                         log_dir / "zipkin.log", env=env, port=port, cwd=ROOT, cpus=cfg.stack_cpus)
    return {"zipkin": zipkin}


def wait(tr: dict, cfg: StackConfig, timeout: float = 120) -> None:
    procs.wait_healthy(tr["zipkin"], f"{local_url(cfg)}/health", timeout)


def all_procs(tr: dict | None) -> list[procs.Proc]:
    return [tr[k] for k in ("zipkin",) if tr and tr.get(k)]


def to_dict(tr: dict | None) -> dict | None:
    return {k: p.to_dict() for k, p in tr.items()} if tr else None


def from_dict(d: dict | None) -> dict | None:
    return {k: procs.Proc.from_dict(p) for k, p in d.items()} if d else None


# ---------------------------------------------------------------------------------------
# A span's bounds in bytes, as every producer keeps them (java-common's SpanBounds): the Python
# ones -- HAProxy's span relay (haproxy/spanline.py) and Locust (loadgen/trace_context.py) -- clip here
# ---------------------------------------------------------------------------------------
NAME_MAX, KEY_MAX, VALUE_MAX, SPAN_MAX_BYTES = 128, 64, 256, 2048
MARK = "...[truncated]"                  # what a clipped text ends with


def json_bytes(text: str) -> int:
    """Bytes of text inside a JSON string as Zipkin keeps it: UTF-8, a quote or backslash 2, a
    control character at most 6."""
    return sum(_json_cost(ch) for ch in text)


def _json_cost(ch: str) -> int:
    if ch in '"\\':
        return 2
    return 6 if ord(ch) < 0x20 else len(ch.encode("utf-8", "replace"))


def clip(text: str, limit: int) -> str:
    """text when it fits in limit bytes (json_bytes), else its longest prefix that fits with MARK."""
    if len(text) * 6 <= limit or json_bytes(text) <= limit:
        return text
    room, used = limit - len(MARK), 0
    for i, ch in enumerate(text):
        used += _json_cost(ch)
        if used > room:
            return text[:i] + MARK
    return text


# ---------------------------------------------------------------------------------------
# Zipkin's API (what the runner and the tests read)
# ---------------------------------------------------------------------------------------
def post_spans(endpoint: str, spans: list[dict], timeout: float = 5.0) -> None:
    """POST a batch of Zipkin v2 spans (JSON) to endpoint (…/api/v2/spans); OSError when it fails.
    Locust's span sender uses it (loadgen/trace_context.py)."""
    post_json(endpoint, json.dumps(spans, separators=(",", ":")).encode(), timeout)


def post_json(endpoint: str, data: bytes, timeout: float = 5.0) -> None:
    """POST a JSON body (a batch of spans already encoded: HAProxy's relay); OSError when it fails,
    urllib.error.HTTPError (an OSError) with Zipkin's status when it answers one."""
    req = urllib.request.Request(endpoint, data=data, method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        r.read()


def get_json(url: str, timeout: float = 30.0, headers: dict[str, str] | None = None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def trace(base: str, trace_id: str, timeout: float = 10.0) -> list[dict]:
    """The spans of one trace ([] when Zipkin has none of it yet)."""
    try:
        return get_json(f"{base.rstrip('/')}/api/v2/trace/{trace_id}", timeout)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return []
        raise
