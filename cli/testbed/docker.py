"""The stack as containers: `./testbed up --docker`, and status/scale/logs/down of a stack
that runs in containers. Everything goes through `docker compose` on the repository's
docker-compose.yml (+ docker-compose.override.yml, + .env), so the CLI and a person typing
`docker compose ...` drive the same project. HAProxy finds replicas by Docker's DNS
(server-template), so scaling is `docker compose up --scale`; this module then waits until
HAProxy reports the new count UP, reading its stats page (CSV). Before a scale-down it
drains, through HAProxy's runtime API in the haproxy container, the replicas compose is
about to remove, so none of them is stopped with a request on it or sent to after."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

from testbed import ROOT, haproxy, tiers
from testbed.config import ConfigError, StackConfig

SERVICES = ("haproxy", "front", "clone", "axis", "gsoap", "locust-master", "locust-worker")
LOCUST = ("locust-master", "locust-worker")
HEALTHY_TIMEOUT = 600      # `up --wait`: a first run builds every image (docs/docker.md)
SCALE_TIMEOUT = 180        # a JVM replica on a busy 2-core machine, then HAProxy's checks


class DockerError(RuntimeError):
    """docker compose failed or the stack did not get where it was asked to; the text says why."""


def _config() -> StackConfig:
    try:
        return StackConfig.load()
    except ConfigError as e:
        raise SystemExit(f"testbed: {e}")


def _overrides_file(cfg: StackConfig):
    return cfg.state_dir / "docker-overrides.json"


def _overrides(cfg: StackConfig) -> dict[str, str]:
    """Knobs given on `up --docker` (--client-mode ...), kept for later compose calls so a
    scaled replica gets the same environment as the ones started by `up`."""
    path = _overrides_file(cfg)
    return json.loads(path.read_text()) if path.exists() else {}


def compose(args: list[str], overrides: dict[str, str] | None = None, capture: bool = False,
            check: bool = True) -> subprocess.CompletedProcess:
    """`docker compose ARGS` in the repository root (where it finds .env and the override)."""
    if not shutil.which("docker"):
        raise DockerError("docker not found; install Docker and its compose plugin (docs/docker.md)")
    env = {**os.environ, **(overrides or {})}
    r = subprocess.run(["docker", "compose", *args], cwd=ROOT, env=env, text=True,
                       capture_output=capture)
    if check and r.returncode != 0:
        detail = (r.stderr or "").strip()[-2000:] if capture else ""
        raise DockerError(f"docker compose {' '.join(args)} failed (exit {r.returncode})"
                          + (f":\n{detail}" if detail else ""))
    return r


def containers() -> list[dict]:
    """The project's containers (running or not): Service, Name, State, Health, ..."""
    r = compose(["ps", "--all", "--format", "json"], capture=True)
    text = r.stdout.strip()
    if not text:
        return []
    if text.startswith("["):                      # older compose: one JSON array
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def active() -> bool:
    """Is the stack in place the containerized one: containers of this compose project
    exist (running or not) and no local stack runs?"""
    if not shutil.which("docker"):
        return False
    try:
        if not containers():
            return False
    except DockerError:
        return False
    from testbed.local import Stack
    return not Stack(_config()).running()


# ------------------------------------------------------------------------- HAProxy
def haproxy_servers(cfg: StackConfig, timeout: float = 3.0) -> list[dict[str, str]]:
    """Every server line of HAProxy's stats (CSV of the stats page), FRONTEND/BACKEND left out."""
    url = f"http://{cfg.client_host}:{cfg.stats_port}/;csv;norefresh"
    with urllib.request.urlopen(url, timeout=timeout) as r:
        text = r.read().decode().lstrip("# ")
    return [row for row in csv.DictReader(io.StringIO(text))
            if row.get("svname") not in ("FRONTEND", "BACKEND", None)]


def up_servers(cfg: StackConfig, backend: str) -> int:
    return sum(1 for s in haproxy_servers(cfg) if s["pxname"] == backend and s["status"] == "UP")


def resolved_servers(cfg: StackConfig, backend: str) -> int:
    """Slots of the server-template that hold a replica's address (not MAINT by resolution)."""
    return sum(1 for s in haproxy_servers(cfg)
               if s["pxname"] == backend and not s["status"].startswith("MAINT"))


def wait_servers(cfg: StackConfig, backend: str, n: int, timeout: float = SCALE_TIMEOUT) -> None:
    """Until HAProxy has exactly n servers of the backend, all UP."""
    deadline = time.monotonic() + timeout
    seen = "nothing"
    while time.monotonic() < deadline:
        try:
            up, present = up_servers(cfg, backend), resolved_servers(cfg, backend)
            seen = f"{up} UP of {present}"
            if up == n and present == n:
                return
        except OSError as e:
            seen = f"no stats page ({e})"
        time.sleep(1)
    raise DockerError(f"HAProxy did not report {n} {backend} server(s) UP within {timeout:.0f}s "
                      f"(last seen: {seen}); ./testbed status, ./testbed logs {backend}")


