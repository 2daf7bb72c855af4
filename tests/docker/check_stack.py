"""The containerized stack checked end to end on a real Docker engine, and measured.

    .venv/bin/python tests/docker/check_stack.py                  # compose checks
    .venv/bin/python tests/docker/check_stack.py --swarm          # + a single-node Swarm
    .venv/bin/python tests/docker/check_stack.py --port-base 38080 --swarm   # other host ports

Compose: build every image (timed), `docker compose up --wait` (timed), /seg/1 ... /seg/5
through HAProxy for both backends, `./testbed scale clone=3` until HAProxy reports three
clone servers UP and requests reach all three, back to one while requests flow (none may
fail), then to two (the slots drained for the scale-down take a replica again), the Locust UI and its worker, idle memory of every container (`docker stats`),
then `docker compose down -v`. Swarm: `docker stack deploy -c docker-compose.yml` on a
single-node swarm (made here and left afterwards if there was none), /seg/5 for both
backends, `docker stack rm`.

Traffic goes only to 127.0.0.1 (the published entry points); every wait is bounded in
time and in tries. The figures (image sizes, build, up and down times, idle memory) go to
results/docker-check-<time>/figures.json and are printed at the end. CI: .ci/run.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "cli"))

from testbed.config import read_env_file  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaledown import scale_down_round  # noqa: E402
from swarm_experiment import run_on_swarm  # noqa: E402

PORT_KNOBS = ("WEB_PORT", "CLONES_PORT", "SOAP_PORT", "BOUND_PORT", "STATS_PORT", "LOCUST_PORT", "PROMETHEUS_PORT",
              "ZIPKIN_PORT")
TIERS = ("front", "clone", "axis", "gsoap")
SWARM_STACK = "testbed"


class CheckFailed(AssertionError):
    pass


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(argv: list[str], timeout: float, check: bool = True, capture: bool = False) -> subprocess.CompletedProcess:
    log("$ " + " ".join(argv))
    r = subprocess.run(argv, cwd=ROOT, text=True, timeout=timeout, capture_output=capture)
    if check and r.returncode != 0:
        raise CheckFailed(f"{' '.join(argv)} exited {r.returncode}"
                          + (f"\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}" if capture else ""))
    return r


def get(url: str, timeout: float = 15.0) -> tuple[int, str]:
    """GET; with the UI credentials when UI_PASSWORD is set (the Swarm phase sets one)."""
    password = os.environ.get("UI_PASSWORD")
    headers = {"Authorization": "Basic " + base64.b64encode(
        f"{os.environ.get('UI_USER', 'testbed')}:{password}".encode()).decode()} if password else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (OSError, urllib.error.URLError) as e:
        return 0, str(e)


def until(what: str, predicate, timeout: float, interval: float = 2.0):
    """predicate() until it returns something true: at most timeout seconds and
    timeout/interval + 1 tries."""
    deadline = time.monotonic() + timeout
    last = None
    for _ in range(int(timeout / interval) + 1):
        last = predicate()
        if last:
            return last
        if time.monotonic() >= deadline:
            break
        time.sleep(interval)
    raise CheckFailed(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


class Stack:
    def __init__(self, ports: dict[str, int]):
        self.ports = ports
        self.base = "http://127.0.0.1"

    def url(self, knob: str, path: str) -> str:
        return f"{self.base}:{self.ports[knob]}{path}"

    def haproxy_rows(self) -> list[dict[str, str]]:
        status, text = get(self.url("STATS_PORT", "/;csv;norefresh"), 5)
        if status != 200:
            return []
        lines = text.lstrip("# ").splitlines()
        head = lines[0].split(",")
        return [dict(zip(head, line.split(","))) for line in lines[1:] if line]

    def servers(self, backend: str) -> tuple[int, int]:
        """(servers UP, servers holding a replica's address) of a backend's server-template"""
        rows = [r for r in self.haproxy_rows()
                if r.get("pxname") == backend and r.get("svname") not in ("FRONTEND", "BACKEND")]
        return (sum(1 for r in rows if r.get("status") == "UP"),
                sum(1 for r in rows if not r.get("status", "").startswith("MAINT")))

    def wait_servers(self, backend: str, n: int, timeout: float) -> None:
        until(f"HAProxy to report {n} {backend} server(s), all UP",
              lambda: self.servers(backend) == (n, n), timeout, 1.0)

    def check_segments(self, timeout: float = 120) -> None:
        """/seg/1 ... /seg/5 through HAProxy; /seg/5 for both backends."""
        for seg in range(1, 5):
            status, page = until(f"/seg/{seg} to answer 200",
                                 lambda: (lambda r: r if r[0] == 200 else None)(get(self.url("WEB_PORT", f"/seg/{seg}"))),
                                 timeout)
            want = ",".join(str(i) for i in range(1, seg + 1))
            if f"segments: {want}" not in page:
                raise CheckFailed(f"/seg/{seg}: no 'segments: {want}' line in:\n{page[:500]}")
            log(f"  /seg/{seg}: 200, segments: {want}")
        for backend in ("axis", "gsoap"):
            path = f"/seg/5?backend={backend}&op=sendInts&n=100"
            status, page = until(f"{path} to answer 200",
                                 lambda: (lambda r: r if r[0] == 200 else None)(get(self.url("WEB_PORT", path))),
                                 timeout)
            if "segments: 1,2,3,4,5" not in page or "soap-result:" not in page:
                raise CheckFailed(f"{path}: not a /seg/5 page:\n{page[:800]}")
            result = re.search(r"soap-result: ([^<\n]*)", page).group(1)
            log(f"  {path}: 200, soap-result: {result[:80]}")

    def seg5(self, backend: str, where: str, timeout: float, interval: float = 5) -> str:
        """/seg/5 for a backend, tried until it answers 200 (bounded); the page must be a /seg/5 page."""
        path = f"/seg/5?backend={backend}&op=sendInts&n=100"
        status, page = until(f"{path} through {where}",
                             lambda: (lambda r: r if r[0] == 200 else None)(get(self.url("WEB_PORT", path))),
                             timeout, interval)
        if "segments: 1,2,3,4,5" not in page or "soap-result:" not in page:
            raise CheckFailed(f"{where} {path}: not a /seg/5 page:\n{page[:800]}")
        log(f"  {where} {path}: 200")
        return page

    def clone_hosts(self, calls: int) -> tuple[set[str], int]:
        hosts, errors = set(), 0
        for _ in range(calls):
            status, body = get(self.url("CLONES_PORT", "/invoke?backend=gsoap&op=ping"), 10)
            if status == 200:
                hosts.add(json.loads(body)["clone"]["host"])
            else:
                errors += 1
        return hosts, errors


class Load(threading.Thread):
    """Requests in a loop until stopped (at most `limit` of them): counts what failed."""

    def __init__(self, url: str, limit: int = 20000):
        super().__init__(daemon=True)
        self.url, self.limit = url, limit
        self.ok = self.failed = 0
        self.failures: list[str] = []
        self.stop = threading.Event()

    def run(self):
        for _ in range(self.limit):
            if self.stop.is_set():
                return
            status, body = get(self.url, 30)
            if status == 200:
                self.ok += 1
            else:
                self.failed += 1
                self.failures.append(f"{status} {body[:200]}")


# ------------------------------------------------------------------------- measures
def image_sizes() -> dict[str, int]:
    r = run(["docker", "compose", "config", "--images"], 60, capture=True)
    out = {}
    for image in sorted(set(r.stdout.split())):
        size = run(["docker", "image", "inspect", "--format", "{{.Size}}", image], 30, capture=True)
        out[image] = int(size.stdout.strip())
    return out


_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "kB": 1000, "MB": 10**6, "GB": 10**9}


def publish_ports(base: int, env: dict[str, str]) -> dict[str, int]:
    """The entry points' ports: .env's, or 127.0.0.1:BASE.. (--port-base) set for compose."""
    if base:
        for i, knob in enumerate(PORT_KNOBS):
            os.environ[knob] = str(base + i)
    return {k: int(os.environ.get(k) or env[k]) for k in PORT_KNOBS}


def write_figures(out: Path, figures: dict, ok: bool, shown: dict | None = None) -> int:
    """A check's end: figures.json in its result folder, shown and summed up; the exit status."""
    figures["ok"] = ok
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(json.dumps(figures if shown is None else shown, indent=1))
    log(f"{'ok' if ok else 'FAILED'}; figures in {out / 'figures.json'}")
    return 0 if ok else 1


def _bytes(text: str) -> int:
    m = re.match(r"([\d.]+)\s*([A-Za-z]+)", text.strip())
    return int(float(m.group(1)) * _UNITS[m.group(2)]) if m else 0


def idle_memory(project: str) -> dict[str, object]:
    r = run(["docker", "stats", "--no-stream", "--format", "{{json .}}"], 120, capture=True)
    per = {}
    for line in r.stdout.splitlines():
        row = json.loads(line)
        if row["Name"].startswith(project + "-") or row["Name"].startswith(project + "_"):
            per[row["Name"]] = {"mem": _bytes(row["MemUsage"].split("/")[0]), "cpu": row["CPUPerc"]}
    return {"containers": per, "total_bytes": sum(v["mem"] for v in per.values())}


# ------------------------------------------------------------------------- phases
def compose_phase(stack: Stack, figures: dict, args) -> None:
    project = os.environ.get("COMPOSE_PROJECT_NAME") or read_env_file(ROOT / ".env").get("COMPOSE_PROJECT_NAME", "testbed")
    existing = run(["docker", "compose", "ps", "--all", "-q"], 60, capture=True).stdout.split()
    if existing and not args.replace:
        raise CheckFailed(f"compose project {project!r} already has containers; stop it "
                          "(docker compose down) or pass --replace")
    if not args.no_build:
        t0 = time.monotonic()
        run(["docker", "compose", "build"], 3600)
        figures["build_seconds"] = round(time.monotonic() - t0, 1)
    figures["image_bytes"] = image_sizes()
    try:
        t0 = time.monotonic()
        run(["docker", "compose", "up", "--detach", "--wait", "--wait-timeout", "600"], 700)
        figures["up_wait_seconds"] = round(time.monotonic() - t0, 1)
        for tier in TIERS:
            stack.wait_servers(tier, 1, 60)
        figures["routable_seconds"] = round(time.monotonic() - t0, 1)
        log(f"up --wait: {figures['up_wait_seconds']}s; every tier UP in HAProxy at {figures['routable_seconds']}s")
        # a normal start: no server ever DOWN, no ALERT (the readiness gate keeps starting
        # replicas in maintenance until they answer /health)
        downs = [(r["svname"], r["chkdown"]) for r in stack.haproxy_rows()
                 if r.get("svname") not in ("FRONTEND", "BACKEND") and r.get("chkdown", "0") not in ("0", "")]
        alerts = [line for line in run(["docker", "compose", "logs", "haproxy"], 60, capture=True).stdout.splitlines()
                  if "ALERT" in line]
        log(f"  HAProxy after the start: {len(downs)} DOWN transition(s), {len(alerts)} ALERT(s)")
        if downs or alerts:
            raise CheckFailed(f"a normal start left DOWN transitions {downs} or ALERTs {alerts[:3]}")

        stack.check_segments()
        for path in ("/axis?wsdl", "/gsoap?wsdl"):
            status, body = get(stack.url("SOAP_PORT", path))
            if status != 200 or "definitions" not in body:
                raise CheckFailed(f"{path} through HAProxy's soap entry: {status}")
        log("  /axis?wsdl, /gsoap?wsdl: 200")

        status, page = get(stack.url("LOCUST_PORT", "/"))
        if status != 200 or "locust" not in page.lower():
            raise CheckFailed(f"Locust UI on 127.0.0.1:{stack.ports['LOCUST_PORT']}: {status}")
        workers = until("the Locust worker to be connected", lambda: json.loads(
            get(stack.url("LOCUST_PORT", "/stats/requests"))[1] or "{}").get("worker_count"), 60)
        log(f"  Locust UI: 200 on 127.0.0.1:{stack.ports['LOCUST_PORT']}, {workers} worker(s) connected")

        log(f"idle for {args.idle_seconds}s, then docker stats")
        time.sleep(args.idle_seconds)
        figures["idle_memory"] = idle_memory(project)
        log(f"  idle memory of the stack: {figures['idle_memory']['total_bytes'] / 2**20:.0f} MiB")

        # scale the client tier 1 -> 3 with the CLI (docker compose up --scale underneath)
        t0 = time.monotonic()
        run([str(ROOT / "testbed"), "scale", "clone=3"], 400)
        stack.wait_servers("clone", 3, 60)
        figures["scale_clone_1_to_3_seconds"] = round(time.monotonic() - t0, 1)
        hosts, errors = stack.clone_hosts(60)
        log(f"  HAProxy: 3 clone servers UP; 60 /invoke calls reached {len(hosts)} clones, {errors} errors")
        if len(hosts) != 3 or errors:
            raise CheckFailed(f"expected 60 calls to reach 3 clones without error: {hosts}, {errors} errors")
        status = json.loads(run([str(ROOT / "testbed"), "status", "--json"], 60, capture=True).stdout)
        clones = [r for r in status["replicas"] if r["tier"] == "clone"]
        if len(clones) != 3 or status.get("mode") != "docker":
            raise CheckFailed(f"./testbed status --json: expected 3 clone replicas in docker mode: {clones}")

        # every tier 3 -> 1 while requests flow through it with the CLI, and with plain compose
        # the two ways a tier leaves HAProxy's rotation before it stops (java-common's drain:
        # clone; gSOAP's own: gsoap): none may fail
        figures["scale_down"] = []
        for tier in TIERS:
            for way in (("compose", "testbed") if tier in ("clone", "gsoap") else ("testbed",)):
                r = scale_down_round(stack, tier, way)
                figures["scale_down"].append(r)
                log(f"  {tier} 3 -> 1 by {way} under 4 request streams: {r['ok']} ok, {r['failed']} failed")
                if r["failed"] or r["ok"] == 0:
                    raise CheckFailed(f"{tier} scale-down by {way} was not clean: {r['first_failures']}")
        # the scale-down drained the removed replicas' slots in HAProxy and made them ready
        # again: a replica that lands in one of them now must be UP and get requests
        run([str(ROOT / "testbed"), "scale", "clone=2"], 400)
        stack.wait_servers("clone", 2, 60)
        hosts, errors = stack.clone_hosts(40)
        log(f"  scaled clone 1 -> 2: 2 servers UP; 40 /invoke calls reached {len(hosts)} clones, {errors} errors")
        if len(hosts) != 2 or errors:
            raise CheckFailed(f"after scale-down and up again, expected 2 clones to serve: {hosts}, {errors} errors")
    finally:
        if not args.keep:
            t0 = time.monotonic()
            run(["docker", "compose", "down", "--volumes", "--remove-orphans"], 300, check=False)
            figures["down_seconds"] = round(time.monotonic() - t0, 1)


def swarm_phase(stack: Stack, figures: dict, args) -> None:
    state = run(["docker", "info", "--format", "{{.Swarm.LocalNodeState}}"], 60, capture=True).stdout.strip()
    made = state != "active"
    if made:
        run(["docker", "swarm", "init", "--advertise-addr", "127.0.0.1"], 120, capture=True)  # no join token in logs
    # Swarm publishes on every address: HAProxy wants UI credentials (docs/docker.md)
    os.environ.setdefault("UI_PASSWORD", "ci-" + os.urandom(6).hex())
    # `docker stack deploy` reads no .env: the shell hands the knobs over (docs/docker.md)
    env = {**read_env_file(ROOT / ".env"), **os.environ}
    try:
        t0 = time.monotonic()
        log(f"$ docker stack deploy -c docker-compose.yml {SWARM_STACK}   (knobs of .env in the environment)")
        r = subprocess.run(["docker", "stack", "deploy", "-c", "docker-compose.yml", SWARM_STACK],
                           cwd=ROOT, env=env, text=True, capture_output=True, timeout=300)
        print(r.stdout + r.stderr, flush=True)
        if r.returncode != 0 and "unsupported Compose file version" in r.stderr:
            # a docker CLI before 23 (Debian 12's docker.io: 20.10) wants a version key,
            # which compose v2 warns about on every command: given on stdin (docs/docker.md)
            log('$ (echo \'version: "3.9"\'; cat docker-compose.yml) | docker stack deploy -c - ' + SWARM_STACK)
            figures["swarm_needed_version_key"] = True
            r = subprocess.run(["docker", "stack", "deploy", "-c", "-", SWARM_STACK], cwd=ROOT, env=env,
                               input='version: "3.9"\n' + (ROOT / "docker-compose.yml").read_text(),
                               text=True, capture_output=True, timeout=300)
            print(r.stdout + r.stderr, flush=True)
        if r.returncode != 0:
            raise CheckFailed("docker stack deploy failed")
        figures["swarm_warnings"] = [line for line in r.stderr.splitlines() if "warn" in line.lower()]

        def converged():
            out = run(["docker", "stack", "services", SWARM_STACK, "--format", "{{.Name}} {{.Replicas}}"],
                      60, capture=True).stdout.split("\n")
            pending = [line for line in out if line and line.split()[1].split("/")[0] != line.split()[1].split("/")[1]]
            return not pending and len([line for line in out if line]) == 7
        until("every Swarm service to run its replicas", converged, 600, 5)
        for backend in ("axis", "gsoap"):
            stack.seg5(backend, "the Swarm stack", 600)
        figures["swarm_seg5_seconds"] = round(time.monotonic() - t0, 1)
        # `docker service scale` down under requests: none may fail
        for tier in ("clone", "gsoap"):
            r = scale_down_round(stack, tier, "swarm", swarm_stack=SWARM_STACK)
            figures.setdefault("swarm_scale_down", []).append(r)
            log(f"  Swarm: {tier} 3 -> 1 by docker service scale under 4 request streams: "
                f"{r['ok']} ok, {r['failed']} failed")
            if r["failed"] or r["ok"] == 0:
                raise CheckFailed(f"Swarm {tier} scale-down was not clean: {r['first_failures']}")
        # an experiment on the Swarm stack: ./testbed run finds it, samples and dumps its tasks
        figures["swarm_experiment"] = run_on_swarm(ROOT / "results" / "swarm-check")
        log(f"  Swarm: ./testbed run (1 run) complete in {figures['swarm_experiment']['wall_seconds']} s, "
            f"{figures['swarm_experiment']['max_throughput']}/s")
        ports = run(["docker", "service", "inspect", f"{SWARM_STACK}_haproxy", "--format",
                     "{{json .Endpoint.Ports}}"], 60, capture=True).stdout.strip()
        figures["swarm_haproxy_ports"] = json.loads(ports)
    finally:
        if not args.keep:
            run(["docker", "stack", "rm", SWARM_STACK], 120, check=False)
            until("the stack's containers and network to go",
                  lambda: not run(["docker", "ps", "-aq", "--filter", f"label=com.docker.stack.namespace={SWARM_STACK}"],
                                  60, capture=True).stdout.strip()
                  and not run(["docker", "network", "ls", "-q", "--filter", f"name={SWARM_STACK}_default"],
                              60, capture=True).stdout.strip(), 120, 3)
            if made:
                run(["docker", "swarm", "leave", "--force"], 120, check=False)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--swarm", action="store_true", help="also deploy to a single-node Swarm")
    p.add_argument("--swarm-only", action="store_true", help="only the Swarm part (images built already)")
    p.add_argument("--no-build", action="store_true", help="use the images as they are")
    p.add_argument("--port-base", type=int, default=0,
                   help="publish the entry points on 127.0.0.1:BASE.. instead of .env's ports")
    p.add_argument("--idle-seconds", type=int, default=20, help="idle time before docker stats")
    p.add_argument("--replace", action="store_true", help="take down a running compose stack of the project")
    p.add_argument("--keep", action="store_true", help="leave the stack running (debugging)")
    p.add_argument("-o", "--output", default=None, help="result folder (default results/docker-check-<time>)")
    args = p.parse_args(argv)

    os.environ.setdefault("BIND_ADDRESS", "127.0.0.1")
    ports = publish_ports(args.port_base, read_env_file(ROOT / ".env"))
    stack = Stack(ports)
    figures: dict = {"ports": ports}
    out = Path(args.output or ROOT / "results" / f"docker-check-{time.strftime('%Y%m%d-%H%M%S')}")
    t0 = time.monotonic()
    try:
        if not args.swarm_only:
            compose_phase(stack, figures, args)
        if args.swarm or args.swarm_only:
            swarm_phase(stack, figures, args)
        ok = True
    except (AssertionError, subprocess.TimeoutExpired) as e:   # CheckFailed and the helpers' asserts
        log(f"FAILED: {e}")
        ok = False
    figures["total_seconds"] = round(time.monotonic() - t0, 1)
    return write_figures(out, figures, ok)


if __name__ == "__main__":
    sys.exit(main())
