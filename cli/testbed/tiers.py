"""How each tier of the stack is launched as a local process: the one place that knows
binaries, jars, ports and the environment each tier reads (docs/tiers.md)."""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from testbed import ROOT

BUILD_DIR = ROOT / "build"
GSOAP_SERVER = BUILD_DIR / "services" / "gsoap" / "tb-gsoap-server"
GSOAP_CLIENT = BUILD_DIR / "services" / "gsoap" / "tb-gsoap-client"
CONTRACT_JAR = ROOT / "services" / "contract" / "target" / "contract.jar"

# How every Java tier starts, here and in its image: its JVM flags and JVM agents (the
# Prometheus JMX exporter) live in this one script (java-common/bin/java-tier).
JAVA_LAUNCHER = ROOT / "java-common" / "bin" / "java-tier"
AGENTS_DIR = ROOT / "java-common" / "target" / "agents"
JMX_AGENT = AGENTS_DIR / "jmx_prometheus_javaagent.jar"
ZIPKIN_JAR = ROOT / "services" / "zipkin" / "target" / "zipkin.jar"   # tracing's backend (tracing.py)
# A Java replica's metrics (the JMX exporter agent) listen on its port + this; gSOAP serves
# GET /metrics on its own port. In containers the agent listens on DOCKER_METRICS_PORT.
METRICS_PORT_OFFSET = 50
DOCKER_METRICS_PORT = 9404

@dataclass(frozen=True)
class Tier:
    name: str                      # compose service name: front | clone | axis | gsoap
    port_offset: int               # replica i listens on replica_port_base + offset + i - 1
    prefix: str                    # its own knobs in .env carry this prefix: AXIS_, FRONT_ ...
    renamed: tuple[str, ...]       # ... and the process reads them without it:
                                   #     AXIS_TOMCAT_MAX_THREADS -> TOMCAT_MAX_THREADS
    passthrough: tuple[str, ...]   # knobs handed over unchanged (DEMAND_SERVICE_, CLIENT_ ...)
    health_path: str = "/health"
    java_jar: str | None = None    # relative to ROOT
    native: str | None = None      # absolute path to the binary
    start_timeout: float = 120.0   # JVM start-up on a busy 2-core machine

    def argv(self) -> list[str]:
        if self.java_jar:
            return [str(JAVA_LAUNCHER), str(ROOT / self.java_jar)]
        return [str(self.native)]

    def artifact(self) -> Path:
        return ROOT / self.java_jar if self.java_jar else Path(self.native)

    def built(self) -> bool:
        return self.artifact().exists() and (not self.java_jar or JMX_AGENT.exists())

    def port(self, base: int, index: int) -> int:
        return base + self.port_offset + index - 1

    def metrics_port(self, port: int) -> int:
        """Where a replica listening on `port` answers GET /metrics (Prometheus)."""
        return port + METRICS_PORT_OFFSET if self.java_jar else port

    @property
    def metrics_path(self) -> str:
        return "/metrics"


TIERS: dict[str, Tier] = {
    "front": Tier("front", 300, "FRONT_", ("TOMCAT_", "JVM_", "BEAN_", "INVOKER_"),
                  ("DEMAND_SEG", "DEMAND_INVOKER_", "METRICS_AGENT", "TRACING"), java_jar="services/front/target/front.jar"),
    "clone": Tier("clone", 400, "CLONE_", ("TOMCAT_", "JVM_", "SOAP_TIMEOUT"),
                  ("DEMAND_CLONE_", "CLIENT_", "OWN_", "METRICS_AGENT", "TRACING"), java_jar="client-clones/target/clone.jar"),
    "axis": Tier("axis", 100, "AXIS_", ("TOMCAT_", "JVM_", "MAX_"), ("DEMAND_SERVICE_", "METRICS_AGENT", "TRACING"),
                 java_jar="services/axis/target/axis.jar"),
    "gsoap": Tier("gsoap", 200, "GSOAP_", ("MAX_",), ("GSOAP_", "DEMAND_SERVICE_", "TRACING"),
                  native=str(GSOAP_SERVER), start_timeout=20.0),
}
MAX_REPLICAS = 16
MAX_POOL_SIZE = 1024      # CLIENT_POOL_SIZE: the clone's own range (client-clones CloneConfig, /lifecycle)
START_ORDER = ("axis", "gsoap", "clone", "front")   # callees before callers


