"""HAProxy of the local stack: its configuration rendered from the replicas' ports, started in
front of them, reloaded (SIGUSR2, server states kept) when replicas come and go, and a new
replica put in rotation once healthy. A mixin of LocalStack (stacks/local.py): it uses the
stack's cfg, dir (the state directory), runtime (HAProxy's runtime API) and quotas."""
from __future__ import annotations

import os
import signal
from pathlib import Path

from testbed import procs
from testbed.haproxy import config as haproxy
from testbed.haproxy.runtime import wait_for
from testbed.observe import monitoring as monitoring_mod
from testbed.observe import tracing as tracing_mod
from testbed.stack import StackError


class LocalHaproxy:
    @staticmethod
    def _plan(state: dict) -> dict[str, list[tuple[int, int]]]:
        return {name: [(r["index"], r["port"]) for r in reps] for name, reps in state["replicas"].items()}

    def _render(self, plan: dict[str, list[tuple[int, int]]], tracing: bool) -> Path:
        servers = {name: haproxy.local_servers(name, reps, self.cfg.knobs) for name, reps in plan.items()}
        path = self.dir / "haproxy.cfg"
        tmp = self.dir / "haproxy.cfg.new"
        tmp.write_text(haproxy.render(self.cfg, servers, locust_server=f"    server locust "
                                      f"127.0.0.1:{self.cfg.locust_web_port}  # Locust's own web UI",
                                      prometheus_server=f"    server prometheus 127.0.0.1:"
                                      f"{monitoring_mod.prometheus_port(self.cfg)}  # up --monitoring",
                                      zipkin_server=tracing_mod.local_server(self.cfg),
                                      trace=tracing_mod.local_haproxy(self.cfg) if tracing else ("", "")))
        haproxy.check(tmp)
        os.replace(tmp, path)
        return path

    def _haproxy_serves(self, plan: dict[str, list[tuple[int, int]]]) -> bool:
        try:
            have = {(r["pxname"], r["svname"]) for r in self.runtime.stats()}
        except OSError:
            return False
        have = {(b, s) for b, s in have if b in haproxy.BACKENDS}     # not the locust_ui backend
        return have == {(name, f"{name}{i}") for name, reps in plan.items() for i, _ in reps}

    def _start_haproxy(self, state: dict, plan: dict[str, list[tuple[int, int]]]) -> None:
        cfg_path = self._render(plan, bool(state.get("tracing")))
        busy = [f"{k}={p}" for k, p in self.cfg.entry_ports().items() if not procs.port_free(p, self.cfg.bind)]
        if busy:
            raise StackError(f"port in use: {', '.join(busy)}; stop what holds it, or set "
                             f"{busy[0].split('=')[0]}=<free port> in .env or the environment")
        (self.dir / "haproxy.state").write_text("1\n")   # an empty server-state file, version 1
        proc = procs.start("haproxy", ["haproxy", "-f", str(cfg_path), "-p", str(self.dir / "haproxy.pid")],
                           self.dir / "logs" / "haproxy.log", cpus=self.cfg.stack_cpus,
                           cgroups=self.quotas.place("haproxy", "haproxy"))   # its workers too
        state["haproxy"] = proc
        wait_for(lambda: self._haproxy_serves(plan) or not proc.alive(), 15, "HAProxy to start")
        if not proc.alive():
            raise StackError("HAProxy exited at start:\n" + procs.tail(Path(proc.log)))

    def _reload_haproxy(self, state: dict) -> None:
        plan = self._plan(state)
        if state.get("monitoring"):           # Prometheus reads its file_sd files again by itself
            monitoring_mod.write_targets(self.cfg, plan)
        self.runtime.save_state(self.dir / "haproxy.state")
        self._render(plan, bool(state.get("tracing")))
        os.kill(state["haproxy"].pid, signal.SIGUSR2)
        wait_for(lambda: self._haproxy_serves(plan), 15, "HAProxy to reload with the new servers")

    def _wait_up_in_haproxy(self, name: str, reps: list[dict], timeout: float = 30) -> None:
        """Put the (healthy) replicas in rotation and wait until HAProxy has them UP. A server
        is rendered `disabled` (haproxy.local_servers): it is never checked before its replica
        listens, so a normal start shows no DOWN transition and no "no server available"."""
        names = {f"{name}{r['index']}" for r in reps}
        for server in sorted(names):
            self.runtime.set_state(name, server, "ready")

        def all_up():
            rows = self.runtime.servers(name)
            return all(s in rows and rows[s]["status"] == "UP" for s in names)
        wait_for(all_up, timeout, f"{', '.join(sorted(names))} to be UP in HAProxy")
