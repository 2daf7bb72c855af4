"""The stack as a Docker Swarm stack (SwarmStack): docker-compose.yml deployed with
`docker stack deploy` (docs/docker.md), driven from a manager node. It is the compose stack
in every way that does not depend on who created the containers (HAProxy's stats and runtime
API, CPU from cgroups, thread dumps by SIGQUIT: ComposeStack), with Swarm's verbs for the rest:
`docker stack deploy/rm`, `docker service scale`, `docker service update --env-add`.

What is measured when tasks sit on other nodes: only the containers of the node the command
runs on can be inspected (cgroup CPU, thread dumps, addresses); status() counts the others,
cpu.csv has no rows for them, and describe() says which tiers were not sampled. The
entry points are the ports HAProxy publishes in host mode on its node: run experiments
from the node that runs HAProxy (docs/docker.md, "Experiments on Swarm").
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

from testbed import ROOT, tiers
from testbed.config import StackConfig, read_env_file
from testbed.docker import ComposeStack, DockerError
from testbed.stack import Stack, StackError

DEPLOY_TIMEOUT = 600


def _docker(args: list[str], timeout: float = 120, check: bool = True, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(["docker", *args], cwd=ROOT, text=True, capture_output=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise DockerError(f"docker {' '.join(args[:4])} ... failed (exit {r.returncode}): "
                          f"{(r.stderr or r.stdout).strip()[-800:]}")
    return r


class SwarmStack(ComposeStack):
    mode = "swarm"

    def __init__(self, cfg: StackConfig | None = None, log=print):
        super().__init__(cfg, log)
        self.name = self.cfg.knobs.get("SWARM_STACK", "testbed")

    # ------------------------------------------------------------------ what runs
    def _services(self) -> dict[str, tuple[int, int]]:
        """service (without the stack prefix) -> (running tasks, desired replicas)."""
        r = _docker(["service", "ls", "--filter", f"label=com.docker.stack.namespace={self.name}",
                     "--format", "{{.Name}} {{.Replicas}}"], check=False)
        out = {}
        for line in r.stdout.splitlines():
            name, _, reps = line.partition(" ")
            have, _, want = reps.split(" ")[0].partition("/")
            if have.isdigit() and want.isdigit():
                out[name.removeprefix(self.name + "_")] = (int(have), int(want))
        return out

    def _containers(self) -> list[dict]:
        """This node's task containers, shaped like `docker compose ps` rows."""
        r = _docker(["ps", "--all", "--filter", f"label=com.docker.stack.namespace={self.name}",
                     "--format", "{{json .}}"], check=False)
        rows = []
        for line in r.stdout.splitlines():
            c = json.loads(line)
            labels = dict(kv.partition("=")[::2] for kv in c.get("Labels", "").split(",") if kv)
            service = labels.get("com.docker.swarm.service.name", "").removeprefix(self.name + "_")
            status = c.get("Status", "")
            rows.append({"Service": service, "Name": c["Names"], "State": c.get("State"),
                         "Health": "healthy" if "(healthy)" in status else
                                   "unhealthy" if "(unhealthy)" in status else ""})
        return rows

    def running(self) -> bool:
        if not shutil.which("docker"):
            return False
        try:
            return bool(self._services())
        except (OSError, subprocess.SubprocessError):
            return False

    def current(self) -> tuple[dict[str, int], dict[str, str]]:
        svc = self._services()
        return {t: svc.get(t, (0, 0))[1] for t in tiers.TIERS}, {**self.cfg.knobs, **self.overrides()}

    # ------------------------------------------------------------------ lifecycle
    def _deploy(self, overrides: dict[str, str]) -> None:
        """`docker stack deploy` with .env's knobs in the environment (it reads no .env);
        a docker CLI before 23 wants a version key, given on stdin (docs/docker.md)."""
        env = {**read_env_file(ROOT / ".env"), **os.environ, **self.env(), **overrides}
        r = _docker(["stack", "deploy", "-c", "docker-compose.yml", self.name], DEPLOY_TIMEOUT, check=False,
                    env=env)
        if r.returncode != 0 and "unsupported Compose file version" in r.stderr:
            r = _docker(["stack", "deploy", "-c", "-", self.name], DEPLOY_TIMEOUT, check=False, env=env,
                        input='version: "3.9"\n' + (ROOT / "docker-compose.yml").read_text())
        if r.returncode != 0:
            raise DockerError(f"docker stack deploy failed: {(r.stderr or r.stdout).strip()[-800:]}")

    def up(self, counts: dict[str, int], overrides: dict[str, str] | None = None,
           locust: bool = False, monitoring: bool = False, tracing: bool = False) -> None:
        if tracing:
            raise StackError("--tracing on Swarm: deploy docker-compose.tracing.yml beside the stack "
                             "(docs/tracing.md); ./testbed up --swarm does not")
        if monitoring:
            raise StackError("--monitoring on Swarm: deploy docker-compose.monitoring.yml beside the stack "
                             "(docs/monitoring.md); ./testbed up --swarm does not")
        if self.running():
            raise StackError(f"the Swarm stack {self.name!r} is already deployed (./testbed status); "
                             "./testbed down first")
        if not (self.cfg.knobs.get("UI_PASSWORD") or (overrides or {}).get("UI_PASSWORD")):
            raise StackError("Swarm publishes the stack's ports on every address of the node: set UI_PASSWORD "
                             "(and UI_USER, default testbed) for HAProxy's stats page and the Locust UI first")
        overrides = dict(overrides or {})
        for t in tiers.TIERS:
            overrides[f"REPLICAS_{t.upper()}"] = str(counts.get(t, 0))
        if not locust:
            overrides["REPLICAS_LOCUST_WORKER"] = "0"
        self._save_overrides(overrides)
        self.log(f"up: docker stack deploy -c docker-compose.yml {self.name}")
        self._deploy(overrides)
        if not locust:
            _docker(["service", "scale", "--detach=true", f"{self.name}_locust-master=0"])
        self._converge(DEPLOY_TIMEOUT)
        for t in tiers.TIERS:
            self.wait_servers(t, counts.get(t, 0))

    def _converge(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            svc = self._services()
            if svc and all(have == want for have, want in svc.values()):
                return
            time.sleep(2)
        raise DockerError(f"the Swarm stack did not run its replicas within {timeout:.0f} s: "
                          f"docker stack services {self.name}")

    def down(self) -> list[str]:
        names = sorted(self._services())
        _docker(["stack", "rm", self.name])
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (self._containers() or _docker(
                ["network", "ls", "-q", "--filter", f"name={self.name}_default"]).stdout.strip()):
            time.sleep(2)
        self._overrides_file.unlink(missing_ok=True)
        self._haproxy_ip = None
        return names

    # ------------------------------------------------------------------ changes
    def scale(self, tier: str, n: int) -> tuple[int, int]:
        """`docker service scale`: a removed task leaves HAProxy's rotation by itself before it
        stops (the tiers' drain on SIGTERM), so nothing is drained from here."""
        if tier not in (*tiers.TIERS, "locust-worker") or not 0 <= n <= tiers.MAX_REPLICAS:
            raise StackError(f"scale: expected TIER=N with TIER in {', '.join(tiers.TIERS)}, locust-worker "
                             f"and N in 0..{tiers.MAX_REPLICAS}, got {tier}={n}")
        before = self._services().get(tier, (0, 0))[1]
        _docker(["service", "scale", "--detach=false", f"{self.name}_{tier}={n}"], 600)
        if tier in tiers.TIERS:
            self.wait_servers(tier, n)
        return before, n

    def restart(self, tier: str, overrides: dict[str, str]) -> None:
        """`docker service update`: the tier's environment and CPU limit from the knobs; Swarm
        replaces its tasks one at a time."""
        merged = {**self.overrides(), **overrides}
        self._save_overrides(merged)
        knobs = {**self.cfg.knobs, **merged}
        env = tiers.process_env(tiers.TIERS[tier], 0, knobs)
        args = [a for k, v in env.items() if k not in ("PORT", "BIND") for a in ("--env-add", f"{k}={v}")]
        args += ["--limit-cpu", knobs.get(f"CPUS_{tier.upper()}", "0")]
        _docker(["service", "update", "--detach=false", *args, f"{self.name}_{tier}"], 900)
        n = self._services().get(tier, (0, 0))[1]
        if n:
            self.wait_servers(tier, n)

    def revive(self, replica: dict) -> None:
        """Swarm replaces a killed task by itself (restart policy): wait for it."""
        self._converge(180)
        self.wait_servers(replica["tier"], self._services().get(replica["tier"], (0, 0))[1])

    # ------------------------------------------------------------------ inspection
    def _running_inspected(self, services: tuple[str, ...] | None = None) -> list[dict]:
        from testbed.docker import inspect
        names = [c["Name"] for c in self._containers() if c.get("State") == "running"
                 and (services is None or c["Service"] in services)]
        return inspect(names)

    def entry_url(self, entry: str) -> str:
        """The ports HAProxy publishes in host mode on its node (no virtual IP, no docker-proxy)."""
        return Stack.entry_url(self, entry)

    def ui_url(self) -> str | None:
        return self.urls()["locust"] if self._services().get("locust-master", (0, 0))[0] else None

    def logs(self, tier: str, lines: int = 40, follow: bool = False) -> int:
        names = ["locust-master", "locust-worker"] if tier == "locust" else [tier]
        rc = 0
        for n in names:
            rc |= subprocess.call(["docker", "service", "logs", "--tail", str(lines),
                                   *(["--follow"] if follow else []), f"{self.name}_{n}"])
        return rc

    def status(self) -> dict:
        out = super().status()
        local = {}
        for r in out["replicas"]:
            local[r["tier"]] = local.get(r["tier"], 0) + 1
        out["elsewhere"] = {t: max(0, have - local.get(t, 0)) for t, (have, _) in self._services().items()
                            if t in tiers.TIERS and have > local.get(t, 0)}
        return out

    def describe(self) -> dict:
        d = super().describe()
        elsewhere = self.status()["elsewhere"]
        d.update(mode=self.mode, project=self.name,
                 nodes=len(_docker(["node", "ls", "-q"], check=False).stdout.split()) or None,
                 not_sampled=elsewhere or None,
                 loadgen={**d["loadgen"], "target": self.entry_url("web"),
                          "why": "the runner's own Locust on this (manager) node; HAProxy publishes its "
                                 "entry points in host mode on its node"})
        return d