def process_env(tier: Tier, port: int, knobs: dict[str, str] | None = None,
                extra: dict[str, str] | None = None, bind: str = "127.0.0.1",
                metrics_port: int | None = None) -> dict[str, str]:
    """The environment of one replica: its port, and the knobs of .env that concern it.
    metrics_port: where a Java tier's JMX exporter agent listens (none when not given: a
    process started for a test has no agent unless it asks for one)."""
    env = {"PORT": str(port), "BIND": bind}
    if tier.java_jar and metrics_port:
        env["METRICS_PORT"] = str(metrics_port)
    for key, value in (knobs or {}).items():
        if key.startswith(tier.passthrough):
            env[key] = value
        if key.startswith(tier.prefix) and key[len(tier.prefix):].startswith(tier.renamed):
            env[key[len(tier.prefix):]] = value
    env.update(extra or {})
    return env


def knobs_read(knobs: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each tier's knobs as its processes read them (process_env without the port and address,
    which differ by replica and mode): what a result folder records of the stack it measured,
    so that a run with CLONE_JVM_HEAP=1g or FRONT_TOMCAT_MAX_THREADS=50 in the environment says so."""
    return {name: {k: v for k, v in process_env(tier, 0, knobs).items() if k not in ("PORT", "BIND")}
            for name, tier in TIERS.items()}


# ---------------------------------------------------------------------------------------
# The stack's admin token
# ---------------------------------------------------------------------------------------
# What entitles a request to a tier's admin endpoints (the clone's
# `POST /probe/build`: java-common AdminGate). `up` makes a new one and keeps it in the stack's
# state folder, readable by its owner only (mode 0600); the tiers get it in their environment
# (TESTBED_ADMIN_TOKEN: local replicas from LocalStack, containers from compose's or Swarm's
# environment), and the runner sends it in ADMIN_HEADER of each admin request (fit/buildprobe.py).
# A tier started without it refuses every admin request. By hand (docs/tiers.md):
#
#     curl -X POST -H "X-Testbed-Admin-Token: $(cat .testbed/admin-token)" \
#          "http://127.0.0.1:19400/probe/build?n=10"
ADMIN_ENV = "TESTBED_ADMIN_TOKEN"          # java-common AdminGate.ENV
ADMIN_HEADER = "X-Testbed-Admin-Token"     # AdminGate.HEADER
ADMIN_TOKEN_FILE = "admin-token"
ADMIN_TIERS = ("clone",)                   # the tiers with admin endpoints, the only ones given the token


def admin_token_path(state_dir: Path) -> Path:
    return Path(state_dir) / ADMIN_TOKEN_FILE


def create_admin_token(state_dir: Path) -> str:
    """A new token (replacing any older one), written with mode 0600 before it holds anything."""
    token = secrets.token_urlsafe(32)
    target = admin_token_path(state_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{ADMIN_TOKEN_FILE}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
    os.replace(tmp, target)
    return token


def admin_token(state_dir: Path) -> str | None:
    """The stack's token, or None when it has none (made before tokens, or never up)."""
    try:
        return admin_token_path(state_dir).read_text().strip() or None
    except FileNotFoundError:
        return None


def admin_env(state_dir: Path) -> dict[str, str]:
    """What a tier's environment gets: {ADMIN_ENV: token}, or {} without one."""
    token = admin_token(state_dir)
    return {ADMIN_ENV: token} if token else {}


def admin_headers(state_dir: Path) -> dict[str, str]:
    """What an admin request sends: {ADMIN_HEADER: token}, or {} without one (the tier then refuses)."""
    token = admin_token(state_dir)
    return {ADMIN_HEADER: token} if token else {}
