"""The tiers while the load runs: what the Locust web UI's Testbed tab shows
(loadgen/testbed_tab.py), one row per replica of every tier and the bottleneck hint.

Per replica: its state in HAProxy, its CPU (% of one core, and of its quota where it has one:
cpu_clock.py, the readings cpu.csv and the CPU exporter use), the requests/s HAProxy sent it (the
increase of its `stot` between two readings), HAProxy's average response time over its last
1024 requests (`rtime`: HAProxy gives averages, no percentiles), its sessions and queue, and for
the client tier the calls waiting for a client (GET /status: client_time.waiting). Beside them the
host's CPU and the load generator's, and the bottleneck hint: analysis/measure/bottleneck.py's rule --
its plateau test over the user counts seen while the replicas stayed the same, and its
CPU-or-software judgement of the last readings, with the client lock's waiters where a thread
dump would have named the BLOCKED threads.

Two sources, one per way the stack runs:
  LocalSource       ./testbed up: the local stack's state (TESTBED_STATE_DIR), HAProxy's stats
                    page on loopback, each process's CPU
  ContainerSource   docker compose: HAProxy's stats page over the compose network, each
                    container's cgroup (the host's /sys/fs/cgroup mounted read-only) named by
                    Docker's DNS (cgroup_scan.py)
Readings are taken only when asked (the UI polls every 2 s), at most every MIN_INTERVAL_S.
"""
from __future__ import annotations

import json
import time
import urllib.request
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from analysis.measure.bottleneck import Capacities, judge, plateau
from analysis.steps import StepSample
from testbed.haproxy import config as haproxy
from testbed.haproxy.runtime import stats_csv
from testbed.cpu.clock import CpuClock, host_cores, host_cpu_seconds, quota_cores
from testbed.stack import CpuTarget

TIERS = ("front", "clone", "axis", "gsoap")
MIN_INTERVAL_S = 1.5       # readings closer than this reuse the last one
WINDOW = 5                 # readings the judgement averages (~10 s at the UI's 2 s polling)
MIN_LEVEL_READINGS = 3     # a user count seen fewer times is no step of the plateau test
STATUS_TIMEOUT_S = 1.0


@dataclass
class Replica:
    tier: str
    replica: str
    server: str | None             # HAProxy's server name, None while HAProxy does not have it
    status_url: str | None         # GET /status of a clone
    target: CpuTarget | None       # its CPU


class LocalSource:
    """The local stack (cli/testbed/stacks/local.py state) as ./testbed up and scale leave it."""

    def __init__(self, state_dir: str):
        from testbed.config import StackConfig
        from testbed.stacks.local import LocalStack
        cfg = StackConfig.load()
        cfg.state_dir = Path(state_dir)
        self.stack = LocalStack(cfg)
        self.headers = cfg.ui_headers()
        self.stack_cores = len(cfg.stack_cpus) if cfg.stack_cpus else None
        self.loadgen_cores = len(cfg.loadgen_cpus) if cfg.loadgen_cpus else None

    @property
    def stats_url(self) -> str:
        ports = (json.loads(self.stack.state_file.read_text()).get("config") or {}) \
            if self.stack.state_file.exists() else {}
        return f"http://{self.stack.cfg.client_host}:{ports.get('STATS_PORT', self.stack.cfg.stats_port)}/"

    def replicas(self, rows: list[dict]) -> list[Replica]:
        state = self.stack.load()
        out = []
        for tier, reps in sorted(state["replicas"].items()):
            for r in sorted(reps, key=lambda r: r["index"]):
                if not r["proc"].alive():
                    continue
                out.append(Replica(tier, str(r["index"]), f"{tier}{r['index']}",
                                   f"http://127.0.0.1:{r['port']}/status" if tier == "clone" else None,
                                   CpuTarget(tier, str(r["index"]), r["proc"].pid)))
        out += [Replica(t.tier, t.replica, None, None, t) for t in self.stack.cpu_targets()
                if t.tier in ("haproxy", "loadgen")]
        from testbed.observe.monitoring import all_procs
        out += [Replica("monitoring", p.name, None, None, CpuTarget("monitoring", p.name, p.pid))
                for p in all_procs(state.get("monitoring")) if p.alive()]
        return out


class ContainerSource:
    """The compose (or Swarm) stack seen from the locust-master container."""

    def __init__(self, stats_url: str, headers: dict[str, str]):
        from testbed.cpu.containers import ContainerScan
        self.stats_url, self.headers = stats_url, headers
        self.scan = ContainerScan()
        self.stack_cores = self.loadgen_cores = None

    def replicas(self, rows: list[dict]) -> list[Replica]:
        by_addr = {(r["pxname"], r.get("addr", "").rpartition(":")[0]): r["svname"] for r in rows if r.get("addr")}
        out = []
        for c in self.scan.containers() if self.scan.available() else []:
            if c.service in TIERS:
                out.append(Replica(c.service, str(c.number), by_addr.get((c.service, c.address)),
                                   f"http://{c.address}:{haproxy.DOCKER_TIER_PORT}/status"
                                   if c.service == "clone" else None, c.target()))
            elif c.service == "haproxy" or c.service.startswith("locust-"):
                t = c.target()
                out.append(Replica(t.tier, t.replica, None, None, t))
            elif c.service in ("prometheus", "cpu-exporter"):        # what watching costs
                out.append(Replica("monitoring", c.service, None, None,
                                   CpuTarget("monitoring", c.service, 0, cgroup=c.cpu_file)))
        return out


