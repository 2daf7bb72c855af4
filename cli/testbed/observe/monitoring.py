"""Prometheus for the stack (docs/monitoring.md): its configuration in both modes, and in local
mode the processes that run it.

What it scrapes, every MONITORING_SCRAPE_INTERVAL (.env, default 5s):
  front, clone, axis  the JMX exporter agent of each replica (java-common/bin/java-tier)
  gsoap               each replica's own GET /metrics
  haproxy             HAProxy's exporter on its stats page (/metrics; UI credentials if set)
  cpu                 the CPU exporter (cpu_exporter.py): every replica's CPU, the host's
  prometheus          itself
and services/prometheus/rules.yml turns them into each tier's utilisation and demand per
request (D = U / X) as they happen.

Finding the replicas:
  containers  docker_config(): every tier is a `dns_sd_configs` A lookup of its service name,
              repeated every scrape interval, so `docker compose up --scale clone=4` (or
              `docker service scale`) shows in Prometheus within one interval, no reload;
              services/prometheus/entrypoint.py renders it at container start
  local       local_config(): one file_sd_configs file per tier (STATE/monitoring/<tier>.json),
              rewritten by write_targets() whenever ./testbed up, scale or restart changes the
              replicas, and read again by Prometheus within one interval
Local Prometheus (Debian's `prometheus`, started by `./testbed up --monitoring`) listens on
loopback at replica_port_base + 980, the CPU exporter at + 970; people reach Prometheus
through HAProxy's prometheus entry (PROMETHEUS_PORT), which asks for UI_USER / UI_PASSWORD when
they are set, like the stats page and the Locust UI.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from testbed import ROOT, procs, tiers
from testbed.config import StackConfig

RULES = ROOT / "services" / "prometheus" / "rules.yml"
JOBS = ("front", "clone", "axis", "gsoap")
PROMETHEUS_OFFSET, EXPORTER_OFFSET = 980, 970       # local: replica_port_base + these
DOCKER_PROMETHEUS_PORT = 9090                        # the prometheus container's own port
DOCKER_EXPORTER_PORT = 9105                          # the cpu-exporter container's
RETENTION = "2d"                                     # a test bench keeps days, not months
_INTERVAL = re.compile(r"^[1-9][0-9]*(ms|s|m)$")


class MonitoringError(RuntimeError):
    """Monitoring cannot run as asked; the text names the fix."""


def scrape_interval(knobs: dict[str, str]) -> str:
    raw = knobs.get("MONITORING_SCRAPE_INTERVAL") or "5s"
    if not _INTERVAL.match(raw):
        raise MonitoringError(f"MONITORING_SCRAPE_INTERVAL={raw!r}: expected a duration like 5s, 500ms or 1m")
    return raw


def _haproxy_job(address: str, knobs: dict[str, str]) -> dict:
    job = {"job_name": "haproxy", "metrics_path": "/metrics", "static_configs": [{"targets": [address]}]}
    if knobs.get("UI_PASSWORD"):
        job["basic_auth"] = {"username": knobs.get("UI_USER") or "testbed", "password": knobs["UI_PASSWORD"]}
    return job


def _config(knobs: dict[str, str], rules: str, jobs: list[dict]) -> str:
    interval = scrape_interval(knobs)
    doc = {"global": {"scrape_interval": interval, "evaluation_interval": interval,
                      "scrape_timeout": interval if interval_seconds(interval) <= 10 else "10s"},
           "rule_files": [rules], "scrape_configs": jobs}
    # JSON is YAML: Prometheus reads it, and no YAML library is needed to write it
    return json.dumps(doc, indent=1) + "\n"


def interval_seconds(interval: str) -> float:
    """A Prometheus duration as scrape_interval() gives it (5s, 500ms, 1m) in seconds."""
    n = float(re.match(r"\d+", interval).group())
    return n / 1000 if interval.endswith("ms") else n * 60 if interval.endswith("m") else n


def docker_config(knobs: dict[str, str], rules: str = "/etc/prometheus/rules.yml") -> str:
    """The prometheus container's configuration: replicas found by Docker's DNS."""
    interval = scrape_interval(knobs)
    jobs = []
    for tier in JOBS:
        port = tiers.DOCKER_METRICS_PORT if tiers.TIERS[tier].java_jar else 8080
        jobs.append({"job_name": tier, "metrics_path": "/metrics",
                     # asked every second: a new replica is a target well within one scrape interval
                     "dns_sd_configs": [{"names": [tier], "type": "A", "port": port, "refresh_interval": "1s"}],
                     "relabel_configs": [{"target_label": "tier", "replacement": tier}]})
    jobs.append(_haproxy_job("haproxy:8404", knobs))
    jobs.append({"job_name": "cpu", "dns_sd_configs": [{"names": ["cpu-exporter"], "type": "A",
                                                        "port": DOCKER_EXPORTER_PORT, "refresh_interval": interval}]})
    jobs.append({"job_name": "prometheus", "static_configs": [{"targets": [f"127.0.0.1:{DOCKER_PROMETHEUS_PORT}"]}]})
    return _config(knobs, rules, jobs)


def prometheus_flags(config: Path, data: Path, listen: str) -> list[str]:
    """Prometheus' command line, here and in its container."""
    return [f"--config.file={config}", f"--storage.tsdb.path={data}",
            f"--storage.tsdb.retention.time={RETENTION}", f"--web.listen-address={listen}"]


