"""HAProxy's configuration: services/haproxy/haproxy.cfg.in rendered for a local stack (one
server line per replica) or for the haproxy container (a server-template per tier, filled by
Docker's DNS), the UIs' credentials and the limits each backend's servers get. Driving a running
HAProxy is haproxy/runtime.py's."""
from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

from testbed import ROOT
from testbed.config import StackConfig
from testbed.stack import StackError

TEMPLATE = ROOT / "services" / "haproxy" / "haproxy.cfg.in"
BACKENDS = ("front", "clone", "axis", "gsoap")
_PLACEHOLDER = re.compile(r"@([A-Z_a-z]+)@")


class HaproxyError(StackError):
    """HAProxy refused a config, or a config cannot be made as asked; the text names the fix."""


def server_maxconn(tier: str, knobs: dict[str, str]) -> int:
    """What one replica can work on at once (see the template's tier heading)."""
    if tier == "gsoap":
        model = knobs.get("GSOAP_SERVER_MODEL", "pool")
        if model == "iterative":
            return 1
        if model == "pool":
            # the pool's workers serve requests, not connections (an idle keep-alive
            # connection holds no worker), so a health check always gets through
            return max(1, int(knobs.get("GSOAP_POOL_SIZE", "16")))
        return 256
    prefix = tier.upper() + "_"
    return int(knobs.get(prefix + "TOMCAT_MAX_THREADS", "200"))


def gsoap_options(knobs: dict[str, str]) -> str:
    if knobs.get("GSOAP_SERVER_MODEL", "pool") == "iterative":
        return ("    # iterative model: one connection at a time, so HAProxy must not keep it\n"
                "    # open between requests or the health check could never get through\n"
                "    option http-server-close")
    return ""


def local_servers(tier: str, replicas: list[tuple[int, int]], knobs: dict[str, str]) -> str:
    """replicas: [(index, port)] -> one server line each."""
    mc = server_maxconn(tier, knobs)
    # disabled: in maintenance until the CLI has seen the replica healthy and sets it ready
    # (a reload keeps a ready server ready: the server-state file wins over `disabled`)
    return "\n".join(f"    server {tier}{i} 127.0.0.1:{port} check disabled maxconn {mc}"
                     for i, port in replicas)


# Docker mode (docker-compose.yml, Swarm): HAProxy listens on fixed container ports (compose
# publishes them on the host), and each tier is a server-template whose slots are filled
# by Docker's DNS with the address of every running replica, so scaling needs no reload.
DOCKER_PORTS = {"web_port": 8080, "clones_port": 8081, "soap_port": 8082, "stats_port": 8404,
                "bound_port": 8088, "locust_port": 8089, "prometheus_port": 8090, "zipkin_port": 8091}
DOCKER_LOCUST_PORT = 8089           # the locust-master container's web UI
DOCKER_PROMETHEUS_PORT = 9090       # the prometheus container's (monitoring profile)
DOCKER_ZIPKIN_PORT = 9411           # the zipkin container's (tracing profile)
DOCKER_TIER_PORT = 8080             # every tier's PORT inside its container
DOCKER_STATE_DIR = Path("/run/haproxy")   # stats socket, server-state file, the rendered config
DOCKER_RESOLVERS = """\
# ---------------------------------------------------------------------------------------
# Service discovery (containers). Docker's embedded DNS answers a service name with the
# address of every running replica (compose; Swarm with endpoint_mode dnsrr), and each
# tier's server-template takes one slot per address: `--scale clone=4` needs no edit.
# ---------------------------------------------------------------------------------------

resolvers docker
    nameserver dns 127.0.0.11:53
    accepted_payload_size 8192 # one answer carries every replica
    resolve_retries 3
    timeout resolve 1s
    timeout retry 1s
    hold valid 1s              # ask again every second: a new replica is seen within ~1 s
    hold obsolete 5s           # a replica gone from the answer (scaled down) keeps its slot 5 s: its
                               # health check marks it DOWN first, requests in flight finish
    hold nx 1s                 # a tier scaled to 0 has no name; keep asking
    hold other 1s
    hold refused 1s
    hold timeout 1s
"""


DOCKER_GATE = f"""
# The readiness gate: every slot starts in maintenance (`disabled` below); when Docker's DNS
# gives a slot a replica's address, the gate (cli/testbed/haproxy/gate.py) probes the
# replica's /health itself and puts the slot in rotation once it answers 200, and it puts a
# slot whose replica left back in maintenance for the next one. HAProxy's master runs and
# supervises it.
program readiness-gate
    command python3 -m testbed.haproxy.gate {DOCKER_STATE_DIR}/haproxy.sock
"""


