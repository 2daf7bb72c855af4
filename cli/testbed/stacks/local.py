"""The stack as plain processes on loopback: start, scale, inspect and stop every tier and
HAProxy. State (pids, ports) lives in <state_dir>/state.json, guarded by a lock file, so
`down` stops exactly what `up` and `scale` started — and nothing else. A replica with a CPU
quota (CPUS_<TIER>, as compose's `cpus`) runs in a cgroup of its own (quotas.py), made before
it starts and removed after it stops."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import shutil
import subprocess

from testbed import procs, tiers
from testbed.haproxy.runtime import Runtime, idle, wait_for
from testbed.stacks import locust_ui
from testbed.stacks.local_haproxy import LocalHaproxy
from testbed.cpu import quotas
from testbed.observe import monitoring as monitoring_mod
from testbed.observe import tracing as tracing_mod
from testbed.config import StackConfig
from testbed.stack import CpuTarget, Stack, StackError  # noqa: F401  (StackError: callers' import)

JSTACK_TIMEOUT_S = 20.0


class LocalStack(LocalHaproxy, Stack):
    mode = "local"

    def __init__(self, cfg: StackConfig | None = None, log=print):
        super().__init__(cfg, log)
        self.dir = self.cfg.state_dir
        self.state_file = self.dir / "state.json"
        self.runtime = Runtime(self.dir / "haproxy.sock")
        self.quotas = quotas.Quotas(self.dir, self.cfg.knobs)    # sees the knobs' later overrides

    # ---------------------------------------------------------------- state
    @contextlib.contextmanager
    def locked(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / "lock", "w") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StackError(f"another ./testbed command is changing the stack ({self.dir}/lock); "
                                 "wait for it to finish") from None
            yield

    def load(self) -> dict:
        if not self.state_file.exists():
            return {"haproxy": None, "replicas": {}, "overrides": {}, "locust": None, "monitoring": None,
                    "tracing": None}
        state = json.loads(self.state_file.read_text())
        state.setdefault("overrides", {})
        state["locust"] = locust_ui.from_dict(state.get("locust"))
        state["monitoring"] = monitoring_mod.from_dict(state.get("monitoring"))
        state["tracing"] = tracing_mod.from_dict(state.get("tracing"))
        self.cfg.knobs.update(state["overrides"])
        state["haproxy"] = procs.Proc.from_dict(state["haproxy"]) if state.get("haproxy") else None
        for name, reps in state.get("replicas", {}).items():
            for r in reps:
                r["proc"] = procs.Proc.from_dict(r["proc"])
        return state

    def save(self, state: dict) -> None:
        out = {"config": {**self.cfg.entry_ports(), "BIND_ADDRESS": self.cfg.bind},
               "overrides": state.get("overrides", {}),
               "haproxy": state["haproxy"].to_dict() if state.get("haproxy") else None,
               "locust": locust_ui.to_dict(state.get("locust")),
               "monitoring": monitoring_mod.to_dict(state.get("monitoring")),
               "tracing": tracing_mod.to_dict(state.get("tracing")),
               "replicas": {n: [{**r, "proc": r["proc"].to_dict()} for r in reps]
                            for n, reps in state["replicas"].items() if reps}}
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(out, indent=1))
        os.replace(tmp, self.state_file)

    def running(self) -> bool:
        """HAProxy or a replica runs, or a process is left in the stack's quota groups (a CLI
        killed while it started them: `down` stops those too)."""
        state = self.load()
        return bool(state["haproxy"] and state["haproxy"].alive()) or any(
            r["proc"].alive() for reps in state["replicas"].values() for r in reps) or bool(self.quotas.pids())

    # ---------------------------------------------------------------- replicas
    def _start_replicas(self, tier: tiers.Tier, indexes: list[int], state: dict) -> list[dict]:
        started = []
        for i in indexes:
            port = tier.port(self.cfg.replica_port_base, i)
            metrics = tier.metrics_port(port)
            busy = [p for p in dict.fromkeys((port, metrics)) if not procs.wait_port_free(p, 10.0)]
            if busy:
                raise StackError(f"port {busy[0]} (for {tier.name}-{i}) is in use by another program; "
                                 f"free it or move all replica ports with TESTBED_REPLICA_PORT_BASE=<port>")
            env = tiers.process_env(tier, port, self.cfg.knobs, extra=self._wiring(tier.name, state),
                                    metrics_port=metrics)
            groups = self.quotas.place(f"{tier.name}-{i}", tier.name)
            proc = procs.start(f"{tier.name}-{i}", tier.argv(), self.dir / "logs" / f"{tier.name}-{i}.log",
                               env=env, port=port, cwd=tiers.ROOT, cpus=self.cfg.stack_cpus, cgroups=groups)
            started.append({"index": i, "port": port, "proc": proc})
        return started

    def _wiring(self, tier: str, state: dict) -> dict[str, str]:
        """Where a tier finds the tiers it calls: through HAProxy, like in compose; with tracing
        on, Zipkin (directly: spans never pass through the HAProxy being measured); and the
        stack's admin token, for the tiers that have admin endpoints (testbed/tiers.py)."""
        h = self.cfg.client_host
        out = {"CLONES_URL": f"http://{h}:{self.cfg.clones_port}",
               "SOAP_URL": f"http://{h}:{self.cfg.soap_port}"}
        if tier in tiers.ADMIN_TIERS:       # its admin endpoints answer the stack's token only
            out.update(tiers.admin_env(self.dir))
        if state.get("tracing"):
            out["ZIPKIN_URL"] = tracing_mod.local_url(self.cfg)
        return out

    def _wait_healthy(self, tier: tiers.Tier, reps: list[dict]) -> None:
        def one(r):
            procs.wait_healthy(r["proc"], f"http://127.0.0.1:{r['port']}{tier.health_path}",
                               tier.start_timeout)
        with ThreadPoolExecutor(max_workers=max(1, len(reps))) as ex:
            errors = [f.exception() for f in [ex.submit(one, r) for r in reps]]
        errors = [e for e in errors if e]
        if errors:
            raise StackError("; ".join(str(e) for e in errors))

    # ---------------------------------------------------------------- verbs
    def up(self, counts: dict[str, int], overrides: dict[str, str] | None = None,
           locust: bool = False, monitoring: bool = False, tracing: bool = False) -> dict:
        """Start HAProxy with every planned replica, then the tiers callees first, each
        healthy and UP in HAProxy before its callers start (a singleton client fetches its
        WSDL through HAProxy at start-up); then, with locust=True, the Locust web UI, and with
        monitoring=True Prometheus and the CPU exporter (monitoring.py). tracing=True: Zipkin
        first, then everything with tracing on (tracing.py)."""
        with self.locked():
            state = self.load()
            if state["haproxy"] and state["haproxy"].alive() or any(
                    r["proc"].alive() for reps in state["replicas"].values() for r in reps):
                raise StackError("the stack is already up (./testbed status); change replica counts with "
                                 "./testbed scale TIER=N, or ./testbed down first")
            state = {"haproxy": None, "replicas": {}, "overrides": dict(overrides or {}), "locust": None,
                     "monitoring": None, "tracing": None}
            tiers.create_admin_token(self.dir)                     # a new admin token for this stack's tiers
            self.cfg.knobs.update(state["overrides"])
            quotas.all_cores(self.cfg.knobs)           # a bad CPUS_* fails before anything starts
            self.quotas.clear_stale()                  # groups a killed CLI left behind
            order = [n for n in tiers.START_ORDER if counts.get(n, 0) > 0]
            plan = {n: [(i, tiers.TIERS[n].port(self.cfg.replica_port_base, i))
                        for i in range(1, counts[n] + 1)] for n in order}
            try:
                if tracing:
                    state["tracing"] = tracing_mod.start(self.cfg, self.dir / "logs")
                    self.save(state)
                    self.log("  waiting for Zipkin to be healthy ...")
                    tracing_mod.wait(state["tracing"], self.cfg)
                self._start_haproxy(state, plan)
                self.save(state)
                for name in order:
                    tier = tiers.TIERS[name]
                    reps = self._start_replicas(tier, [i for i, _ in plan[name]], state)
                    state["replicas"][name] = reps
                    self.save(state)
                    self.log(f"  waiting for {name} ×{len(reps)} to be healthy ...")
                    self._wait_healthy(tier, reps)
                    self._wait_up_in_haproxy(name, reps)
                if locust:
                    state["locust"] = locust_ui.start(self.cfg, self.dir / "logs",
                                                      tracing_mod.local_url(self.cfg) if tracing else "",
                                                      groups=lambda name: self.quotas.place(name, "locust"))
                    self.save(state)
                    locust_ui.wait(state["locust"], self.cfg)
                if monitoring:
                    state["monitoring"] = monitoring_mod.start(self.cfg, self._plan(state), self.dir / "logs")
                    self.save(state)
                    monitoring_mod.wait(state["monitoring"], self.cfg)
            except BaseException:
                self.log("  start failed; stopping what was started")
                self._stop_all(state)
                raise
            return state

    def down(self) -> list[str]:
        with self.locked():
            state = self.load()
            stopped = self._stop_all(state)
            return stopped

    def _stop_all(self, state: dict) -> list[str]:
        stopped = [p.name for p in locust_ui.all_procs(state.get("locust")) + monitoring_mod.all_procs(
            state.get("monitoring")) if procs.stop(p, timeout=5)]
        if state.get("haproxy") and procs.stop(state["haproxy"], sig=signal.SIGUSR1, timeout=5):
            stopped.append("haproxy")
        reps = [r for rs in state["replicas"].values() for r in rs]
        with ThreadPoolExecutor(max_workers=max(1, len(reps))) as ex:
            for r, was in zip(reps, ex.map(lambda r: procs.stop(r["proc"]), reps)):
                if was:
                    stopped.append(r["proc"].name)
        stopped += self.quotas.stop_and_clear({p.pid for p in [state.get("haproxy"), *(r["proc"] for r in reps),
                                                               *locust_ui.all_procs(state.get("locust"))] if p})
        # Zipkin last: the tiers' last spans reach it before it goes (they are in memory only)
        stopped += [p.name for p in tracing_mod.all_procs(state.get("tracing")) if procs.stop(p, timeout=10)]
        self.state_file.unlink(missing_ok=True)
        return stopped

    def scale(self, name: str, n: int, drain_timeout: float = 30) -> tuple[int, int]:
        """Bring a tier to n replicas while load runs. Removed replicas (dead ones first,
        then the highest indexes) are drained in HAProxy and stopped once idle; new ones
        join after they are healthy, through a seamless reload. A kept replica that had
        died is started again on its port."""
        tier = tiers.TIERS[name]
        with self.locked():
            state = self.load()
            if not (state["haproxy"] and state["haproxy"].alive()):
                raise StackError("the stack is not up; start it with ./testbed up")
            reps = sorted(state["replicas"].get(name, []), key=lambda r: (not r["proc"].alive(), r["index"]))
            before = len(reps)
            keep, gone = reps[:n], reps[n:]
            if gone:
                live = [r for r in gone if r["proc"].alive()]
                for r in live:
                    self.runtime.set_state(name, f"{name}{r['index']}", "drain")
                if live:
                    self._wait_drained(name, live, drain_timeout)
                state["replicas"][name] = keep
                self._reload_haproxy(state)
                self.save(state)
                for r in live:
                    procs.stop(r["proc"])
                for r in gone:
                    self.quotas.remove(f"{name}-{r['index']}")
            self._replace_dead(tier, keep, state)
            if n > before:
                used = {r["index"] for r in keep}
                new_idx = [i for i in range(1, tiers.MAX_REPLICAS + 1) if i not in used][: n - before]
                new = self._start_replicas(tier, new_idx, state)
                state["replicas"][name] = keep + new
                self.save(state)
                try:
                    self._wait_healthy(tier, new)
                except StackError:
                    for r in new:
                        procs.stop(r["proc"])
                        self.quotas.remove(f"{name}-{r['index']}")
                    state["replicas"][name] = keep
                    self.save(state)
                    raise
                self._reload_haproxy(state)
                self._wait_up_in_haproxy(name, new)
            return before, n

    def _replace_dead(self, tier: tiers.Tier, reps: list[dict], state: dict) -> None:
        """A replica that died (crash, kill) is started again on its port before scaling."""
        for pos, r in enumerate(reps):
            if r["proc"].alive():
                continue
            self.log(f"  {tier.name}-{r['index']} had died; starting it again")
            new = self._start_replicas(tier, [r["index"]], state)[0]
            reps[pos] = new
            state["replicas"][tier.name] = reps
            self.save(state)
            self._wait_healthy(tier, [new])
            self._wait_up_in_haproxy(tier.name, [new])

    def restart(self, name: str, overrides: dict[str, str], drain_timeout: float = 30) -> None:
        """Give a tier new knobs (e.g. CLIENT_MODE) while the stack runs: one replica at a
        time is drained in HAProxy, stopped, started again with the new environment on the
        same port, and put back in rotation once healthy. The knobs stay for later scaling."""
        tier = tiers.TIERS[name]
        with self.locked():
            state = self.load()
            if not (state["haproxy"] and state["haproxy"].alive()):
                raise StackError("the stack is not up; start it with ./testbed up")
            quotas.all_cores({**self.cfg.knobs, **overrides})     # a bad CPUS_* stops nothing
            state["overrides"].update(overrides)
            self.cfg.knobs.update(overrides)
            self.save(state)
            reps = sorted(state["replicas"].get(name, []), key=lambda r: r["index"])
            for pos, r in enumerate(reps):
                server = f"{name}{r['index']}"
                if len(reps) > 1:
                    self.runtime.set_state(name, server, "drain")
                    self._wait_drained(name, [r], drain_timeout)
                procs.stop(r["proc"])
                new = self._start_replicas(tier, [r["index"]], state)[0]
                reps[pos] = new
                state["replicas"][name] = reps
                self.save(state)
                self._wait_healthy(tier, [new])
                self._wait_up_in_haproxy(name, [new])
            self._reload_haproxy(state)      # knobs such as GSOAP_POOL_SIZE shape its maxconn

    switches_lifecycle = True

    def keep_knobs(self, overrides: dict[str, str]) -> None:
        with self.locked():
            state = self.load()
            state["overrides"].update(overrides)
            self.cfg.knobs.update(overrides)
            self.save(state)

    def load_quota(self, name: str) -> list[str]:
        return self.quotas.place(f"run-{name}", "locust")      # beside the UI's Locust groups, never one of them

    def load_quota_cores(self) -> float | None:
        return quotas.cores(self.cfg.knobs, "locust")

    def load_quota_done(self, names: list[str]) -> None:
        for name in names:
            self.quotas.remove(f"run-{name}")

    def _wait_drained(self, name: str, gone: list[dict], timeout: float) -> None:
        names = {f"{name}{r['index']}" for r in gone}

        # a request may be between HAProxy's routing and the server's session count
        time.sleep(0.5)
        wait_for(lambda: idle(self.runtime.servers(name), names), timeout,
                         f"{', '.join(sorted(names))} to finish their requests")

    def status(self) -> dict:
        state = self.load()
        hp = state.get("haproxy")
        ha_rows = {}
        if hp and hp.alive():
            with contextlib.suppress(OSError):
                ha_rows = {(r["pxname"], r["svname"]): r for r in self.runtime.stats()}
        quota = self.quotas.quota
        out = {"mode": self.mode, "up": bool(hp and hp.alive()), "state_dir": str(self.dir),
               "entry_points": self.entry_points(state) if hp and hp.alive() else {},
               "haproxy": {"pid": hp.pid, "alive": hp.alive(), "cpu_quota": quota("haproxy")} if hp else None,
               "locust": [{"name": p.name, "pid": p.pid, "alive": p.alive(), "cpu_quota": quota(p.name)}
                          for p in locust_ui.all_procs(state.get("locust"))],
               "replicas": []}
        for name, reps in sorted(state["replicas"].items()):
            tier = tiers.TIERS[name]
            for r in sorted(reps, key=lambda r: r["index"]):
                alive = r["proc"].alive()
                row = ha_rows.get((name, f"{name}{r['index']}"), {})
                out["replicas"].append({
                    "tier": name, "replica": r["index"], "alive": alive,
                    "healthy": alive and procs.http_ok(f"http://127.0.0.1:{r['port']}{tier.health_path}", 1.0),
                    "haproxy": row.get("status", "-") if row else "-", "server": f"{name}{r['index']}",
                    "sessions": int(row.get("scur") or 0) if row else 0,
                    "url": f"http://127.0.0.1:{r['port']}", "pid": r["proc"].pid, "port": r["port"],
                    "container": None, "address": "127.0.0.1", "log": r["proc"].log,
                    "cpu_quota": quota(f"{name}-{r['index']}"), "node": None})
        return out

    def current(self) -> tuple[dict[str, int], dict[str, str]]:
        state = self.load()              # also applies the stack's saved overrides to cfg.knobs
        return {t: len(state["replicas"].get(t, [])) for t in tiers.TIERS}, dict(self.cfg.knobs)

    def tracing_url(self) -> str | None:
        """Zipkin's API as this host reaches it (loopback), when tracing is on."""
        running = any(p.alive() for p in tracing_mod.all_procs(self.load().get("tracing")))
        return tracing_mod.local_url(self.cfg) if running else None

    def ui_url(self) -> str | None:
        running = any(p.alive() for p in locust_ui.all_procs(self.load().get("locust")))
        return locust_ui.url(self.cfg) if running else None

    def cpu_targets(self) -> list[CpuTarget]:
        """Every process; one with a quota group is read from the group's CPU accounting (ns,
        every thread and child of it), the others from /proc (clock ticks)."""
        state = self.load()
        usage = self.quotas.usage_file
        out = [CpuTarget(name, str(r["index"]), r["proc"].pid, cgroup=usage(f"{name}-{r['index']}"))
               for name, reps in sorted(state["replicas"].items()) for r in reps if r["proc"].alive()]
        if state["haproxy"] and state["haproxy"].alive():
            out.append(CpuTarget("haproxy", "1", state["haproxy"].pid, tree=True, cgroup=usage("haproxy")))
        out += [CpuTarget("loadgen", p.name.replace("locust-", "ui-"), p.pid, cgroup=usage(p.name))
                for p in locust_ui.all_procs(state.get("locust")) if p.alive()]
        own = self.cfg.knobs.get("OWN_PID") or ""
        if own.isdigit() and Path(f"/proc/{own}").is_dir():     # your own service, where you said it runs
            out.append(CpuTarget("own", "1", int(own), tree=True))
        return out

    def signal(self, replica: dict, sig: int) -> None:
        state = self.load()
        proc = next((r["proc"] for r in state["replicas"].get(replica["tier"], [])
                     if r["index"] == replica["replica"]), None)
        if proc is None or not proc.alive():
            raise StackError(f"{replica['tier']}-{replica['replica']} is not running")
        os.kill(proc.pid, sig)

    def revive(self, replica: dict) -> None:
        tier = replica["tier"]
        self.scale(tier, len(self.load()["replicas"].get(tier, [])))   # starts the dead ones again

    def server_states(self, tier: str) -> dict[str, dict]:
        return {name: {"status": r["status"], "sessions": int(r.get("scur") or 0)}
                for name, r in self.runtime.servers(tier).items()}

    def thread_dump(self, replica: dict) -> str:
        if not shutil.which("jstack"):
            raise StackError("jstack not found (install a JDK): no thread dumps")
        try:
            p = subprocess.run(["jstack", str(replica["pid"])], capture_output=True, text=True,
                               timeout=JSTACK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise StackError(f"jstack timed out after {JSTACK_TIMEOUT_S:.0f} s") from None
        if p.returncode != 0 or "Full thread dump" not in p.stdout:
            raise StackError(f"jstack failed: {(p.stderr or p.stdout).strip()[:200]}")
        return p.stdout

    def describe(self) -> dict:
        """cpu_quotas: cores per replica of each tier that has a quota, as the kernel has it
        (its first replica's group), or None when no tier has one."""
        return {"mode": self.mode, "images": None, "cpu_quotas": self.quotas.per_tier(
                    {t: [r["index"] for r in reps] for t, reps in self.load()["replicas"].items()}, tiers.TIERS),
                "loadgen": {"where": "host", "target": self.web_url(),
                            "why": "local mode: Locust runs as processes of this host, like the stack"}}

    def urls(self) -> dict[str, str]:
        h = self.cfg.client_host
        return {"locust": locust_ui.url(self.cfg),
                "web": f"http://{h}:{self.cfg.web_port}/",
                "clones": f"http://{h}:{self.cfg.clones_port}/invoke",
                "axis": f"http://{h}:{self.cfg.soap_port}/axis",
                "gsoap": f"http://{h}:{self.cfg.soap_port}/gsoap",
                "stats": f"http://{h}:{self.cfg.stats_port}/",
                "metrics": f"http://{h}:{self.cfg.stats_port}/metrics",
                "bound": f"http://{h}:{self.cfg.bound_port}/",
                "prometheus": f"http://{h}:{self.cfg.prometheus_port}/",
                "zipkin": f"http://{h}:{self.cfg.zipkin_port}/zipkin/"}

    def entry_points(self, state: dict | None = None) -> dict[str, str]:
        """urls() without Locust, Prometheus or Zipkin when they are not running (state: as load() returns it)."""
        state = state or self.load()
        off = {n for n, ps in (("locust", locust_ui.all_procs(state.get("locust"))),
                               ("prometheus", monitoring_mod.all_procs(state.get("monitoring"))),
                               ("zipkin", tracing_mod.all_procs(state.get("tracing"))))
               if not any(p.alive() for p in ps)}
        return {n: u for n, u in self.urls().items() if n not in off}

    def logs(self, tier: str, lines: int = 40, follow: bool = False) -> int:
        paths = self.log_files(tier)
        if not paths:
            print(f"logs: no logs for {tier} yet")
            return 1
        if follow:
            return subprocess.call(["tail", "-n", str(lines), "-F", *map(str, paths)])
        for p in paths:
            print(f"==> {p} <==")
            print("\n".join(p.read_text(errors="replace").splitlines()[-lines:]))
        return 0

    def log_files(self, name: str) -> list[Path]:
        state = self.load()
        if name == "haproxy":
            return [self.dir / "logs" / "haproxy.log"]
        if name == "locust":
            return sorted((self.dir / "logs").glob("locust-*.log"))
        if name == "zipkin":
            return [self.dir / "logs" / "zipkin.log"]
        if name not in tiers.TIERS:
            raise StackError(f"unknown tier {name!r}; one of: haproxy, locust, zipkin, {', '.join(tiers.TIERS)}")
        paths = sorted((self.dir / "logs").glob(f"{name}-*.log"))
        live = {Path(r["proc"].log) for r in state["replicas"].get(name, [])}
        return [p for p in paths if p in live] or paths