# ---------------------------------------------------------------------------------------
# Local mode
# ---------------------------------------------------------------------------------------
def prometheus_port(cfg: StackConfig) -> int:
    return cfg.replica_port_base + PROMETHEUS_OFFSET


def exporter_port(cfg: StackConfig) -> int:
    return cfg.replica_port_base + EXPORTER_OFFSET


def folder(cfg: StackConfig) -> Path:
    return cfg.state_dir / "monitoring"


def local_config(cfg: StackConfig) -> str:
    interval = scrape_interval(cfg.knobs)
    jobs = [{"job_name": tier, "metrics_path": "/metrics",
             "file_sd_configs": [{"files": [str(folder(cfg) / f"{tier}.json")], "refresh_interval": interval}]}
            for tier in JOBS]
    jobs.append(_haproxy_job(f"127.0.0.1:{cfg.stats_port}", cfg.knobs))
    jobs.append({"job_name": "cpu", "static_configs": [{"targets": [f"127.0.0.1:{exporter_port(cfg)}"]}]})
    jobs.append({"job_name": "prometheus", "static_configs": [{"targets": [f"127.0.0.1:{prometheus_port(cfg)}"]}]})
    return _config(cfg.knobs, str(RULES), jobs)


def write_targets(cfg: StackConfig, replicas: dict[str, list[tuple[int, int]]]) -> None:
    """One file_sd file per tier: replicas[tier] = [(index, port)] of its running replicas.
    Written to a temporary name and renamed, so Prometheus never reads half a file."""
    d = folder(cfg)
    d.mkdir(parents=True, exist_ok=True)
    for tier in JOBS:
        groups = [{"targets": [f"127.0.0.1:{tiers.TIERS[tier].metrics_port(port)}"],
                   "labels": {"tier": tier, "replica": str(index)}}
                  for index, port in sorted(replicas.get(tier, []))]
        tmp = d / f".{tier}.json.tmp"
        tmp.write_text(json.dumps(groups, indent=1) + "\n")
        tmp.replace(d / f"{tier}.json")


def start(cfg: StackConfig, replicas: dict[str, list[tuple[int, int]]], log_dir: Path) -> dict:
    """The CPU exporter and Prometheus as local processes (loopback only); {"exporter", "prometheus"}."""
    import shutil
    if not shutil.which("prometheus"):
        raise MonitoringError("prometheus not found: install Debian's package (sudo apt-get install prometheus), "
                              "or start without --monitoring")
    busy = [p for p in (prometheus_port(cfg), exporter_port(cfg)) if not procs.port_free(p)]
    if busy:
        raise MonitoringError(f"port {busy[0]} (monitoring) is in use by another program; free it or move the "
                              f"replica ports with TESTBED_REPLICA_PORT_BASE=<port>")
    d = folder(cfg)
    d.mkdir(parents=True, exist_ok=True)
    write_targets(cfg, replicas)
    (d / "prometheus.yml").write_text(local_config(cfg))
    (d / "prometheus.yml").chmod(0o600)          # holds UI_PASSWORD when HAProxy asks for one
    env = {"TESTBED_STATE_DIR": str(cfg.state_dir)}
    exporter = procs.start("cpu-exporter", [sys.executable, "-m", "testbed.live.exporter", "--source", "local",
                                            "--port", str(exporter_port(cfg))],
                           log_dir / "cpu-exporter.log", env=env, port=exporter_port(cfg), cwd=ROOT)
    prometheus = procs.start("prometheus", ["prometheus", *prometheus_flags(
        d / "prometheus.yml", d / "data", f"127.0.0.1:{prometheus_port(cfg)}")],
        log_dir / "prometheus.log", port=prometheus_port(cfg), cwd=d)
    return {"exporter": exporter, "prometheus": prometheus}


def wait(mon: dict, cfg: StackConfig, timeout: float = 60) -> None:
    procs.wait_healthy(mon["exporter"], f"http://127.0.0.1:{exporter_port(cfg)}/metrics", timeout)
    procs.wait_healthy(mon["prometheus"], f"http://127.0.0.1:{prometheus_port(cfg)}/-/ready", timeout)


def all_procs(mon: dict | None) -> list[procs.Proc]:
    return [mon[k] for k in ("prometheus", "exporter") if mon and mon.get(k)]


def to_dict(mon: dict | None) -> dict | None:
    return {k: p.to_dict() for k, p in mon.items()} if mon else None


def from_dict(d: dict | None) -> dict | None:
    return {k: procs.Proc.from_dict(p) for k, p in d.items()} if d else None


def switch(stack, on: bool) -> None:
    """Start (on) or stop Prometheus and the CPU exporter of a running local stack (LocalStack)."""
    with stack.locked():
        state = stack.load()
        if on and not state.get("monitoring"):
            state["monitoring"] = start(stack.cfg, stack._plan(state), stack.dir / "logs")
            stack.save(state)
            wait(state["monitoring"], stack.cfg)
        elif not on and state.get("monitoring"):
            for p in all_procs(state["monitoring"]):
                procs.stop(p, timeout=5)
            state["monitoring"] = None
            stack.save(state)
