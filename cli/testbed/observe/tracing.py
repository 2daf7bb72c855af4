"""Tracing of the stack (docs/tracing.md): Zipkin, where every tier sends the spans of the
requests Locust sampled, in both modes, and in local mode the process that runs it.

Who records what (a W3C `traceparent` with the sampled flag starts a trace at Locust; nobody
else starts one, so an unsampled request costs the tiers nothing but a header look-up):
  locust        its client span (loadgen/trace_context.py), for --trace-sample of its requests
  haproxy       a span per entry (web, clones, soap) derived from its log line: HAProxy 2.6
                gives the request a span id of its own in the forwarded traceparent and logs
                its timings (%Tq/%Tw/%Tc/%Tr/%Ta, millisecond resolution); the relay
                (haproxy_spans.py, an HAProxy `program`) turns each line into a span
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
import sys
import urllib.error
import urllib.request
from pathlib import Path

from testbed import ROOT, procs
from testbed.config import StackConfig
from testbed.tiers import ZIPKIN_JAR

ZIPKIN_OFFSET, RELAY_OFFSET = 960, 961           # local: replica_port_base + these
DOCKER_ZIPKIN_PORT = 9411                        # the zipkin container's own port
DOCKER_ZIPKIN_URL = f"http://zipkin:{DOCKER_ZIPKIN_PORT}"
RELAY_PORT_IN_CONTAINER = 5140                   # the relay's UDP port inside the haproxy container
DEFAULT_MAX_SPANS = 200_000
# Zipkin's JVM: a small heap (spans in memory: ~1-2 KiB each at most ZIPKIN_MAX_SPANS), the
# serial collector and the client compiler: a collector on a 2-core machine beside the stack
# should take little CPU (it starts in ~10 s instead of ~30 s with C2)
ZIPKIN_JVM_FLAGS = ["-Xms64m", "-Xmx640m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-XX:+ExitOnOutOfMemoryError"]


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
# HAProxy: the lines that forward and log a sampled request, and the relay it runs
# ---------------------------------------------------------------------------------------
# Every entry frontend gets these when tracing is on. `traced`: a traceparent with the
# sampled flag; HAProxy gives the request a span id of its own (random, from a UUID), so the
# tier behind it is the child of HAProxy's span, and logs one line for it (and none for any
# other request: set-log-level silent) to the relay on loopback.
FRONTEND_LINES = """\
    # tracing (docs/tracing.md): a sampled request gets a span id of HAProxy's own in the
    # traceparent it forwards, and one log line with its timings for the span relay
    acl traced req.hdr(traceparent) -m reg ^00-[0-9a-f]{{32}}-[0-9a-f]{{16}}-[0-9a-f][13579bdf]$
    http-request set-var(txn.tp_trace) req.hdr(traceparent),field(2,-) if traced
    http-request set-var(txn.tp_parent) req.hdr(traceparent),field(3,-) if traced
    http-request set-var(txn.tp_span) uuid(4),regsub(-,,g),bytes(0,16) if traced
    http-request set-header traceparent 00-%[var(txn.tp_trace)]-%[var(txn.tp_span)]-01 if traced
    http-request set-log-level silent unless traced
    log 127.0.0.1:{port} len 2048 format raw local1 info
    log-format "{fmt}"
"""
# fields of a line, in order: haproxy_spans.FIELDS reads them back
LOG_FORMAT = ("tp %[var(txn.tp_trace)] %[var(txn.tp_parent)] %[var(txn.tp_span)] %Ts.%ms %Th %Ti %TR %Tw "
              "%Tc %Tr %Ta %ST %f %b %s %HM %{+Q}HU")


def haproxy_frontend_lines(relay_port: int) -> str:
    return FRONTEND_LINES.format(port=relay_port, fmt=LOG_FORMAT)


def haproxy_relay_program(relay_port: int, zipkin_url: str, python: str = "python3",
                          env: dict[str, str] | None = None) -> str:
    """The relay as a `program` of HAProxy's master: it starts and stops with HAProxy. A reload
    (scaling) sends the old one SIGUSR1, then starts a new one: the old one receives until the new
    one has bound the UDP port beside it (SO_REUSEPORT), then sends what it has and exits
    (haproxy_spans.Handover) -- no line is lost in between."""
    prefix = "env " + " ".join(f"{k}={v}" for k, v in (env or {}).items()) + " " if env else ""
    return (f"\n# the span relay (docs/tracing.md): HAProxy's log lines of sampled requests -> spans in Zipkin\n"
            f"program trace-relay\n"
            f"    command {prefix}{python} -m testbed.haproxy.spans --listen 127.0.0.1:{relay_port} "
            f"--zipkin {zipkin_url}\n")


# ---------------------------------------------------------------------------------------
# Local mode
# ---------------------------------------------------------------------------------------
def zipkin_port(cfg: StackConfig) -> int:
    return cfg.replica_port_base + ZIPKIN_OFFSET


def relay_port(cfg: StackConfig) -> int:
    return cfg.replica_port_base + RELAY_OFFSET


def local_url(cfg: StackConfig) -> str:
    """Where the tiers, Locust and the relay send spans in local mode (Zipkin on loopback)."""
    return f"http://127.0.0.1:{zipkin_port(cfg)}"


def local_server(cfg: StackConfig) -> str:
    """HAProxy's zipkin_ui backend: the local Zipkin (answers 503 while it does not run)."""
    return f"    server zipkin 127.0.0.1:{zipkin_port(cfg)}  # up --tracing"


def local_haproxy(cfg: StackConfig) -> tuple[str, str]:
    """haproxy.render's `trace` in local mode: the relay runs with this Python and package."""
    return (haproxy_frontend_lines(relay_port(cfg)),
            haproxy_relay_program(relay_port(cfg), local_url(cfg), python=sys.executable,
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
# Zipkin's API (what the runner and the tests read)
# ---------------------------------------------------------------------------------------
def post_spans(endpoint: str, spans: list[dict], timeout: float = 5.0) -> None:
    """POST a batch of Zipkin v2 spans (JSON) to endpoint (…/api/v2/spans); OSError when it fails.
    The span senders use it: Locust (loadgen/trace_context.py) and HAProxy's relay."""
    req = urllib.request.Request(endpoint, data=json.dumps(spans, separators=(",", ":")).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
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
