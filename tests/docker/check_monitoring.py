"""The monitoring profile checked on a real Docker engine, and measured:

    .venv/bin/python tests/docker/check_monitoring.py [--port-base 38100] [--no-build] [--keep] [--reuse]

`docker compose --profile monitoring up --wait` (the project's images, built unless --no-build),
then: Prometheus' targets list every replica of every tier UP (front, clone, axis, gsoap by DNS,
haproxy, the CPU exporter, itself); `docker compose up --scale clone=3` -- how long after each new
container started Prometheus listed it, and had it UP (one scrape interval is the goal); every
metrics endpoint we own (the Java tiers' JMX exporter agents, gSOAP's /metrics, the CPU
exporter) through `promtool check metrics`: no lint; the CPU exporter naming every container of
the project; the Locust UI's Testbed tab listing every replica from inside its container; then
`docker compose down -v`. Traffic goes to 127.0.0.1 (published ports) and to the containers
this run started (their addresses on the project's network); every wait is bounded.
Figures: results/monitoring-check-<time>/figures.json. CI: .ci/run, which runs
the monitoring and tracing checks on one stack with both profiles (TESTBED_CHECK_PROFILES,
--keep on the first, --reuse on the second).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_stack import CheckFailed, get, log, run, until, write_figures  # noqa: E402
from profilecheck import build_and_up, check_profiles, fresh_project, profile_options  # noqa: E402


JOBS = {"front", "clone", "axis", "gsoap", "haproxy", "cpu", "prometheus"}
OWN = {"front": 9404, "clone": 9404, "axis": 9404, "gsoap": 8080, "cpu-exporter": 9105}


def compose(*args: str, timeout: float = 900, capture: bool = False) -> subprocess.CompletedProcess:
    return run(["docker", "compose", *check_profiles("monitoring"), *args], timeout, capture=capture)


def containers() -> list[dict]:
    out = compose("ps", "--format", "json", capture=True, timeout=60).stdout.strip()
    rows = json.loads(out) if out.startswith("[") else [json.loads(line) for line in out.splitlines() if line]
    names = [r["Name"] for r in rows]
    info = json.loads(run(["docker", "inspect", *names], 60, capture=True).stdout) if names else []
    return [{"service": i["Config"]["Labels"]["com.docker.compose.service"], "name": i["Name"].lstrip("/"),
             "ip": next(iter(i["NetworkSettings"]["Networks"].values()))["IPAddress"],
             "started": _utc(i["State"]["StartedAt"])} for i in info]


def _utc(stamp: str) -> float | None:
    """Docker's RFC 3339 UTC time (nanoseconds, Z) as epoch seconds; None: never started."""
    if stamp.startswith("0001"):
        return None
    return datetime.fromisoformat(stamp[:26].rstrip("Z")).replace(tzinfo=timezone.utc).timestamp()


def targets(prom: str) -> list[dict]:
    status, body = get(prom + "/api/v1/targets", 10)
    return json.loads(body)["data"]["activeTargets"] if status == 200 else []


def promtool(url: str) -> str:
    with urllib.request.urlopen(url, timeout=15) as r:
        text = r.read().decode()
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    return (p.stdout + p.stderr).strip() if p.returncode else ""