def docker_servers(tier: str, knobs: dict[str, str]) -> str:
    """One server-template per tier: up to MAX_REPLICAS servers named <tier>1, <tier>2 ..."""
    from testbed.tiers import MAX_REPLICAS
    # disabled: a slot stays in maintenance until the readiness gate (haproxy_gate.py) has
    # seen its replica healthy, so a replica that is still starting is never marked DOWN
    return (f"    server-template {tier} 1-{MAX_REPLICAS} {tier}:{DOCKER_TIER_PORT} check disabled"
            f" resolvers docker resolve-prefer ipv4 init-addr none maxconn {server_maxconn(tier, knobs)}")


def docker_tracing(knobs: dict[str, str]) -> bool:
    """Tracing in the containers: on when the zipkin service runs (compose's profile "tracing":
    its name resolves), unless TRACING=0 (testbed/observe/tracing.py)."""
    if knobs.get("TRACING", "auto") == "0":
        return False
    try:
        socket.getaddrinfo("zipkin", None)
    except OSError:
        return False
    return True


def render_docker(knobs: dict[str, str], tracing: bool | None = None) -> str:
    """The config of the haproxy container, from its environment (the knobs compose hands
    over from .env); rendered at container start by services/haproxy/entrypoint.py.
    tracing: None = docker_tracing(knobs)."""
    from testbed.observe import tracing as tr
    if tracing is None:
        tracing = docker_tracing(knobs)
    trace = tr.docker_haproxy(knobs) if tracing else ("", "")
    # the published ports listen on the host's BIND_ADDRESS (compose) or everywhere (Swarm):
    # that, not the container's 0.0.0.0, decides whether the UIs need credentials
    cfg = StackConfig(bind="0.0.0.0", state_dir=DOCKER_STATE_DIR, knobs=dict(knobs), **DOCKER_PORTS)
    return render(cfg, {b: docker_servers(b, cfg.knobs) for b in BACKENDS},
                  resolvers=DOCKER_RESOLVERS + DOCKER_GATE,
                  locust_server=f"    server locust locust-master:{DOCKER_LOCUST_PORT} resolvers docker "
                                "resolve-prefer ipv4 init-addr none",
                  prometheus_server=f"    server prometheus prometheus:{DOCKER_PROMETHEUS_PORT} resolvers docker "
                                    "resolve-prefer ipv4 init-addr none",
                  zipkin_server=f"    server zipkin zipkin:{DOCKER_ZIPKIN_PORT} resolvers docker "
                                "resolve-prefer ipv4 init-addr none",
                  published_on=knobs.get("PUBLISHED_ON") or "0.0.0.0", trace=trace)


OWN_SERVER = re.compile(r"^[A-Za-z0-9.-]{1,253}:\d{1,5}$")


def own_server(knobs: dict[str, str]) -> str:
    """The backend "own"'s lines: the user's service at OWN_SERVER (host:port: ./testbed up --service,
    ownservice/wiring.py), or none (the backend answers 503)."""
    at = (knobs.get("OWN_SERVER") or "").strip()
    if not at:
        return ""
    if not OWN_SERVER.match(at) or not 1 <= int(at.rsplit(":", 1)[1]) <= 65535:
        raise HaproxyError(f"OWN_SERVER={at!r}: expected host:port, like 127.0.0.1:8000")
    return (f"    http-request set-header Host {at}\n"
            f"    server own1 {at} check")


