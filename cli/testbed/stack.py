"""One interface for the stack, whatever runs it: plain processes on loopback (LocalStack,
testbed.local) or containers of the compose project (ComposeStack, testbed.docker). The CLI
verbs, the experiment runner and the benchmarks talk to a Stack and never ask which one
they hold.

    stack = stacks.open_stack(cfg)        # which one: testbed/stacks/factory.py (this module imports
                                          # no implementation, so they form no import circle)
    stack.up({"front": 1, "clone": 2, "axis": 1}, {"CLIENT_MODE": "pool"})
    stack.scale("clone", 4); stack.restart("clone", {"CLIENT_MODE": "request"})
    stack.switch_lifecycle("clone", {"CLIENT_MODE": "pool"})   # the same without a restart, where it can
    stack.status()                        # same shape in both modes (status_shape below)

status() is {"mode", "up", "state_dir", "entry_points", "haproxy": {"alive", "pid", "cpu_quota"} |
None, "locust": [{"name", "pid", "alive", "cpu_quota"}], "replicas": [REPLICA_KEYS...]}; a key
that has no meaning in a mode (a container's pid namespace, a local replica's container) is None.
cpu_quota: the CPU quota in cores (CPUS_<TIER>: a cgroup per local replica, compose's `cpus`),
None when it has none.
The Swarm node a replica runs on outside Swarm is None; a Swarm stack adds "nodes": {node:
[tier-replica ...]}.
"""
from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from abc import ABC, abstractmethod
from dataclasses import dataclass

from testbed import tiers
from testbed.config import StackConfig

MODES = ("local", "docker", "swarm")
LIFECYCLE_KNOBS = ("CLIENT_MODE", "CLIENT_POOL_SIZE")    # what switch_lifecycle() changes
SWITCH_TIMEOUT_S = 120.0         # a pool's clients are built from the WSDL before the answer
REPLICA_KEYS = ("tier", "replica", "alive", "healthy", "haproxy", "server", "sessions", "url", "pid",
                "port", "container", "address", "log", "cpu_quota", "node")


class StackError(RuntimeError):
    """The stack could not do what was asked; the text names the fix."""


@dataclass(frozen=True)
class CpuTarget:
    """What cpu.csv samples: a process (tree: with its children) or a container's cgroup."""
    tier: str                # front | clone | axis | gsoap | haproxy | loadgen
    replica: str             # "1".., "master", "worker-1", "ui-master" ...
    pid: int                 # the process, or the container's main process (cpu.csv "pid")
    tree: bool = False       # a process: add the CPU of its children (HAProxy's workers)
    cgroup: str | None = None  # a container: its cgroup's CPU accounting file (cgroup.py)


