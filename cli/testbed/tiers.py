"""How each tier of the stack is launched as a local process: the one place that knows
binaries, jars, ports and the environment each tier reads (docs/tiers.md)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from testbed import ROOT

BUILD_DIR = ROOT / "build"
GSOAP_SERVER = BUILD_DIR / "services" / "gsoap" / "tb-gsoap-server"
GSOAP_CLIENT = BUILD_DIR / "services" / "gsoap" / "tb-gsoap-client"
CONTRACT_JAR = ROOT / "services" / "contract" / "target" / "contract.jar"

# JVM flags of every Tomcat tier: a modest heap (2 cores, several JVMs side by side).
JAVA_OPTS = ["-Xms128m", "-Xmx512m", "-XX:+UseParallelGC", "-XX:+ExitOnOutOfMemoryError"]



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
            return ["java", *JAVA_OPTS, "-jar", str(ROOT / self.java_jar)]
        return [str(self.native)]

    def artifact(self) -> Path:
        return ROOT / self.java_jar if self.java_jar else Path(self.native)

    def built(self) -> bool:
        return self.artifact().exists()

    def port(self, base: int, index: int) -> int:
        return base + self.port_offset + index - 1


TIERS: dict[str, Tier] = {
    "front": Tier("front", 300, "FRONT_", ("TOMCAT_", "BEAN_", "INVOKER_"),
                  ("DEMAND_SEG", "DEMAND_INVOKER_"), java_jar="services/front/target/front.jar"),
    "clone": Tier("clone", 400, "CLONE_", ("TOMCAT_", "SOAP_TIMEOUT"),
                  ("DEMAND_CLONE_", "CLIENT_"), java_jar="client-clones/target/clone.jar"),
    "axis": Tier("axis", 100, "AXIS_", ("TOMCAT_", "MAX_"), ("DEMAND_SERVICE_",),
                 java_jar="services/axis/target/axis.jar"),
    "gsoap": Tier("gsoap", 200, "GSOAP_", ("MAX_",), ("GSOAP_", "DEMAND_SERVICE_"),
                  native=str(GSOAP_SERVER), start_timeout=20.0),
}
MAX_REPLICAS = 16
START_ORDER = ("axis", "gsoap", "clone", "front")   # callees before callers


def process_env(tier: Tier, port: int, knobs: dict[str, str] | None = None,
                extra: dict[str, str] | None = None, bind: str = "127.0.0.1") -> dict[str, str]:
    """The environment of one replica: its port, and the knobs of .env that concern it."""
    env = {"PORT": str(port), "BIND": bind}
    for key, value in (knobs or {}).items():
        if key.startswith(tier.passthrough):
            env[key] = value
        if key.startswith(tier.prefix) and key[len(tier.prefix):].startswith(tier.renamed):
            env[key[len(tier.prefix):]] = value
    env.update(extra or {})
    return env
