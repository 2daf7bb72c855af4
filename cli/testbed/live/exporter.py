"""A Prometheus exporter of the CPU of every replica of the stack, from the same readings as
cpu.csv (cpu_clock.py): Debian 12 has no cAdvisor, and the node exporter knows no replicas.

    python -m testbed.live.exporter --port 9105 [--bind 0.0.0.0] [--source local|containers]

  testbed_cpu_seconds_total{tier,replica}   CPU time of one replica: its container's cgroup, or
                                            its process (HAProxy with its workers) in local mode
  testbed_cpu_quota_cores{tier,replica}     its CPU quota in cores, where it has one
  testbed_host_cpu_seconds_total{mode}      the machine's CPU time, busy or idle (all cores)
  testbed_host_cpu_cores                    the machine's logical CPUs

Sources: `local` reads the local stack's state (TESTBED_STATE_DIR: the processes ./testbed up and
scale started, and the Locust UI's); `containers` reads the host's cgroup tree mounted read-only
and names the containers by Docker's DNS (cgroup_scan.py), from inside the compose network
(docker-compose.yml, service cpu-exporter). Readings are taken when Prometheus scrapes.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from testbed.cpu.clock import CpuClock, host_cores, host_cpu_seconds, quota_cores
from testbed.stack import CpuTarget

DEFAULT_PORT = 9105


class LocalTargets:
    """The local stack's replicas, HAProxy and the Locust UI (LocalStack.cpu_targets)."""

    def __init__(self):
        from testbed.config import StackConfig
        from testbed.stacks.local import LocalStack
        self.stack = LocalStack(StackConfig.load())

    def __call__(self) -> list[CpuTarget]:
        return self.stack.cpu_targets()


class ContainerTargets:
    """The stack's containers (cgroup_scan.ContainerScan)."""

    def __init__(self):
        from testbed.cpu.containers import ContainerScan
        self.scan = ContainerScan()
        if not self.scan.available():
            raise SystemExit(f"cpu_exporter: {self.scan.root} is not there: mount the host's /sys/fs/cgroup "
                             "read-only at it (docker-compose.yml does), or set CGROUP_HOST_ROOT")

    def __call__(self) -> list[CpuTarget]:
        return [c.target() for c in self.scan.containers()]


class CpuCollector:
    """prometheus_client collector: one reading of every target per scrape."""

    def __init__(self, targets):
        self.targets = targets
        self.clock = CpuClock()
        self.lock = threading.Lock()          # scrapes may overlap; the clock keeps state

    def collect(self):
        with self.lock:
            targets = self.targets()
            seconds = self.clock.read(targets)
        cpu = CounterMetricFamily("testbed_cpu_seconds", "CPU time of one replica: its container's cgroup, "
                                  "or its process tree in local mode", labels=["tier", "replica"])
        quota = GaugeMetricFamily("testbed_cpu_quota_cores", "CPU quota of one replica in cores, where it "
                                  "has one", labels=["tier", "replica"])
        for t in targets:
            key = (t.tier, t.replica)
            if key in seconds:
                cpu.add_metric(list(key), seconds[key])
                q = quota_cores(t.cgroup) if t.cgroup else quota_cores(pid=t.pid)
                if q:
                    quota.add_metric(list(key), q)
        busy, idle = host_cpu_seconds()
        host = CounterMetricFamily("testbed_host_cpu_seconds", "CPU time of the whole machine, all cores "
                                   "summed, busy or idle", labels=["mode"])
        host.add_metric(["busy"], busy)
        host.add_metric(["idle"], idle)
        yield cpu
        yield quota
        yield host
        yield GaugeMetricFamily("testbed_host_cpu_cores", "Logical CPUs of the machine", value=host_cores())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m testbed.live.exporter", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--source", choices=("local", "containers"), default="local")
    args = p.parse_args(argv)
    targets = LocalTargets() if args.source == "local" else ContainerTargets()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(CpuCollector(targets))
    try:
        start_http_server(args.port, addr=args.bind, registry=registry)
    except OSError as e:
        print(f"cpu_exporter: cannot listen on {args.bind}:{args.port}: {e}", file=sys.stderr)
        return 1
    print(f"cpu_exporter: {args.source} CPU on http://{args.bind}:{args.port}/metrics", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