# The runtime API is a unix socket inside the haproxy container (admin level, never
# published): a command reaches it through `docker compose exec`, with the container's
# own Python and the testbed's Runtime class (services/haproxy/Dockerfile puts both there).
_RUNTIME = ("import sys; from testbed.haproxy import Runtime, DOCKER_STATE_DIR; "
            "print(Runtime(DOCKER_STATE_DIR / 'haproxy.sock').command(sys.argv[1]), end='')")
DRAIN_TIMEOUT = 30          # longest a removed replica is given to finish its requests


def runtime(command: str) -> str:
    """One command of HAProxy's runtime API (`set server ...`), run in the haproxy container."""
    out = compose(["exec", "-T", "haproxy", "python3", "-c", _RUNTIME, command], capture=True).stdout.strip()
    if out:     # HAProxy answers a `set` it accepted with nothing
        raise DockerError(f"HAProxy's runtime API refused {command!r}: {out}")
    return out


def replica_addresses(service: str) -> dict[int, set[str]]:
    """Running replicas of a compose service: container number -> its IP addresses."""
    names = [c["Name"] for c in containers() if c["Service"] == service and c.get("State") == "running"]
    if not names:
        return {}
    fmt = ('{{index .Config.Labels "com.docker.compose.container-number"}}'
           '{{range .NetworkSettings.Networks}} {{.IPAddress}}{{end}}')
    r = subprocess.run(["docker", "inspect", "--format", fmt, *names], text=True, capture_output=True)
    if r.returncode != 0:
        raise DockerError(f"docker inspect {' '.join(names)} failed: {r.stderr.strip()[-500:]}")
    out = {}
    for line in r.stdout.splitlines():
        number, *ips = line.split()
        out[int(number)] = {ip for ip in ips if ip}
    return out


def to_remove(numbers: list[int], n: int) -> list[int]:
    """The replicas `docker compose up --scale SERVICE=n` stops: compose keeps the lowest
    container numbers and removes the highest ones."""
    return sorted(numbers)[n:]


def slots_of(servers: list[dict[str, str]], backend: str, ips: set[str]) -> list[str]:
    """The backend's server-template slots that hold one of these addresses."""
    return [s["svname"] for s in servers
            if s["pxname"] == backend and s.get("addr") and s["addr"].rpartition(":")[0] in ips]


def drain(cfg: StackConfig, backend: str, slots: list[str], timeout: float = DRAIN_TIMEOUT) -> None:
    """Take the slots out of rotation (state drain) and wait until they hold no request,
    queued or running, so stopping their replicas drops nothing."""
    for slot in slots:
        runtime(f"set server {backend}/{slot} state drain")
    time.sleep(0.5)       # a request may be between HAProxy's routing and the session count
    try:
        haproxy.wait_for(lambda: haproxy.idle({s["svname"]: s for s in haproxy_servers(cfg)
                                               if s["pxname"] == backend}, slots),
                         timeout, f"{', '.join(slots)} to finish their requests")
    except haproxy.HaproxyError as e:
        print(f"scale: {e}; stopping them anyway", file=sys.stderr)


def undrain(backend: str, slots: list[str]) -> None:
    """Back to `ready`: once resolution has emptied a slot, a later replica may take it,
    and it must not inherit the drain."""
    for slot in slots:
        runtime(f"set server {backend}/{slot} state ready")


# ------------------------------------------------------------------------- verbs
def cmd_up(args, counts: dict[str, int], overrides: dict[str, str]) -> int:
    """counts (checked by the caller): replicas per tier; overrides: knobs of this up."""
    cfg = _config()
    scale = [a for n, c in counts.items() for a in ("--scale", f"{n}={c}")]
    if args.no_locust:
        scale += ["--scale", "locust-master=0", "--scale", "locust-worker=0"]
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    _overrides_file(cfg).write_text(json.dumps(overrides))
    t0 = time.monotonic()
    print("up: docker compose up --wait " + " ".join(scale) +
          " (images are built when missing: docker compose build rebuilds them)")
    try:
        compose(["up", "--detach", "--wait", "--wait-timeout", str(HEALTHY_TIMEOUT), *scale], overrides)
        for name, c in counts.items():
            wait_servers(cfg, name, c)
    except DockerError as e:
        print(f"testbed: {e}\n  see: docker compose ps; docker compose logs", file=sys.stderr)
        return 1
    print(f"up: healthy in {time.monotonic() - t0:.0f}s")
    for name, url in urls(cfg, locust=not args.no_locust).items():
        print(f"  {name:8s} {url}")
    print("  ./testbed status · ./testbed scale clone=3 · ./testbed logs TIER · ./testbed down")
    return 0


