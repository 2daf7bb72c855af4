"""The stack as containers (ComposeStack): `./testbed up --docker`, and every verb and
experiment on a stack that runs in containers. Everything goes through `docker compose` on
the repository's docker-compose.yml (+ docker-compose.override.yml, + .env), so the CLI and a
person typing `docker compose ...` drive the same project. HAProxy finds replicas by Docker's
DNS (server-template), so scaling is `docker compose up --scale`; this module then waits until
HAProxy reports the new count UP, reading its stats page (CSV). Before a scale-down it drains,
through HAProxy's runtime API in the haproxy container, the replicas compose is about to
remove, so none of them is stopped with a request on it or sent to after.

Measuring: CPU per replica from each container's cgroup (cgroup.py, sampled by run/record/sampler.py), thread dumps of the Java
tiers by SIGQUIT (`docker kill --signal QUIT`: the JVM prints a jstack-format dump to its
stdout, read back with `docker logs`; the images carry a JRE, which has no jcmd/jstack)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

from testbed import tiers
from testbed.cpu import cgroup
from testbed.haproxy import config as haproxy
from testbed.haproxy.runtime import idle, stats_csv, wait_for
from testbed.config import StackConfig
from testbed.stacks.dockercli import (DockerError, compose, containers, engine_version, extract_dump, health_test, healthy,
                               inspect, number_of, passes, slots_of, to_remove)
from testbed.stack import CpuTarget, Stack, StackError

__all__ = ["ComposeStack", "DockerError", "compose", "containers", "extract_dump", "inspect", "slots_of",
           "to_remove"]

SERVICES = ("haproxy", "front", "clone", "axis", "gsoap", "locust-master", "locust-worker")
LOCUST = ("locust-master", "locust-worker")
HEALTHY_TIMEOUT = 600      # `up --wait`: a first run builds every image (docs/docker.md)
SCALE_TIMEOUT = 180        # a JVM replica on a busy 2-core machine, then HAProxy's checks
DRAIN_TIMEOUT = 30         # longest a removed replica is given to finish its requests
DUMP_TIMEOUT = 20          # a thread dump to appear in the container's log
READY_POLL_S = 0.5         # a starting replica's healthcheck, run by _wait_ready


# The runtime API is a unix socket inside the haproxy container (admin level, never
# published): a command reaches it through `docker compose exec`, with the container's
# own Python and the testbed's Runtime class (services/haproxy/Dockerfile puts both there).
_RUNTIME = ("import sys; from testbed.haproxy.config import DOCKER_STATE_DIR; from testbed.haproxy.runtime import Runtime; "
            "print(Runtime(DOCKER_STATE_DIR / 'haproxy.sock').command(sys.argv[1]), end='')")


class ComposeStack(Stack):
    mode = "docker"

    def __init__(self, cfg: StackConfig | None = None, log=print):
        super().__init__(cfg, log)
        self._haproxy_ip: str | None = None    # entry_url(): "" = not routable from here

    # ------------------------------------------------------------------ compose
    def env(self) -> dict[str, str]:
        """What every compose call of this stack gets: its project name and where it publishes
        (the configuration's ports, so a private stack can live beside the default one); the
        UI credentials as this CLI read them (compose would read .env by rules of its own: `$`
        expands there), and the admin token `up` made (testbed/tiers.py: the clone's
        environment), so a replica scaled or restarted later gets the same."""
        c = self.cfg
        ui = {k: c.knobs[k] for k in ("UI_USER", "UI_PASSWORD") if c.knobs.get(k)}
        return {"COMPOSE_PROJECT_NAME": c.knobs.get("COMPOSE_PROJECT_NAME", "testbed"), "BIND_ADDRESS": c.bind,
                **{k: str(v) for k, v in c.entry_ports().items()}, **ui, **tiers.admin_env(c.state_dir)}

    def _compose(self, args: list[str], overrides: dict[str, str] | None = None, **kw):
        return compose(args, {**self.env(), **(overrides or {})}, **kw)

    def _containers(self) -> list[dict]:
        return containers(self.env())

    # ------------------------------------------------------------------ knobs
    @property
    def _overrides_file(self):
        return self.cfg.state_dir / "docker-overrides.json"

    def overrides(self) -> dict[str, str]:
        """Knobs given on `up --docker` (--client-mode ...) or by restart(), kept for later
        compose calls so a scaled replica gets the same environment as the others."""
        path = self._overrides_file
        return json.loads(path.read_text()) if path.exists() else {}

    def _save_overrides(self, overrides: dict[str, str]) -> None:
        self.cfg.state_dir.mkdir(parents=True, exist_ok=True)
        self._overrides_file.write_text(json.dumps(overrides))

    # a switched replica keeps its container's environment: a later `compose up` of the tier sees
    # the kept knobs differ from it and recreates its containers with them (a restart, as it must)
    switches_lifecycle = True

    def keep_knobs(self, overrides: dict[str, str]) -> None:
        self._save_overrides({**self.overrides(), **overrides})

    def current(self) -> tuple[dict[str, int], dict[str, str]]:
        running = [c for c in self._containers() if c.get("State") == "running"]
        counts = {t: sum(1 for c in running if c["Service"] == t) for t in tiers.TIERS}
        return counts, {**self.cfg.knobs, **self.overrides()}

    # ------------------------------------------------------------------ lifecycle
    def running(self) -> bool:
        """Containers of this compose project exist (running or not)."""
        if not shutil.which("docker"):
            return False
        try:
            return bool(self._containers())
        except DockerError:
            return False

    def up(self, counts: dict[str, int], overrides: dict[str, str] | None = None,
           locust: bool = False, monitoring: bool = False, tracing: bool = False) -> None:
        if self.running():
            raise StackError("the containerized stack is already up (./testbed status); change replica "
                             "counts with ./testbed scale TIER=N, or ./testbed down first")
        scale = [a for n in tiers.TIERS for a in ("--scale", f"{n}={counts.get(n, 0)}")]
        if not locust:
            scale += ["--scale", "locust-master=0", "--scale", "locust-worker=0"]
        overrides = dict(overrides or {})
        self._save_overrides(overrides)
        tiers.create_admin_token(self.cfg.state_dir)           # a new admin token: env() hands it to the clones
        profile = (["--profile", "monitoring"] if monitoring else []) + (["--profile", "tracing"] if tracing else [])
        self.log("up: docker compose " + " ".join(profile + ["up", "--wait", *scale]) +
                 " (images are built when missing: docker compose build rebuilds them)")
        self._compose([*profile, "up", "--detach", "--wait", "--wait-timeout", str(HEALTHY_TIMEOUT), *scale], overrides)
        for name in tiers.TIERS:
            self.wait_servers(name, counts.get(name, 0))

    def down(self) -> list[str]:
        names = sorted({c["Service"] for c in self._containers()})
        # the monitoring and tracing profiles' containers too, whether or not they were asked for at up
        self._compose(["--profile", "monitoring", "--profile", "tracing", "down", "--volumes", "--remove-orphans"],
                      capture=True, timeout=300)
        self._overrides_file.unlink(missing_ok=True)
        self._haproxy_ip = None
        return names

    # ------------------------------------------------------------------ HAProxy
    def haproxy_servers(self, timeout: float = 3.0) -> list[dict[str, str]]:
        """Every server line of HAProxy's stats (CSV of the stats page), FRONTEND/BACKEND left out."""
        rows = stats_csv(f"http://{self.cfg.client_host}:{self.cfg.stats_port}/", self.cfg.ui_headers(),
                                 timeout)
        return [row for row in rows if row.get("svname") not in ("FRONTEND", "BACKEND", None)]

    def wait_servers(self, backend: str, n: int, timeout: float = SCALE_TIMEOUT,
                     ips: set[str] | None = None) -> None:
        """Until HAProxy has exactly n servers of the backend (slots holding an address), all UP
        (and, given ips, each at one of these addresses)."""
        deadline = time.monotonic() + timeout
        seen = "nothing"
        while time.monotonic() < deadline:
            try:
                rows = [s for s in self.haproxy_servers() if s["pxname"] == backend]
                up = sum(1 for s in rows if s["status"] == "UP"
                         and (ips is None or s.get("addr", "").rpartition(":")[0] in ips))
                present = sum(1 for s in rows if not s["status"].startswith("MAINT"))
                seen = f"{up} UP of {present}"
                if up == n and present == n:
                    return
            except OSError as e:
                seen = f"no stats page ({e})"
            time.sleep(1)
        raise DockerError(f"HAProxy did not report {n} {backend} server(s) UP within {timeout:.0f}s "
                          f"(last seen: {seen}); ./testbed status, ./testbed logs {backend}")

    def runtime(self, command: str) -> str:
        """One command of HAProxy's runtime API (`set server ...`), run in the haproxy container."""
        out = self._compose(["exec", "-T", "haproxy", "python3", "-c", _RUNTIME, command], capture=True,
                      timeout=60).stdout.strip()
        if out:     # HAProxy answers a `set` it accepted with nothing
            raise DockerError(f"HAProxy's runtime API refused {command!r}: {out}")
        return out

    def drain(self, backend: str, slots: list[str], timeout: float = DRAIN_TIMEOUT) -> None:
        """Take the slots out of rotation (state drain) and wait until they hold no request,
        queued or running, so stopping their replicas drops nothing."""
        for slot in slots:
            self.runtime(f"set server {backend}/{slot} state drain")
        time.sleep(0.5)       # a request may be between HAProxy's routing and the session count
        try:
            wait_for(lambda: idle({s["svname"]: s for s in self.haproxy_servers()
                                                   if s["pxname"] == backend}, slots),
                             timeout, f"{', '.join(slots)} to finish their requests")
        except haproxy.HaproxyError as e:
            print(f"scale: {e}; stopping them anyway", file=sys.stderr)

    def undrain(self, backend: str, slots: list[str]) -> None:
        """Back to `ready`: once resolution has emptied a slot, a later replica may take it,
        and it must not inherit the drain."""
        for slot in slots:
            self.runtime(f"set server {backend}/{slot} state ready")

    # ------------------------------------------------------------------ changes
    def _wait_ready(self, tier: str, n: int, timeout: float = SCALE_TIMEOUT) -> None:
        """Until the tier's n running containers each pass their own healthcheck, run at once with
        `docker exec` every READY_POLL_S, then HAProxy has n servers UP at their addresses. `up
        --wait` waited for Docker's next check instead (HEALTHCHECK_INTERVAL, 5 s): a clone restart
        took 7.2 s, its JVM answering 2.9 s after `up` began. The addresses keep a slot that HAProxy
        still shows UP for a stopped container from counting, unless its successor holds the same
        address and already answers."""
        deadline = time.monotonic() + timeout
        pending = {c["name"]: c for c in self._running_inspected((tier,))}
        test = health_test(next(iter(pending))) if pending else None
        ready: dict[str, dict] = {}
        while pending and test and time.monotonic() < deadline:
            for name in list(pending):
                ok = passes(name, test)
                if ok is None:
                    raise DockerError(f"{name} stopped while it started; ./testbed logs {tier}")
                if ok:
                    ready[name] = pending.pop(name)
            if pending:
                time.sleep(READY_POLL_S)
        if pending:
            raise DockerError(f"{', '.join(sorted(pending))} did not pass its healthcheck within {timeout:.0f}s; "
                              f"./testbed logs {tier}")
        ips = set().union(*(c["ips"] for c in ready.values())) if test else None
        self.wait_servers(tier, n, max(deadline - time.monotonic(), 10.0), ips=ips)

    def _running_inspected(self, services: tuple[str, ...] | None = None) -> list[dict]:
        names = [c["Name"] for c in self._containers() if c.get("State") == "running"
                 and (services is None or c["Service"] in services)]
        return inspect(names)

    def scale(self, tier: str, n: int) -> tuple[int, int]:
        if tier not in (*tiers.TIERS, "locust-worker") or not 0 <= n <= tiers.MAX_REPLICAS:
            raise StackError(f"scale: expected TIER=N with TIER in {', '.join(tiers.TIERS)}, locust-worker "
                             f"and N in 0..{tiers.MAX_REPLICAS}, got {tier}={n}")
        replicas = {c["number"]: c["ips"] for c in self._running_inspected((tier,))}
        before = len(replicas)
        drained: list[str] = []
        try:
            if tier in tiers.TIERS and n < before:
                gone = set().union(*(replicas[k] for k in to_remove(list(replicas), n)))
                drained = slots_of(self.haproxy_servers(), tier, gone)
                self.drain(tier, drained)
            # --no-recreate: the replicas already serving stay as they are; --no-deps: the
            # other tiers keep their replica counts; a tier is waited for by _wait_ready
            wait = [] if tier in tiers.TIERS else ["--wait", "--wait-timeout", str(SCALE_TIMEOUT)]
            self._compose(["up", "--detach", *wait, "--no-recreate", "--no-deps", "--scale", f"{tier}={n}", tier],
                          self.overrides(), capture=True)
            if tier in tiers.TIERS:
                self._wait_ready(tier, n)      # exactly n: the removed ones left the slots
        finally:
            if drained:
                try:
                    self.undrain(tier, drained)
                except DockerError as e:
                    print(f"testbed: {e}; the slots stay drained until: docker compose restart haproxy",
                          file=sys.stderr)
        return before, n

    def restart(self, tier: str, overrides: dict[str, str]) -> None:
        """Recreate the tier's containers with the new knobs (compose recreates a service whose
        configuration changed); the other tiers are left alone (--no-deps). Not rolling: meant
        for between runs, when no load runs."""
        merged = {**self.overrides(), **overrides}
        self._save_overrides(merged)
        n = sum(1 for c in self._containers() if c["Service"] == tier and c.get("State") == "running")
        if n == 0:
            return               # the knobs apply when the tier is scaled up
        self._compose(["up", "--detach", "--no-deps", "--scale", f"{tier}={n}", tier], merged, capture=True)
        self._wait_ready(tier, n)

    # ------------------------------------------------------------------ inspection
    def urls(self) -> dict[str, str]:
        h, c = self.cfg.client_host, self.cfg
        return {"locust": f"http://{h}:{c.locust_port}/",
                "web": f"http://{h}:{c.web_port}/",
                "clones": f"http://{h}:{c.clones_port}/invoke",
                "axis": f"http://{h}:{c.soap_port}/axis",
                "gsoap": f"http://{h}:{c.soap_port}/gsoap",
                "stats": f"http://{h}:{c.stats_port}/",
                "metrics": f"http://{h}:{c.stats_port}/metrics",
                "bound": f"http://{h}:{c.bound_port}/",
                "prometheus": f"http://{h}:{c.prometheus_port}/",
                "zipkin": f"http://{h}:{c.zipkin_port}/zipkin/"}

    def _service_runs(self, service: str) -> bool:
        try:
            return any(c["Service"] == service and c.get("State") == "running" for c in self._containers())
        except DockerError:
            return False

    def ui_url(self) -> str | None:
        return self.urls()["locust"] if self._service_runs("locust-master") else None

    def monitoring_url(self) -> str | None:
        return self.urls()["prometheus"] if self._service_runs("prometheus") else None

    def tracing_url(self) -> str | None:
        """Zipkin through HAProxy's zipkin entry (the zipkin container is not published)."""
        return f"http://{self.cfg.client_host}:{self.cfg.zipkin_port}" if self._service_runs("zipkin") else None

    def entry_url(self, entry: str) -> str:
        """At the haproxy container's own address when this host routes to the compose network
        (Linux), else at the published port. The published port on loopback goes through
        docker-proxy, a userland copy of every byte whose CPU no container's cgroup counts:
        measuring through it would charge the stack with the proxy's cost."""
        if self._haproxy_ip is None:
            self._haproxy_ip = ""
            for c in self._running_inspected(("haproxy",)):
                for ip in sorted(c["ips"]):
                    try:
                        with socket.create_connection((ip, haproxy.DOCKER_PORTS["bound_port"]), timeout=1):
                            self._haproxy_ip = ip
                            break
                    except OSError:
                        continue
        if not self._haproxy_ip:
            return super().entry_url(entry)
        return f"http://{self._haproxy_ip}:{haproxy.DOCKER_PORTS[entry + '_port']}"

    def status(self) -> dict:
        rows = self._containers()
        by_name = {c["name"]: c for c in inspect([c["Name"] for c in rows if c.get("State") == "running"])}
        try:
            servers = self.haproxy_servers()
        except OSError:
            servers = []
        hp = next((c for c in rows if c["Service"] == "haproxy"), None)
        up = bool(hp and hp.get("State") == "running")
        out = {"mode": self.mode, "up": up, "state_dir": str(self.cfg.state_dir),
               "entry_points": self.entry_points() if up else {},
               "haproxy": {"alive": up, "pid": by_name.get(hp["Name"], {}).get("pid"),
                           "cpu_quota": by_name.get(hp["Name"], {}).get("cpus")} if hp else None,
               "locust": [{"name": c["Name"], "pid": by_name.get(c["Name"], {}).get("pid"),
                           "alive": c.get("State") == "running", "cpu_quota": by_name.get(c["Name"], {}).get("cpus")}
                          for c in rows if c["Service"] in LOCUST],
               "replicas": []}
        for c in sorted((c for c in rows if c["Service"] in tiers.TIERS),
                        key=lambda c: (c["Service"], c["Name"])):
            info = by_name.get(c["Name"], {})
            ip = min(info.get("ips") or {""})
            slot = next((s for s in servers if s["pxname"] == c["Service"] and ip
                         and s.get("addr", "").rpartition(":")[0] == ip), {})
            out["replicas"].append({
                "tier": c["Service"], "replica": info.get("number") or number_of(c["Name"]),
                "alive": c.get("State") == "running",
                "healthy": healthy(c.get("Health") or "", slot.get("status", "")),
                "haproxy": slot.get("status", "-"), "server": slot.get("svname"),
                "sessions": int(slot.get("scur") or 0),
                "url": f"http://{ip}:{haproxy.DOCKER_TIER_PORT}" if ip else None, "pid": info.get("pid"),
                "port": haproxy.DOCKER_TIER_PORT, "container": c["Name"], "address": ip or None, "log": None,
                "cpu_quota": info.get("cpus"), "node": None})
        return out

    def logs(self, tier: str, lines: int = 40, follow: bool = False) -> int:
        if tier == "locust":
            names = list(LOCUST)
        elif tier in SERVICES:
            names = [tier]
        else:
            raise StackError(f"unknown tier {tier!r}; one of: {', '.join(SERVICES)}, locust")
        return self._compose(["logs", "--tail", str(lines), *(["--follow"] if follow else []), *names],
                       check=False).returncode

    # ------------------------------------------------------------------ measurement
    def cpu_targets(self) -> list[CpuTarget]:
        out = []
        for c in self._running_inspected():
            tier = "loadgen" if c["service"] in LOCUST else c["service"]
            replica = ("ui-master" if c["service"] == "locust-master" else
                       f"ui-worker-{c['number']}" if c["service"] == "locust-worker" else str(c["number"]))
            out.append(CpuTarget(tier, replica, c["pid"], tree=True, cgroup=cgroup.cpu_file(c["pid"])))
        return out

    def signal(self, replica: dict, sig: int) -> None:
        """Straight to the container's main process when this host sees it (as fast as a local
        signal), else through the engine (`docker kill --signal`)."""
        pid = replica.get("pid")
        if pid and os.path.exists(f"/proc/{pid}"):
            os.kill(pid, sig)
            return
        r = subprocess.run(["docker", "kill", "--signal", str(int(sig)), replica["container"]],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise StackError(f"docker kill --signal {int(sig)} {replica['container']}: {r.stderr.strip()[:200]}")

    def revive(self, replica: dict) -> None:
        r = subprocess.run(["docker", "start", replica["container"]], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise StackError(f"docker start {replica['container']}: {r.stderr.strip()[:200]}")
        n = sum(1 for c in self._containers() if c["Service"] == replica["tier"] and c.get("State") == "running")
        self.wait_servers(replica["tier"], n)

    def server_states(self, tier: str) -> dict[str, dict]:
        return {s["svname"]: {"status": s["status"], "sessions": int(s.get("scur") or 0)}
                for s in self.haproxy_servers() if s["pxname"] == tier}

    def thread_dump(self, replica: dict) -> str:
        name = replica["container"]
        since = time.time() - 1
        r = subprocess.run(["docker", "kill", "--signal", "QUIT", name], capture_output=True, text=True,
                           timeout=30)
        if r.returncode != 0:
            raise StackError(f"docker kill --signal QUIT {name}: {r.stderr.strip()[:200]}")
        deadline = time.monotonic() + DUMP_TIMEOUT
        while time.monotonic() < deadline:
            time.sleep(0.5)
            logs = subprocess.run(["docker", "logs", "--since", f"{since:.3f}", name], capture_output=True,
                                  text=True, timeout=30)
            dump = extract_dump(logs.stdout + logs.stderr)
            if dump:
                return dump
        raise StackError(f"no thread dump in {name}'s log within {DUMP_TIMEOUT} s of SIGQUIT")

    def describe(self) -> dict:
        running = self._running_inspected()
        quotas = {t: next((c["cpus"] for c in running if c["service"] == t), None) for t in tiers.TIERS}
        return {"mode": self.mode, "project": self.cfg.knobs.get("COMPOSE_PROJECT_NAME", "testbed"),
                "cpu_quotas": quotas if any(v for v in quotas.values()) else None,
                "images": {c["service"]: c["image"] for c in running},
                "engine": engine_version(),
                "loadgen": {"where": "host", "target": self.web_url(),
                            "why": "the runner's own Locust (master + workers on this host) writes its CSVs "
                                   "and step log straight into the result folder and is sampled like in local "
                                   "mode; it aims at the haproxy container's address (no docker-proxy hop) "
                                   "when this host routes to it, else at the published port"}}
