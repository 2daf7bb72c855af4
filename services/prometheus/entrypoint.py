#!/usr/bin/env python3
"""Start of the prometheus container (docker-compose.monitoring.yml; compose's monitoring
profile): render its configuration from the container's environment -- the knobs compose hands
over from .env, read once here -- then become Prometheus, in the foreground. The replicas are
found by Docker's DNS (cli/testbed/observe/monitoring.py, docker_config), so scaling a tier never needs
this to run again."""
import os
from pathlib import Path

from testbed.observe import monitoring


def main() -> None:
    cfg = Path("/run/prometheus/prometheus.yml")
    try:
        cfg.write_text(monitoring.docker_config(dict(os.environ)))
    except monitoring.MonitoringError as e:
        raise SystemExit(f"prometheus: not started: {e}")
    cfg.chmod(0o600)                     # holds UI_PASSWORD when HAProxy's stats page asks for one
    print(f"prometheus: rendered {cfg}", flush=True)
    os.execvp("prometheus", ["prometheus", *monitoring.prometheus_flags(
        cfg, Path("/var/lib/prometheus/metrics2"), f"0.0.0.0:{monitoring.DOCKER_PROMETHEUS_PORT}")])


if __name__ == "__main__":
    main()