def cmd_down(args) -> int:
    cfg = _config()
    try:
        names = sorted({c["Service"] for c in containers()})
        compose(["down", "--volumes", "--remove-orphans"])
    except DockerError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    _overrides_file(cfg).unlink(missing_ok=True)
    print("down: removed the containers of " + (", ".join(names) if names else "nothing"))
    return 0


def status() -> dict:
    cfg = _config()
    rows = containers()
    try:
        servers = haproxy_servers(cfg)
    except OSError:
        servers = []
    up = any(c["Service"] == "haproxy" and c.get("State") == "running" for c in rows)
    return {"up": up, "mode": "docker", "entry_points": urls(cfg) if up else {},
            "containers": [{"service": c["Service"], "name": c["Name"], "state": c.get("State"),
                            "health": c.get("Health") or "-"} for c in rows],
            "haproxy": [{"backend": s["pxname"], "server": s["svname"], "status": s["status"],
                         "address": s.get("addr", ""), "sessions": int(s.get("scur") or 0)}
                        for s in servers if not s["status"].startswith("MAINT")]}


def cmd_status(args) -> int:
    st = status()
    if args.json:
        print(json.dumps(st, indent=1))
        return 0 if st["up"] else 3
    print(f"status: {'up' if st['up'] else 'HAProxy NOT running'} (containers, docker compose project)")
    for name, url in st["entry_points"].items():
        print(f"  {name:8s} {url}")
    print(f"  {'container':28s} {'state':9s} health")
    for c in sorted(st["containers"], key=lambda c: c["name"]):
        print(f"  {c['name']:28s} {c['state']:9s} {c['health']}")
    print(f"  {'haproxy server':16s} {'address':22s} {'status':8s} sessions")
    for s in st["haproxy"]:
        print(f"  {s['backend'] + '/' + s['server']:16s} {s['address']:22s} {s['status']:8s} {s['sessions']}")
    return 0 if st["up"] else 3


def cmd_scale(args) -> int:
    cfg = _config()
    for spec in args.spec:
        name, _, n = spec.partition("=")
        if name not in (*tiers.TIERS, "locust-worker") or not n.isdigit() or int(n) > tiers.MAX_REPLICAS:
            print(f"testbed: scale: expected TIER=N with TIER in {', '.join(tiers.TIERS)}, locust-worker "
                  f"and N in 0..{tiers.MAX_REPLICAS}, got {spec!r}", file=sys.stderr)
            return 2
        drained: list[str] = []
        try:
            replicas = replica_addresses(name)
            before = len(replicas)
            if name in tiers.TIERS and int(n) < before:
                gone = set().union(*(replicas[k] for k in to_remove(list(replicas), int(n))))
                drained = slots_of(haproxy_servers(cfg), name, gone)
                drain(cfg, name, drained)
            # --no-recreate: the replicas already serving stay as they are; --no-deps: the
            # other tiers keep their replica counts
            compose(["up", "--detach", "--wait", "--wait-timeout", str(SCALE_TIMEOUT), "--no-recreate",
                     "--no-deps", "--scale", f"{name}={n}", name], _overrides(cfg))
            if name in tiers.TIERS:
                wait_servers(cfg, name, int(n))     # exactly n: the removed ones left the slots
        except (DockerError, OSError) as e:
            print(f"testbed: {e}", file=sys.stderr)
            return 1
        finally:
            if drained:
                try:
                    undrain(name, drained)
                except DockerError as e:
                    print(f"testbed: {e}; the slots stay drained until: docker compose restart haproxy",
                          file=sys.stderr)
        print(f"scale: {name} {before} -> {n}")
    return 0


def cmd_logs(args) -> int:
    name = args.tier
    if name == "locust":
        names = list(LOCUST)
    elif name in SERVICES:
        names = [name]
    else:
        print(f"testbed: unknown tier {name!r}; one of: {', '.join(SERVICES)}, locust", file=sys.stderr)
        return 2
    return compose(["logs", "--tail", str(args.lines), *(["--follow"] if args.follow else []), *names],
                   check=False).returncode


def urls(cfg: StackConfig, locust: bool = True) -> dict[str, str]:
    h = cfg.client_host
    out = {"locust": f"http://{h}:{cfg.locust_port}/"} if locust else {}
    return {**out,
            "web": f"http://{h}:{cfg.web_port}/seg/1",
            "clones": f"http://{h}:{cfg.clones_port}/invoke",
            "axis": f"http://{h}:{cfg.soap_port}/axis",
            "gsoap": f"http://{h}:{cfg.soap_port}/gsoap",
            "stats": f"http://{h}:{cfg.stats_port}/",
            "metrics": f"http://{h}:{cfg.stats_port}/metrics",
            "bound": f"http://{h}:{cfg.bound_port}/"}