def global_maxconn() -> int:
    """8000 connections, or what the open-files limit allows (HAProxy needs 2 fds each)."""
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY:
        return 8000
    return max(256, min(8000, (hard - 200) // 2))


LOOPBACK = re.compile(r"^(127\.\d+\.\d+\.\d+|::1|localhost)$")


def exposed(bind: str) -> bool:
    """Does HAProxy listen beyond this machine (BIND_ADDRESS not a loopback address)?"""
    return not LOOPBACK.match(bind or "")


_PLAIN_WORD = re.compile(r"^[A-Za-z0-9._~+/=@%:,-]+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
PASSWORD_MAX = 256


def word(value: str, name: str) -> str:
    """value as one word of HAProxy's configuration that HAProxy reads back exactly: as it is
    when nothing in it is special, else in single quotes, inside which HAProxy 2.6 takes every
    character literally (no \\ escape, no $VAR expansion, no # comment, spaces kept), each '
    written as '\\'' (close, an escaped quote, reopen: one word). A control character (a
    newline ends the line whatever the quoting) is refused: HaproxyError naming `name`."""
    if _CONTROL.search(value):
        raise HaproxyError(f"{name}: contains a control character (a newline, a tab ...), which HAProxy's "
                           "configuration cannot hold; use printable characters only")
    if _PLAIN_WORD.match(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def ui_auth(knobs: dict[str, str], bind: str) -> tuple[str, str]:
    """(userlist section, the rule each UI frontend gets): credentials from UI_USER and
    UI_PASSWORD; none when no password is set, which only a loopback bind allows. The
    password is written as one quoted word (word()): any printable ASCII character, the
    space, # \\ ' " $ { included, authenticates as typed."""
    user, password = knobs.get("UI_USER") or "testbed", knobs.get("UI_PASSWORD") or ""
    if not password:
        if exposed(bind):
            raise HaproxyError(f"BIND_ADDRESS={bind} exposes HAProxy's stats page and the Locust UI beyond "
                               "this machine: set UI_PASSWORD (and UI_USER, default testbed) in .env or the "
                               "environment, or keep BIND_ADDRESS=127.0.0.1")
        return "", ""
    if not re.match(r"^[A-Za-z0-9._-]+$", user):
        raise HaproxyError(f"UI_USER={user!r}: letters, digits, . _ - only")
    if not re.match(r"^[\x20-\x7e]+$", password) or len(password) > PASSWORD_MAX:
        raise HaproxyError(f"UI_PASSWORD: printable ASCII characters only (letters, digits, punctuation, spaces; "
                           f"no control characters, no accents: browsers encode those differently), at most "
                           f"{PASSWORD_MAX}; in .env put it in single quotes when it holds # $ or spaces")
    return (f"userlist ui_users\n    user {user} insecure-password {word(password, 'UI_PASSWORD')}\n",
            "    http-request auth realm testbed unless { http_auth(ui_users) }  # UI_USER/UI_PASSWORD")


def queue_timeout(knobs: dict[str, str]) -> int:
    """HAPROXY_QUEUE_TIMEOUT_S: how long a request may wait in a backend's queue (then 503)."""
    raw = knobs.get("HAPROXY_QUEUE_TIMEOUT_S") or "30"
    if not raw.isdigit() or not 1 <= int(raw) <= 3600:
        raise HaproxyError(f"HAPROXY_QUEUE_TIMEOUT_S={raw!r}: expected whole seconds, 1..3600")
    return int(raw)


def render(cfg: StackConfig, servers: dict[str, str], global_extra: str = "",
           resolvers: str = "", locust_server: str = "", published_on: str | None = None,
           prometheus_server: str = "", zipkin_server: str = "", trace: tuple[str, str] = ("", "")) -> str:
    """published_on: where the entry points are reachable when that is not cfg.bind (a
    container listens on 0.0.0.0 and is published on the host's BIND_ADDRESS, or everywhere).
    trace: with tracing on, (the entry frontends' lines, the rate table and the span relay's program
    section) (tracing.py); ("", "") renders the config without tracing."""
    userlist, auth = ui_auth(cfg.knobs, published_on or cfg.bind)
    if not re.match(r"^[A-Za-z0-9.:\[\]-]*$", cfg.bind):
        raise HaproxyError(f"BIND_ADDRESS={cfg.bind!r}: expected an IP address (127.0.0.1, 0.0.0.0, ::) or a host name")
    if "$" in str(cfg.state_dir):     # HAProxy expands $VAR in a socket's address, even when quoted
        raise HaproxyError(f"TESTBED_STATE_DIR={str(cfg.state_dir)!r}: HAProxy's stats socket lives there and "
                           "HAProxy reads $ in a socket's path as a variable; choose a folder without $")
    values = {
        "MAXCONN": global_maxconn(),
        "BIND": cfg.bind, "WEB_PORT": cfg.web_port, "CLONES_PORT": cfg.clones_port,
        "SOAP_PORT": cfg.soap_port, "STATS_PORT": cfg.stats_port, "BOUND_PORT": cfg.bound_port,
        "STATE_DIR": word(str(cfg.state_dir), "TESTBED_STATE_DIR"), "GLOBAL_EXTRA": global_extra,
        "GSOAP_OPTIONS": gsoap_options(cfg.knobs), "RESOLVERS": resolvers,
        "LOCUST_PORT": cfg.locust_port, "USERLIST": userlist, "UI_AUTH": auth,
        "LOCUST_SERVER": locust_server, "QUEUE_TIMEOUT": queue_timeout(cfg.knobs),
        "PROMETHEUS_PORT": cfg.prometheus_port, "PROMETHEUS_SERVER": prometheus_server,
        "ZIPKIN_PORT": cfg.zipkin_port, "ZIPKIN_SERVER": zipkin_server,
        "TRACE": trace[0].rstrip("\n"), "TRACE_PROGRAM": trace[1],
    }
    for b in BACKENDS:
        values[f"SERVERS_{b}"] = servers.get(b, "")
    values["SERVERS_own"] = own_server(cfg.knobs)

    def sub(m: re.Match) -> str:
        if m.group(1) not in values:
            raise HaproxyError(f"{TEMPLATE}: unknown placeholder @{m.group(1)}@")
        return str(values[m.group(1)])

    return _PLACEHOLDER.sub(sub, TEMPLATE.read_text())


def check(path: Path) -> None:
    r = subprocess.run(["haproxy", "-c", "-q", "-f", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        raise HaproxyError(f"HAProxy rejected {path}:\n{(r.stdout + r.stderr).strip()}")
