#!/usr/bin/env python3
"""Start of the haproxy container (docker-compose.yml, Swarm): render the docker mode of
haproxy.cfg.in from this container's environment -- the knobs compose hands over from
.env, read once here -- then become HAProxy, in the foreground, as the container's main
process. The tiers are server-templates resolved by Docker's DNS (cli/testbed/haproxy/config.py),
so scaling a tier never needs this to run again."""
import os

from testbed.haproxy import config as haproxy
from testbed.observe.tracing import TracingError


def main() -> None:
    knobs = dict(os.environ)
    state = haproxy.DOCKER_STATE_DIR
    cfg = state / "haproxy.cfg"
    tracing = haproxy.docker_tracing(knobs)     # zipkin runs (compose profile "tracing")
    try:
        cfg.write_text(haproxy.render_docker(knobs, tracing))
    except (haproxy.HaproxyError, TracingError) as e:
        # e.g. published beyond loopback without UI_PASSWORD, a TRACE_MAX_RATE that is not a number
        raise SystemExit(f"haproxy: not started: {e}")
    (state / "haproxy.state").write_text("1\n")      # an empty server-state file, version 1
    limits = " ".join(f"{b}={haproxy.server_maxconn(b, knobs)}" for b in haproxy.BACKENDS)
    traced = "; tracing on (zipkin runs): the span relay runs beside it" if tracing else ""
    print(f"haproxy: rendered {cfg}; maxconn per server: {limits}{traced}", flush=True)
    os.execvp("haproxy", ["haproxy", "-db", "-f", str(cfg)])


if __name__ == "__main__":
    main()
