"""The testbed's knobs in local mode: `.env` at the repository root (the same file compose
reads), overridden by the process environment, overridden by command-line flags."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from testbed import ROOT

ENV_FILE = ROOT / ".env"
_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


class ConfigError(ValueError):
    """A knob has a bad value; the text names the variable and the fix."""


def read_env_file(path: Path = ENV_FILE) -> dict[str, str]:
    """KEY=VALUE lines; '#' starts a comment (outside quotes); blank lines ignored."""
    values: dict[str, str] = {}
    if not path.exists():
        return values
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            raise ConfigError(f"{path}:{n}: expected KEY=VALUE, got {raw!r}")
        key, value = m.groups()
        if value[:1] in "\"'" and value.endswith(value[:1]) and len(value) >= 2:
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].split("\t#", 1)[0].strip()
        values[key] = value
    return values


def knobs() -> dict[str, str]:
    """.env overridden by the environment."""
    merged = read_env_file()
    merged.update({k: v for k, v in os.environ.items() if k in merged or _is_knob(k)})
    return merged


def _is_knob(key: str) -> bool:
    return key.startswith(("DEMAND_", "GSOAP_", "AXIS_", "FRONT_", "CLONE_", "CLIENT_",
                           "TESTBED_", "ZIPKIN_", "SWARM_")) or key == "TRACING" or key.endswith("_PORT") or key == "BIND_ADDRESS"


def _int(values: dict[str, str], key: str, default: int, lo: int = 0, hi: int = 1 << 31) -> int:
    raw = values.get(key, str(default))
    try:
        v = int(raw)
    except ValueError:
        raise ConfigError(f"{key}={raw!r}: expected a whole number (set it in .env or the environment)") from None
    if not lo <= v <= hi:
        raise ConfigError(f"{key}={v}: expected {lo}..{hi}")
    return v


def _cpus(values: dict[str, str], key: str) -> set[int] | None:
    from testbed.procs import parse_cpus
    try:
        return parse_cpus(values.get(key, ""))
    except ValueError as e:
        raise ConfigError(f"{key}: {e}") from None


@dataclass
class StackConfig:
    bind: str = "127.0.0.1"
    web_port: int = 8080
    clones_port: int = 8081
    soap_port: int = 8082
    stats_port: int = 8404
    bound_port: int = 8088
    locust_port: int = 8089
    prometheus_port: int = 9095         # HAProxy's entry to Prometheus (up --monitoring)
    zipkin_port: int = 9411             # HAProxy's entry to Zipkin (up --tracing)
    locust_master_port: int = 5557
    locust_workers: int = 0             # 0: one per core
    stack_cpus: set[int] | None = None      # pin every tier + HAProxy to these CPUs
    loadgen_cpus: set[int] | None = None    # pin Locust to these CPUs
    replica_port_base: int = 19000      # replicas listen on 127.0.0.1, base + tier offset + i
    state_dir: Path = field(default_factory=lambda: ROOT / ".testbed")
    knobs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls) -> "StackConfig":
        k = knobs()
        return cls(
            bind=k.get("BIND_ADDRESS", "127.0.0.1"),
            web_port=_int(k, "WEB_PORT", 8080, 1, 65535),
            clones_port=_int(k, "CLONES_PORT", 8081, 1, 65535),
            soap_port=_int(k, "SOAP_PORT", 8082, 1, 65535),
            stats_port=_int(k, "STATS_PORT", 8404, 1, 65535),
            bound_port=_int(k, "BOUND_PORT", 8088, 1, 65535),
            locust_port=_int(k, "LOCUST_PORT", 8089, 1, 65535),
            prometheus_port=_int(k, "PROMETHEUS_PORT", 9095, 1, 65535),
            zipkin_port=_int(k, "ZIPKIN_PORT", 9411, 1, 65535),
            locust_master_port=_int(k, "LOCUST_MASTER_PORT", 5557, 1, 65535),
            locust_workers=_int(k, "LOCUST_WORKERS", 0, 0, 64),
            stack_cpus=_cpus(k, "STACK_CPUS"),
            loadgen_cpus=_cpus(k, "LOADGEN_CPUS"),
            replica_port_base=_int(k, "TESTBED_REPLICA_PORT_BASE", 19000, 1024, 65000),
            state_dir=Path(k.get("TESTBED_STATE_DIR") or ROOT / ".testbed"),
            knobs=k,
        )

    def entry_ports(self) -> dict[str, int]:
        """The ports HAProxy listens on."""
        return {"WEB_PORT": self.web_port, "CLONES_PORT": self.clones_port,
                "SOAP_PORT": self.soap_port, "STATS_PORT": self.stats_port,
                "BOUND_PORT": self.bound_port, "LOCUST_PORT": self.locust_port,
                "PROMETHEUS_PORT": self.prometheus_port, "ZIPKIN_PORT": self.zipkin_port}

    def ui_headers(self) -> dict[str, str]:
        """The Authorization header HAProxy's stats page and Locust UI want when UI_PASSWORD is set."""
        password = self.knobs.get("UI_PASSWORD") or ""
        if not password:
            return {}
        import base64
        token = base64.b64encode(f"{self.knobs.get('UI_USER') or 'testbed'}:{password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}

    def locust_worker_count(self) -> int:
        if self.locust_workers:
            return self.locust_workers
        return len(self.loadgen_cpus) if self.loadgen_cpus else len(os.sched_getaffinity(0))

    @property
    def locust_web_port(self) -> int:
        """Where the Locust master's web UI listens on loopback; HAProxy's locust_ui entry
        (LOCUST_PORT) forwards to it, asking for credentials when UI_PASSWORD is set."""
        return self.replica_port_base + 990

    @property
    def client_host(self) -> str:
        """Where a client on this machine reaches the entry points."""
        return "127.0.0.1" if self.bind in ("0.0.0.0", "::", "") else self.bind
