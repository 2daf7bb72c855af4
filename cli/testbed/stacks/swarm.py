"""The stack as a Docker Swarm stack (SwarmStack): docker-compose.yml deployed with
`docker stack deploy` (docs/docker.md), driven from a manager. It is the compose stack in
every way that does not depend on who created the containers (HAProxy's stats and runtime
API: ComposeStack), with Swarm's verbs for the rest: `docker stack deploy/rm`, `docker service
scale`, `docker service update`.

Which Swarm: the cluster of Docker-in-Docker nodes `./testbed cluster up` made (testbed.nodes:
every command goes to its manager's engine, each node's engine is reachable, images come from
its registry), else the Swarm this host's engine belongs to.

Where each replica runs comes from the manager (its tasks and their nodes: testbed.swarmtasks);
a replica is measured on its own node — CPU from its cgroup, thread dumps and signals through
its node's engine — wherever that node's engine can be reached from here: every node of a
cluster made here, only this host's node otherwise (status() then counts the others under
"elsewhere", cpu.csv has no rows for them and describe() lists them as not sampled).
Placement (testbed.placement): node labels per tier and one constraint per tier's service.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time

from testbed import ROOT, tiers
from testbed.swarm import nodes
from testbed.swarm import placement
from testbed.config import StackConfig, read_env_file
from testbed.stacks.compose import ComposeStack, DockerError
from testbed.stack import Stack, StackError
from testbed.stacks.swarm_engines import SwarmNodes

DEPLOY_TIMEOUT = 600
SERVED_TIMEOUT = 120   # s: /seg/5 through HAProxy after every replica is UP (the clone's first lookups)


def wait_served(port: int, backends: list[str], timeout: float = SERVED_TIMEOUT, log=print,
                host: str = "127.0.0.1") -> float:
    """Until /seg/5 answers 200 through HAProxy's web port for each backend; the seconds it took.

    On Swarm every replica can be UP in HAProxy and the path still fail for some seconds: the
    tasks start in no order, a clone that looked up `haproxy` before that task was in Swarm's DNS
    answers "unknown host" until the JVM forgets the failed lookup (10 s by default), and `up`
    would return a stack whose first requests fail (seen: 502 for ~6 s on a 4-node cluster)."""
    import urllib.error
    import urllib.request
    start = time.monotonic()
    for backend in backends:
        url = f"http://{host}:{port}/seg/5?backend={backend}&op=ping"
        last = "no answer"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    if r.status == 200:
                        break
                    last = f"HTTP {r.status}"
            except urllib.error.HTTPError as e:
                body = e.read(2000).decode("utf-8", "replace")
                reason = next((ln[len("reason: "):] for ln in body.splitlines() if ln.startswith("reason: ")), "")
                last = f"HTTP {e.code}" + (f" ({reason})" if reason else "")
            except OSError as e:
                last = str(e)
            if time.monotonic() - start > timeout:
                raise StackError(f"every replica is UP, but /seg/5?backend={backend} through HAProxy on "
                                 f"{host}:{port} did not answer 200 within {timeout:.0f} s (last: {last}); "
                                 f"./testbed status, ./testbed logs clone")
            time.sleep(0.5)
    took = time.monotonic() - start
    if took >= 1:
        log(f"up: /seg/5 through HAProxy answers for {', '.join(backends)} after {took:.0f} s more")
    return took


class SwarmStack(SwarmNodes, ComposeStack):
    mode = "swarm"

    def __init__(self, cfg: StackConfig | None = None, log=print):
        ComposeStack.__init__(self, cfg, log)
        self.name = self.cfg.knobs.get("SWARM_STACK", "testbed")
        self.cluster = nodes.load(self.cfg.state_dir)
        self._local: str | None = None
        if self.cluster and self.cluster.ui_password and not self.cfg.knobs.get("UI_PASSWORD"):
            # Swarm publishes on every address of the entry node, so HAProxy wants a password:
            # the one `cluster up` made, unless UI_PASSWORD is set
            self.cfg.knobs["UI_PASSWORD"] = self.cluster.ui_password

    @property
    def _overrides_file(self):
        return self.cfg.state_dir / "swarm-overrides.json"

    # ------------------------------------------------------------------ what runs
    def _services(self) -> dict[str, tuple[int, int]]:
        """service (without the stack prefix) -> (running tasks, desired replicas)."""
        r = self._docker(["service", "ls", "--filter", f"label=com.docker.stack.namespace={self.name}",
                          "--format", "{{.Name}} {{.Replicas}}"], check=False)
        out = {}
        for line in r.stdout.splitlines():
            name, _, reps = line.partition(" ")
            have, _, want = reps.split(" ")[0].partition("/")
            if have.isdigit() and want.isdigit():
                out[name.removeprefix(self.name + "_")] = (int(have), int(want))
        return out

    def running(self) -> bool:
        if not shutil.which("docker"):
            return False
        try:
            return bool(self._services())
        except (OSError, subprocess.SubprocessError, StackError):
            return False

    # a service's tasks take their environment from the service: a task Swarm replaces (a node
    # lost, a rolling update) would come back with the old lifecycle, so here a change restarts
    switches_lifecycle = False

    def current(self) -> tuple[dict[str, int], dict[str, str]]:
        svc = self._services()
        return {t: svc.get(t, (0, 0))[1] for t in tiers.TIERS}, {**self.cfg.knobs, **self.overrides()}

    def tier_config(self, tier: str, knobs: dict[str, str]) -> dict[str, str]:
        """With the nodes the tier may run on: a new placement restarts (moves) the tier."""
        out = super().tier_config(tier, knobs)
        if placement.requested(knobs):
            out["PLACEMENT"] = " ".join(self._resolved(knobs).get(tier, ()))
        return out

    # ------------------------------------------------------------------ lifecycle
    def _deploy(self, overrides: dict[str, str]) -> None:
        """`docker stack deploy` with .env's knobs in the environment (it reads no .env), the
        cluster's registry as the image prefix, and a second stack file with the placement
        constraints when there is a placement or a cluster; a docker CLI before 23 wants a
        version key in each file (docs/docker.md)."""
        env = {**read_env_file(ROOT / ".env"), **os.environ, **self.env(), **overrides, **self._engine()}
        env["UI_PASSWORD"] = overrides.get("UI_PASSWORD") or self.cfg.knobs.get("UI_PASSWORD") or ""
        if self.cluster:
            env["IMAGE_PREFIX"] = f"{self.cluster.registry}/{env.get('IMAGE_PREFIX') or 'soap-testbed'}"
        constrained = self.cluster is not None or placement.requested(overrides)
        with tempfile.TemporaryDirectory() as tmp:
            def files(version_key: bool) -> list[str]:
                main = ROOT / "docker-compose.yml"
                if version_key:
                    main = os.path.join(tmp, "stack.yml")
                    with open(main, "w") as f:
                        f.write('version: "3.9"\n' + (ROOT / "docker-compose.yml").read_text())
                out = ["-c", str(main)]
                if constrained:
                    extra = os.path.join(tmp, "placement.yml")
                    with open(extra, "w") as f:
                        f.write(placement.override(self._entry_label(), version_key))
                    out += ["-c", extra]
                return out
            r = subprocess.run(["docker", "stack", "deploy", *files(False), self.name], cwd=ROOT, env=env,
                               text=True, capture_output=True, timeout=DEPLOY_TIMEOUT)
            if r.returncode != 0 and "unsupported Compose file version" in r.stderr:
                r = subprocess.run(["docker", "stack", "deploy", *files(True), self.name], cwd=ROOT, env=env,
                                   text=True, capture_output=True, timeout=DEPLOY_TIMEOUT)
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
        if not self.cluster and not (self.cfg.knobs.get("UI_PASSWORD") or (overrides or {}).get("UI_PASSWORD")):
            raise StackError("Swarm publishes the stack's ports on every address of the node: set UI_PASSWORD "
                             "(and UI_USER, default testbed) for HAProxy's stats page and the Locust UI first")
        if self.cluster and self.cluster.ports != self.cfg.entry_ports():
            raise StackError(f"the cluster publishes the entry points on {self.cluster.ports}, this configuration "
                             f"wants {self.cfg.entry_ports()}: use the ports the cluster was made with, or "
                             "./testbed cluster down and up again")
        overrides = dict(overrides or {})
        for t in tiers.TIERS:
            overrides[f"REPLICAS_{t.upper()}"] = str(counts.get(t, 0))
        if not locust:
            overrides["REPLICAS_LOCUST_WORKER"] = "0"
        knobs = {**self.cfg.knobs, **overrides}
        if self.cluster or placement.requested(knobs):
            resolved = self._resolved(knobs)
            self._label(resolved)
            self.log("up: placement: " + placement.describe(resolved))
        self._save_overrides(overrides)
        tiers.create_admin_token(self.cfg.state_dir)           # a new admin token: env() hands it to the clones
        where = f" on the cluster {self.cluster.name} (manager {self.cluster.manager.name})" if self.cluster else ""
        self.log(f"up: docker stack deploy -c docker-compose.yml {self.name}{where}")
        self._deploy(overrides)
        if not locust:
            self._docker(["service", "scale", "--detach=true", f"{self.name}_locust-master=0"])
        self._converge(DEPLOY_TIMEOUT)
        for t in tiers.TIERS:
            self.wait_servers(t, counts.get(t, 0), DEPLOY_TIMEOUT if self.cluster else 180)
        if counts.get("front") and counts.get("clone"):
            wait_served(self.cfg.web_port, [b for b in ("axis", "gsoap") if counts.get(b)], log=self.log,
                        host=self.cfg.client_host)

    def _converge(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            svc = self._services()
            if svc and all(have == want for have, want in svc.values()):
                return
            time.sleep(2)
        raise DockerError(f"the Swarm stack did not run its replicas within {timeout:.0f} s: "
                          f"docker stack services {self.name}" + (
                              f" (DOCKER_HOST={self.cluster.manager.env()['DOCKER_HOST']})" if self.cluster else ""))

    def down(self) -> list[str]:
        names = sorted(self._services())
        self._docker(["stack", "rm", self.name])
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (self._tasks() or self._docker(
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
        self._docker(["service", "scale", "--detach=false", f"{self.name}_{tier}={n}"], 600)
        if tier in tiers.TIERS:
            self.wait_servers(tier, n)
        return before, n

    def restart(self, tier: str, overrides: dict[str, str]) -> None:
        """`docker service update`: the tier's environment, CPU limit and placement from the
        knobs; Swarm replaces its tasks one at a time (a new placement: the node labels change
        first, and the constraint is added if the service lacks it)."""
        merged = {**self.overrides(), **overrides}
        self._save_overrides(merged)
        knobs = {**self.cfg.knobs, **merged}
        env = tiers.process_env(tiers.TIERS[tier], 0, knobs)
        args = [a for k, v in env.items() if k not in ("PORT", "BIND") for a in ("--env-add", f"{k}={v}")]
        args += ["--limit-cpu", knobs.get(f"CPUS_{tier.upper()}", "0")]
        if self.cluster or placement.requested(knobs):
            self._label(self._resolved(knobs))
            have = self._docker(["service", "inspect", "--format",
                                 "{{json .Spec.TaskTemplate.Placement.Constraints}}", f"{self.name}_{tier}"]).stdout
            if placement.label(tier) not in have:
                args += ["--constraint-add", placement.constraint(tier)]
        self._docker(["service", "update", "--detach=false", *args, f"{self.name}_{tier}"], 900)
        n = self._services().get(tier, (0, 0))[1]
        if n:
            self._settle(tier)
            self.wait_servers(tier, n)

    def revive(self, replica: dict) -> None:
        """Swarm replaces a killed task by itself (restart policy): wait for it."""
        self._converge(180)
        self.wait_servers(replica["tier"], self._services().get(replica["tier"], (0, 0))[1])

    # ------------------------------------------------------------------ inspection
    def entry_url(self, entry: str) -> str:
        """HAProxy's ports, published in host mode on its node: on a cluster made here, at the
        entry node's own address on the cluster's network (no docker-proxy hop); else as
        published on this host."""
        if self.cluster:
            return f"http://{self.cluster.entry.ip}:{self.cfg.entry_ports()[entry.upper() + '_PORT']}"
        return Stack.entry_url(self, entry)

    def ui_url(self) -> str | None:
        return self.urls()["locust"] if self._services().get("locust-master", (0, 0))[0] else None

    def logs(self, tier: str, lines: int = 40, follow: bool = False) -> int:
        names = ["locust-master", "locust-worker"] if tier == "locust" else [tier]
        rc = 0
        for n in names:
            rc |= subprocess.call(["docker", "service", "logs", "--tail", str(lines),
                                   *(["--follow"] if follow else []), f"{self.name}_{n}"], env=self._engine())
        return rc

    def describe(self) -> dict:
        d = ComposeStack.describe(self)
        st = self.status()
        knobs = {**self.cfg.knobs, **self.overrides()}
        d.update(mode=self.mode, project=self.name, nodes=len(self._node_names()) or None,
                 not_sampled=st["elsewhere"] or None, placement=st.get("nodes") or None,
                 cluster=self.cluster_summary(),
                 spread=knobs.get("SPREAD") or None,
                 loadgen={**d["loadgen"], "target": self.entry_url("web"),
                          "where": "master on this host, workers on the cluster's load-generator node (Swarm service "
                                   f"{self.name}_loadgen)" if self.cluster else d["loadgen"]["where"],
                          "why": "the runner's own Locust master on this host; HAProxy publishes its entry points "
                                 "in host mode on its node" + (" (the cluster's entry node, reached at its address "
                                                               "on the cluster's network)" if self.cluster else "")})
        return d

    def cluster_summary(self) -> dict | None:
        if not self.cluster:
            return None
        return {"name": self.cluster.name, "registry": self.cluster.registry,
                "nodes": {n.name: {"role": n.role, "cpus": n.cpus, "ip": n.ip} for n in self.cluster.nodes}}

