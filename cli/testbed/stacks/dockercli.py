"""Docker and compose commands the container stacks are built on (docker.py ComposeStack,
swarm.py SwarmStack): `docker compose` in the repository root, `docker inspect` of compose
and Swarm containers alike, and what is read back from them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

from testbed import ROOT
from testbed.stack import StackError

DUMP_END = "JNI global refs"   # the JVM's last line of a thread dump (then the heap summary)


class DockerError(StackError):
    """docker compose failed or the stack did not get where it was asked to; the text says why."""


def compose(args: list[str], overrides: dict[str, str] | None = None, capture: bool = False,
            check: bool = True, timeout: float | None = None) -> subprocess.CompletedProcess:
    """`docker compose ARGS` in the repository root (where it finds .env and the override)."""
    if not shutil.which("docker"):
        raise DockerError("docker not found; install Docker and its compose plugin (docs/docker.md)")
    env = {**os.environ, **(overrides or {})}
    try:
        r = subprocess.run(["docker", "compose", *args], cwd=ROOT, env=env, text=True,
                           capture_output=capture, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise DockerError(f"docker compose {' '.join(args)} did not finish within {timeout:.0f} s") from None
    if check and r.returncode != 0:
        detail = (r.stderr or "").strip()[-2000:] if capture else ""
        raise DockerError(f"docker compose {' '.join(args)} failed (exit {r.returncode})"
                          + (f":\n{detail}" if detail else ""))
    return r


def containers(env: dict[str, str] | None = None) -> list[dict]:
    """The project's containers (running or not): Service, Name, State, Health, ...
    env: the project's name and ports (ComposeStack.env), else .env's."""
    r = compose(["ps", "--all", "--format", "json"], env, capture=True, timeout=60)
    text = r.stdout.strip()
    if not text:
        return []
    if text.startswith("["):                      # older compose: one JSON array
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


_INSPECT = ('{{.Name}}|{{.Id}}|{{.State.Pid}}|{{index .Config.Labels "com.docker.compose.service"}}|'
            '{{index .Config.Labels "com.docker.compose.container-number"}}|{{.HostConfig.NanoCpus}}|'
            '{{.Image}}|{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}|'
            '{{index .Config.Labels "com.docker.stack.namespace"}}|'
            '{{index .Config.Labels "com.docker.swarm.task.name"}}')


def inspect(names: list[str]) -> list[dict]:
    """name, id, pid (on the host), service, number, cpus (quota in cores, None = none), image,
    ips of each named container (compose's, or a Swarm task's: service and slot)."""
    if not names:
        return []
    r = subprocess.run(["docker", "inspect", "--format", _INSPECT, *names], text=True,
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        raise DockerError(f"docker inspect failed: {r.stderr.strip()[-500:]}")
    return [parse_inspect(line) for line in r.stdout.splitlines() if line.strip()]


def parse_inspect(line: str) -> dict:
    """One line of `docker inspect --format _INSPECT`."""
    name, cid, pid, service, number, nano, image, ips, stack, task = (
        "" if f == "<no value>" else f for f in line.split("|"))     # a label the container lacks
    if task and stack:            # a Swarm task: <stack>_<service>.<slot>.<task id>
        service, _, rest = task.removeprefix(stack + "_").partition(".")
        number = rest.partition(".")[0]
    return {"name": name.lstrip("/"), "id": cid, "pid": int(pid or 0), "service": service,
            "number": int(number or 0), "cpus": int(nano) / 1e9 if nano and int(nano) else None,
            "image": image, "ips": set(ips.split())}


def health_test(name: str) -> list[str] | None:
    """The container's healthcheck as a command for `docker exec` (its CMD or CMD-SHELL test),
    None when it has none."""
    r = subprocess.run(["docker", "inspect", "--format", "{{json .Config.Healthcheck}}", name], text=True,
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        raise DockerError(f"docker inspect {name} failed: {r.stderr.strip()[-500:]}")
    return exec_form((json.loads(r.stdout or "null") or {}).get("Test") or [])


def exec_form(test: list[str]) -> list[str] | None:
    """A healthcheck's Test (["CMD", ...], ["CMD-SHELL", "..."], ["NONE"]) as an argv for `docker exec`."""
    if test[:1] == ["CMD"] and len(test) > 1:
        return test[1:]
    if test[:1] == ["CMD-SHELL"] and len(test) == 2:
        return ["/bin/sh", "-c", test[1]]
    return None


def passes(name: str, test: list[str], timeout: float = 10.0) -> bool | None:
    """Whether the container passes its healthcheck now (run with `docker exec`); None when the
    container is not running."""
    try:
        r = subprocess.run(["docker", "exec", name, *test], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    if r.returncode != 0 and "is not running" in r.stderr:
        return None
    return r.returncode == 0


def healthy(docker_health: str, haproxy_status: str) -> bool:
    """A replica serves: Docker's healthcheck says so, or that check has not run yet ("starting":
    it runs every HEALTHCHECK_INTERVAL) and HAProxy's own check of the same GET /health has put
    its server UP. A replica just scaled or restarted is in the second state for up to 5 s after
    the scale waited for it (docker.py _wait_ready runs the healthcheck itself, then waits for
    HAProxy), and the runner read it as "unhealthy before the run" (7 times a compose classic run)."""
    return docker_health == "healthy" or (docker_health == "starting" and haproxy_status == "UP")


def to_remove(numbers: list[int], n: int) -> list[int]:
    """The replicas `docker compose up --scale SERVICE=n` stops: compose keeps the lowest
    container numbers and removes the highest ones."""
    return sorted(numbers)[n:]


def slots_of(servers: list[dict[str, str]], backend: str, ips: set[str]) -> list[str]:
    """The backend's server-template slots that hold one of these addresses."""
    return [s["svname"] for s in servers
            if s["pxname"] == backend and s.get("addr") and s["addr"].rpartition(":")[0] in ips]


def number_of(name: str) -> int:
    tail = name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def engine_version() -> str | None:
    r = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], capture_output=True,
                       text=True, timeout=30)
    return r.stdout.strip() or None


def extract_dump(text: str) -> str | None:
    """The last complete JVM thread dump in a container's log (SIGQUIT output), or None."""
    start = text.rfind("Full thread dump")
    if start < 0:
        return None
    end = text.find(DUMP_END, start)
    if end < 0:
        return None
    line_start = text.rfind("\n", 0, start) + 1
    return text[line_start:text.find("\n", end) + 1 or len(text)]
