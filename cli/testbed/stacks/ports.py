"""The ports of a local stack, for a second stack beside it: every port one on a given replica
port base may listen on, and a configuration whose entry ports are free now. Used by the
tracing-overhead benchmark's traced stack (bench/tracing_overhead.py) and the tests' private
stacks (tests/stacks.py)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from testbed import procs, tiers
from testbed.observe import monitoring
from testbed.observe import tracing
from testbed.config import StackConfig


def stack_ports(base: int, replicas: int = tiers.MAX_REPLICAS) -> set[int]:
    """Every port a local stack on replica_port_base `base` may listen on with up to `replicas`
    replicas a tier: the replicas, their metrics (a Java tier's JMX exporter agent), the Locust
    UI, local monitoring (Prometheus, the CPU exporter), local tracing (Zipkin)."""
    cfg = StackConfig(replica_port_base=base)
    ports = {p for t in tiers.TIERS.values() for i in range(1, replicas + 1)
             for p in (t.port(base, i), t.metrics_port(t.port(base, i)))}
    return ports | {cfg.locust_web_port, monitoring.prometheus_port(cfg), monitoring.exporter_port(cfg),
                    tracing.zipkin_port(cfg)}


def with_free_entry_ports(cfg: StackConfig, base: int, state_dir: Path, knobs: dict[str, str]) -> StackConfig:
    """cfg on replica port base `base`, with its own state folder and knobs, and every entry port
    HAProxy (and Locust's master) listens on a port free now (procs.free_port)."""
    return dataclasses.replace(
        cfg, web_port=procs.free_port(), clones_port=procs.free_port(), soap_port=procs.free_port(),
        stats_port=procs.free_port(), bound_port=procs.free_port(), locust_port=procs.free_port(),
        prometheus_port=procs.free_port(), zipkin_port=procs.free_port(),
        locust_master_port=procs.free_port(), replica_port_base=base, state_dir=state_dir, knobs=knobs)