class Stack(ABC):
    mode: str = ""

    def __init__(self, cfg: StackConfig | None = None, log=print):
        self.cfg = cfg or StackConfig.load()
        self.log = log

    # ------------------------------------------------------------------ lifecycle
    @abstractmethod
    def running(self) -> bool:
        """Is any part of this stack running (HAProxy or a replica)?"""

    @abstractmethod
    def up(self, counts: dict[str, int], overrides: dict[str, str] | None = None,
           locust: bool = False, monitoring: bool = False, tracing: bool = False) -> None:
        """Start HAProxy and counts[tier] replicas of each tier (callees first, each healthy and
        UP in HAProxy before its callers), with these knobs over .env; with locust=True the
        Locust web UI too, with monitoring=True Prometheus and the CPU exporter
        (docs/monitoring.md), with tracing=True Zipkin first and every tier tracing
        (docs/tracing.md). Refuses when the stack is already up."""

    @abstractmethod
    def down(self) -> list[str]:
        """Stop everything this stack started, and nothing else; what was stopped."""

    def admin_headers(self) -> dict[str, str]:
        """What a request to an admin endpoint of one of this stack's replicas sends: the token
        `up` made (testbed/tiers.py); {} when there is none."""
        return tiers.admin_headers(self.cfg.state_dir)

    # ------------------------------------------------------------------ inspection
    @abstractmethod
    def status(self) -> dict:
        """The shape in this module's docstring."""

    @abstractmethod
    def current(self) -> tuple[dict[str, int], dict[str, str]]:
        """(replicas per tier, knobs in effect: .env, environment, and the stack's overrides)."""

    @abstractmethod
    def urls(self) -> dict[str, str]:
        """Every entry point a person or a load generator on this host uses."""

    def entry_points(self) -> dict[str, str]:
        """urls() without Locust, Prometheus or Zipkin when they are not running."""
        off = {n for n, url in (("locust", self.ui_url()), ("prometheus", self.monitoring_url()),
                                ("zipkin", self.tracing_url())) if not url}
        return {n: u for n, u in self.urls().items() if n not in off}

    def monitoring_url(self) -> str | None:
        """Prometheus' address (through HAProxy) when monitoring runs, else None."""
        return None

    def tracing_url(self) -> str | None:
        """Zipkin's base URL as this host reaches it (its API under /api/v2) when tracing is
        on, else None; ask with cfg.ui_headers() (HAProxy's credentials, where it goes through HAProxy)."""
        return None

    @abstractmethod
    def ui_url(self) -> str | None:
        """The Locust web UI's address when it runs, else None."""

    ENTRIES = ("web", "clones", "soap", "bound", "stats")

    def entry_url(self, entry: str) -> str:
        """Where a load generator on this host reaches one of HAProxy's entries (ENTRIES)."""
        port = {"web": self.cfg.web_port, "clones": self.cfg.clones_port, "soap": self.cfg.soap_port,
                "bound": self.cfg.bound_port, "stats": self.cfg.stats_port}[entry]
        return f"http://{self.cfg.client_host}:{port}"

    def web_url(self) -> str:
        """Where an experiment's Locust aims: HAProxy's web entry."""
        return self.entry_url("web")

    @abstractmethod
    def logs(self, tier: str, lines: int, follow: bool) -> int:
        """Print (or follow) the logs of a tier's replicas, haproxy or locust; exit status."""

    # ------------------------------------------------------------------ changes
    @abstractmethod
    def scale(self, tier: str, n: int) -> tuple[int, int]:
        """Bring a tier to n replicas while load runs: removed replicas are drained in HAProxy
        and stopped once idle, new ones join once healthy. (before, after)."""

    @abstractmethod
    def restart(self, tier: str, overrides: dict[str, str]) -> None:
        """Give a tier new knobs (kept for later scaling) and restart its replicas with them."""

    # ------------------------------------------------------------------ the load generator's CPU
    def load_quota(self, name: str) -> list[str]:
        """The cgroup.procs files an experiment's Locust process `name` (e.g. locust-worker-1) enters:
        CPUS_LOCUST as its CPU quota, the way compose gives Locust's containers theirs; [] where it
        has none (the default, and every stack but the local one: there Locust runs beside it)."""
        return []

    def load_quota_cores(self) -> float | None:
        """CPUS_LOCUST as load_quota gives it to each Locust process (cores), None without one."""
        return None

    def load_quota_done(self, names: list[str]) -> None:
        """The Locust processes `names` have ended: their groups (load_quota) go."""

    # ------------------------------------------------------------------ the client lifecycle, live
    switches_lifecycle = False       # whether switch_lifecycle() works here (keep_knobs implemented)

    def switch_lifecycle(self, tier: str, overrides: dict[str, str]) -> list[str]:
        """Give the running replicas of the client tier a new client lifecycle without a restart
        (POST /lifecycle of client-clones: their JVMs keep what the JIT compiled) and keep the
        knobs (keep_knobs) for later restarts and scaling. overrides: CLIENT_MODE and, for a pool,
        CLIENT_POOL_SIZE, as the tier's knobs name them. What each replica answered, one line each;
        StackError naming the replica that could not switch."""
        knobs = {**self.current()[1], **overrides}
        query = urllib.parse.urlencode({"mode": knobs.get("CLIENT_MODE") or "singleton",
                                        "pool_size": knobs.get("CLIENT_POOL_SIZE") or "8"})
        done = []
        for r in (r for r in self.status()["replicas"] if r.get("tier") == tier):
            name = f"{tier}-{r['replica']}"
            if not r.get("url"):
                raise StackError(f"{name} has no address here: its lifecycle cannot be switched")
            req = urllib.request.Request(f"{r['url']}/lifecycle?{query}", data=b"", method="POST",
                                         headers=self.admin_headers())
            try:
                with urllib.request.urlopen(req, timeout=SWITCH_TIMEOUT_S) as answer:
                    body = answer.read(4096).decode("utf-8", "replace")
            except urllib.error.HTTPError as e:
                reason = e.read(300).decode("utf-8", "replace").strip()
                raise StackError(f"{name} refused the lifecycle switch: HTTP {e.code} {reason}") from None
            except OSError as e:
                raise StackError(f"{name} did not switch its lifecycle: {e}") from None
            done.append(f"{name}: {body}")
        self.keep_knobs(overrides)
        return done

    def keep_knobs(self, overrides: dict[str, str]) -> None:
        """Remember knobs the running replicas already have (switch_lifecycle), for later restarts
        and new replicas; where switches_lifecycle is False, never called."""
        raise NotImplementedError(f"{self.mode} stacks do not switch a lifecycle live")

    def tier_config(self, tier: str, knobs: dict[str, str]) -> dict[str, str]:
        """What of these knobs a tier's replicas are started with: when it differs between two
        sets of knobs, the tier must be restarted to change from one to the other. The CPU quota
        (CPUS_<TIER>) too: a JVM sizes its GC and compiler threads by it at start."""
        cpus = knobs.get(f"CPUS_{tier.upper()}") or "0"
        try:
            cpus = f"{float(cpus):g}"          # 0.50 and 0.5 are one quota
        except ValueError:
            pass
        return {**tiers.process_env(tiers.TIERS[tier], 0, knobs), "CPUS": cpus}

    # ------------------------------------------------------------------ faults (testbed.faults)
    @abstractmethod
    def signal(self, replica: dict, sig: int) -> None:
        """Send a signal to a replica's process (SIGKILL, SIGSTOP, SIGCONT); replica: a status() row."""

    @abstractmethod
    def revive(self, replica: dict) -> None:
        """Bring a killed replica back (same tier, same place) and wait until HAProxy has it UP."""

    @abstractmethod
    def server_states(self, tier: str) -> dict[str, dict]:
        """HAProxy's view of a tier: server name -> {"status", "sessions"}."""

    # ------------------------------------------------------------------ measurement
    @abstractmethod
    def cpu_targets(self) -> list[CpuTarget]:
        """Every replica, HAProxy, and the Locust web UI's processes if it runs."""

    @abstractmethod
    def thread_dump(self, replica: dict) -> str:
        """A Java replica's thread dump (jstack format); replica: a status() row."""

    @abstractmethod
    def describe(self) -> dict:
        """For experiment.json: mode, CPU quotas per tier, images (where they apply)."""

    # ------------------------------------------------------------------ nodes (a multi-node Swarm)
    def node_action(self, node: str, action: str) -> None:
        """kill | pause | resume | start a whole node (testbed.faults): only a cluster has nodes."""
        raise StackError(f"node faults need the Swarm stack on a cluster made by ./testbed cluster up "
                         f"(this is the {self.mode} stack)")

    def remote_workers(self, count: int) -> tuple[str, int] | None:
        """Start `count` Locust workers on the stack's own load-generator node; (host, port) the
        master must bind for them. None: the load comes from this host (every stack but a cluster)."""
        return None

    def stop_remote_workers(self) -> None:
        """Remove what remote_workers() started."""