def main(argv=None) -> int:
    args, env, ports = profile_options(__doc__, argv)
    prom, ui = f"http://127.0.0.1:{ports['PROMETHEUS_PORT']}", f"http://127.0.0.1:{ports['LOCUST_PORT']}/"
    interval = float((os.environ.get("MONITORING_SCRAPE_INTERVAL") or env["MONITORING_SCRAPE_INTERVAL"]).rstrip("s"))
    figures: dict = {"ports": ports, "scrape_interval_s": interval}
    out = fresh_project(compose, args, "monitoring")
    ok = False
    try:
        build_and_up(compose, figures, args.no_build, 600, args.reuse)

        def all_up():
            ts = targets(prom)
            jobs = {t["labels"]["job"] for t in ts if t["health"] == "up"}
            return ts if jobs >= JOBS and all(t["health"] == "up" for t in ts) else None
        ts = until("every target UP in Prometheus", all_up, 120, 1.0)
        figures["targets_up"] = sorted(f"{t['labels']['job']} {t['labels']['instance']}" for t in ts)
        log(f"every target UP: {len(ts)} ({', '.join(sorted(JOBS))})")

        before = {c["name"] for c in containers()}
        # watch Prometheus' targets while compose scales (its --wait returns only once the new
        # replicas are healthy, long after Prometheus may have found them)
        log("$ docker compose --profile monitoring up --detach --wait --no-recreate --scale clone=3 clone")
        scale = subprocess.Popen(["docker", "compose", *check_profiles("monitoring"), "up", "--detach", "--wait",
                                  "--no-recreate", "--scale", "clone=3", "clone"], cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        listed: dict[str, float] = {}        # target address -> first seen listed / UP
        up: dict[str, float] = {}
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            now = time.time()
            for t in targets(prom):
                if t["labels"]["job"] == "clone":
                    ip = t["labels"]["instance"].rpartition(":")[0]
                    listed.setdefault(ip, now)
                    if t["health"] == "up":
                        up.setdefault(ip, now)
            if scale.poll() is not None and len(up) >= 3:
                break
            time.sleep(0.25)
        if scale.wait(timeout=60) != 0:
            raise CheckFailed("docker compose up --scale clone=3 failed")
        new = [c for c in containers() if c["name"] not in before and c["service"] == "clone"]
        if len(new) != 2 or any(c["ip"] not in up for c in new):
            raise CheckFailed(f"--scale clone=3: new clones {[c['name'] for c in new]}, UP in Prometheus {sorted(up)}")
        figures["scaled"] = {c["name"]: {"listed_after_start_s": round(listed[c["ip"]] - c["started"], 2),
                                         "up_after_start_s": round(up[c["ip"]] - c["started"], 2)} for c in new}
        log(f"scaled clones in Prometheus (seconds after their container started): {figures['scaled']}")

        lints = {}
        for c in containers():
            if c["service"] in OWN:
                lints[c["name"]] = promtool(f"http://{c['ip']}:{OWN[c['service']]}/metrics")
        figures["promtool_lints"] = lints
        bad = {k: v for k, v in lints.items() if v}
        if bad:
            raise CheckFailed(f"promtool check metrics found lints: {bad}")
        log(f"promtool check metrics: no lint on {len(lints)} endpoints")

        exporter = next(c for c in containers() if c["service"] == "cpu-exporter")
        with urllib.request.urlopen(f"http://{exporter['ip']}:9105/metrics", timeout=15) as r:
            text = r.read().decode()
        named = {line.split('replica="')[1].split('"')[0] + "/" + line.split('tier="')[1].split('"')[0]
                 for line in text.splitlines() if line.startswith("testbed_cpu_seconds_total{")}
        figures["cpu_exporter_replicas"] = sorted(named)
        for want in ("1/front", "3/clone", "1/axis", "1/gsoap", "1/haproxy"):
            if want not in named:
                raise CheckFailed(f"the CPU exporter does not name {want}: {sorted(named)}")

        status, body = get(ui + "testbed/tiers", 15)
        view = json.loads(body) if status == 200 else {}
        rows = {f"{r['tier']}-{r['replica']}": r["haproxy"] for r in view.get("rows", [])}
        figures["tab_rows"] = rows
        want = {"front-1", "clone-1", "clone-2", "clone-3", "axis-1", "gsoap-1"}
        if not want <= set(rows) or any(rows[r] != "UP" for r in want):
            raise CheckFailed(f"the Testbed tab (in the locust-master container) shows {rows}")
        log(f"Testbed tab from the locust-master container: {rows}")
        ok = True
    except (AssertionError, subprocess.TimeoutExpired) as e:
        log(f"FAILED: {e}")
    finally:
        if not args.keep:
            compose("down", "--volumes", "--remove-orphans", timeout=300)
    return write_figures(out, figures, ok)


if __name__ == "__main__":
    sys.exit(main())