@dataclass
class Reading:
    at: float
    users: int
    rps: float
    cpu: dict[str, float]               # tier -> % of one core, replicas summed
    host: float | None                  # % of one core, all cores summed
    replicas: dict[str, int]


@dataclass
class _Level:
    rps: list[float] = field(default_factory=list)
    cpu: list[dict[str, float]] = field(default_factory=list)
    host: list[float] = field(default_factory=list)


class LiveView:
    """sample() -> {"rows": [...], "hint": {...}, "host": {...}, "loadgen": {...}}.
    locust: a callable giving (users, requests sent so far, load generator CPU %) of the Locust
    run; its requests/s are the increase of that count between two readings (Locust's own
    current_rps is a 10 s average, which lags a step or a scale-up)."""

    def __init__(self, source, locust, threshold: float = 0.8, tolerance: float = 0.03):
        self.source, self.locust = source, locust
        self.threshold, self.tolerance = threshold, tolerance
        self.clock = CpuClock()
        self._last: dict | None = None
        self._prev_cpu: tuple[float, dict[tuple[str, str], float], tuple[float, float]] | None = None
        self._prev_stot: dict[tuple[str, str, str], int] = {}
        self._prev_at = 0.0
        self._prev_requests: int | None = None
        self.readings: deque[Reading] = deque(maxlen=WINDOW)
        self.levels: dict[int, _Level] = {}
        self._config: tuple = ()

    def sample(self) -> dict:
        now = time.monotonic()
        if self._last is not None and now - self._last["_at"] < MIN_INTERVAL_S:
            return self._last
        self._last = {**self._read(now), "_at": now}
        return self._last

    # ------------------------------------------------------------------ one reading
    def _read(self, now: float) -> dict:
        error = None
        try:
            rows = stats_csv(self.source.stats_url, self.source.headers, timeout=2.0)
        except OSError as e:
            rows, error = [], f"HAProxy's stats page did not answer: {e}"
        servers = {(r["pxname"], r["svname"]): r for r in rows if r.get("svname") not in ("FRONTEND", "BACKEND")}
        replicas = self.source.replicas(rows)
        cpu_pct, host_pct = self._cpu(now, [r.target for r in replicas if r.target])
        dt = now - self._prev_at if self._prev_at else None
        stot = {}
        out_rows = []
        loadgen_cpu = [cpu_pct[(r.tier, r.replica)] for r in replicas
                       if r.tier == "loadgen" and (r.tier, r.replica) in cpu_pct]
        for rep in (r for r in replicas if r.tier != "loadgen"):
            row = servers.get((rep.tier, rep.server), {}) if rep.server else {}
            key = (rep.tier, rep.server or "", row.get("addr", ""))
            rate = None
            if row.get("stot", "").isdigit():
                stot[key] = int(row["stot"])
                # a count that fell restarted (an HAProxy reload: local scale): no rate this once
                if dt and self._prev_stot.get(key, stot[key] + 1) <= stot[key]:
                    rate = (stot[key] - self._prev_stot[key]) / dt
            quota = (quota_cores(rep.target.cgroup) if rep.target and rep.target.cgroup
                     else quota_cores(pid=rep.target.pid) if rep.target else None)
            out_rows.append({"tier": rep.tier, "replica": rep.replica, "server": rep.server,
                             "haproxy": row.get("status") or ("-" if rep.tier in TIERS else
                                                              "balancer" if rep.tier == "haproxy" else ""),
                             "cpu": cpu_pct.get((rep.tier, rep.replica)), "quota": quota,
                             "req_s": rate, "rtime_ms": _int(row.get("rtime")), "sessions": _int(row.get("scur")),
                             "queue": _int(row.get("qcur")), "waits": self._waits(rep)})
        users, requests, loadgen = self.locust()
        if loadgen_cpu:         # measured like every replica (cpu.csv's ui-master, ui-worker-N)
            loadgen = sum(loadgen_cpu)
        rps = ((requests - self._prev_requests) / dt
               if dt and self._prev_requests is not None and requests >= self._prev_requests else None)
        self._prev_stot, self._prev_at, self._prev_requests = stot, now, requests
        counts = {t: sum(1 for r in out_rows if r["tier"] == t) for t in (*TIERS, "haproxy")}
        tier_cpu = {}
        for r in out_rows:
            if r["cpu"] is not None:
                tier_cpu[r["tier"]] = tier_cpu.get(r["tier"], 0.0) + r["cpu"]
        if loadgen is not None:
            tier_cpu["loadgen"] = loadgen
        self._remember(Reading(now, users, rps, tier_cpu, host_pct, counts))
        return {"rows": out_rows, "host": {"cpu": host_pct, "cores": host_cores()},
                "loadgen": {"cpu": loadgen, "users": users, "rps": rps},
                "hint": self._hint(out_rows, counts), "error": error}

    def _cpu(self, now: float, targets: list[CpuTarget]) -> tuple[dict[tuple[str, str], float], float | None]:
        seconds = self.clock.read(targets)
        busy, idle = host_cpu_seconds()
        prev, self._prev_cpu = self._prev_cpu, (now, seconds, (busy, idle))
        if prev is None or now <= prev[0]:
            return {}, None
        dt = now - prev[0]
        pct = {k: max(0.0, v - prev[1][k]) / dt * 100 for k, v in seconds.items() if k in prev[1]}
        d_busy, d_all = busy - prev[2][0], (busy + idle) - sum(prev[2])
        host = d_busy / d_all * 100 * host_cores() if d_all > 0 else None
        return pct, host

    def _waits(self, rep: Replica) -> dict | None:
        """The client lock of a clone: calls waiting now, from its GET /status."""
        if not rep.status_url:
            return None
        try:
            with urllib.request.urlopen(rep.status_url, timeout=STATUS_TIMEOUT_S) as r:
                status = json.load(r)
        except (OSError, ValueError):
            return None
        waiting = sum(int((b.get("client_time") or {}).get("waiting", 0))
                      for b in (status.get("backends") or {}).values())
        return {"mode": status.get("mode"), "waiting": waiting}

    # ------------------------------------------------------------------ the hint
    def _remember(self, reading: Reading) -> None:
        config = tuple(sorted(reading.replicas.items()))
        if config != self._config:            # other replicas: another system, other steps
            self._config, self.levels = config, {}
            self.readings.clear()
        self.readings.append(reading)
        if reading.users > 0 and reading.rps is not None:
            level = self.levels.setdefault(reading.users, _Level())
            level.rps.append(reading.rps)
            level.cpu.append(reading.cpu)
            if reading.host is not None:
                level.host.append(reading.host)

    def _steps(self) -> list[StepSample]:
        out = []
        for i, (users, lv) in enumerate(sorted(self.levels.items())):
            if len(lv.rps) < MIN_LEVEL_READINGS:
                continue
            out.append(_step(i, users, lv.rps, lv.cpu, lv.host, dict(self._config)))
        return out

    def _hint(self, rows: list[dict], counts: dict[str, int]) -> dict:
        recent = [r for r in self.readings if r.users > 0 and r.rps is not None]
        if not recent:
            return {"kind": "idle", "text": "no load running: start a test to see where it saturates"}
        now = _step(len(self.levels), recent[-1].users, [r.rps for r in recent], [r.cpu for r in recent],
                    [r.host for r in recent if r.host is not None], counts)
        plateaued, knee = plateau(self._steps(), self.tolerance)
        where = f"{now.throughput:.4g}/s at {now.users} users" + (
            f", plateau from {knee.users} users" if plateaued and knee else ", no plateau seen yet")
        quotas: dict[str, float] = {}
        for r in rows:
            if r["quota"]:
                quotas[r["tier"]] = max(quotas.get(r["tier"], 0.0), r["quota"])
        caps = Capacities(float(host_cores()), self.source.stack_cores, self.source.loadgen_cores, quotas)
        waits = [{"tier": r["tier"], "replica": r["replica"], "blocked": r["waits"]["waiting"], "source": "lock",
                  "sentence": f"{r['waits']['waiting']} threads "
                              + ("BLOCKED on SingletonSoapClient" if r["waits"]["mode"] == "singleton"
                                 else "waiting for a pooled client")}
                 for r in rows if r.get("waits")]
        h = judge(now, caps, where, self.threshold, waits, plateaued)
        return {"kind": h.kind, "text": h.text, "plateaued": plateaued,
                "utilisation": {k: round(v, 3) for k, v in h.utilisation.items()},
                "host_utilisation": None if h.host_utilisation is None else round(h.host_utilisation, 3)}


def _step(index: int, users: int, rps: list[float], cpu: list[dict[str, float]], host: list[float],
          replicas: dict[str, int]) -> StepSample:
    tiers = {t for c in cpu for t in c}
    mean_cpu = {t: sum(c.get(t, 0.0) for c in cpu) / len(cpu) for t in tiers}
    return StepSample("live", index, users, None, None, None, None, len(rps), throughput=sum(rps) / len(rps),
                      cpu=mean_cpu, replicas=replicas, host_cpu=sum(host) / len(host) if host else None)


def _int(value) -> int | None:
    return int(value) if isinstance(value, str) and value.isdigit() else None
