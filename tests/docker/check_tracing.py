"""The tracing profile checked on a real Docker engine (docs/tracing.md):

    .venv/bin/python tests/docker/check_tracing.py [--port-base 38200] [--no-build] [--keep] [--reuse]

`docker compose --profile tracing up --wait` (the project's images, built unless --no-build):
Zipkin starts first and every service finds it by name, so then: HAProxy runs its span relay,
the Java tiers record their spans, gSOAP its exporter, the Locust containers their
sampler. A few traced /seg/5 requests through each backend (a W3C traceparent with the sampled
flag, as Locust sends), read back through HAProxy's zipkin entry (Zipkin's API): each one trace
with HAProxy's three spans, the front's server and client spans and its segments, the clone's
server and SOAP client spans and the service's span (gSOAP's with its three phases); an
unsampled request leaves none. `docker compose --profile tracing down -v` at the end, and no
container of the project is left. Traffic goes to 127.0.0.1 (published ports) only; every wait is
bounded. Figures: results/tracing-check-<time>/figures.json. CI: .ci/run, which runs
the monitoring and tracing checks on one stack with both profiles (TESTBED_CHECK_PROFILES,
--keep on the first, --reuse on the second).
"""
from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_stack import CheckFailed, get, log, run, until, write_figures  # noqa: E402
from profilecheck import build_and_up, check_profiles, fresh_project, profile_options  # noqa: E402

SERVICES = {"haproxy", "front", "clone"}


def compose(*args: str, timeout: float = 900, capture: bool = False, profile: bool = True):
    return run(["docker", "compose", *(check_profiles("tracing") if profile else []), *args], timeout,
               capture=capture)


def traced_request(web: str, backend: str, sampled: bool = True) -> str:
    trace_id = secrets.token_hex(16)
    req = urllib.request.Request(
        f"{web}/seg/5?backend={backend}&op=ping&n=0",
        headers={"traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-{'01' if sampled else '00'}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        if r.status != 200:
            raise CheckFailed(f"/seg/5 through {backend}: HTTP {r.status}")
    return trace_id


def trace(zipkin: str, trace_id: str) -> list[dict]:
    status, body = get(f"{zipkin}/api/v2/trace/{trace_id}", 15)
    return json.loads(body) if status == 200 else []


def services_of(spans: list[dict]) -> set[str]:
    return {s["localEndpoint"]["serviceName"] for s in spans}


def main(argv=None) -> int:
    args, _, ports = profile_options(__doc__, argv)
    web, zipkin = f"http://127.0.0.1:{ports['WEB_PORT']}", f"http://127.0.0.1:{ports['ZIPKIN_PORT']}"
    figures: dict = {"ports": ports, "traces": {}}
    out = fresh_project(compose, args, "tracing")
    ok = False
    try:
        build_and_up(compose, figures, args.no_build, 900, args.reuse)
        for backend in ("axis", "gsoap"):
            ids = [traced_request(web, backend) for _ in range(3)]

            def complete():
                spans = trace(zipkin, ids[-1])
                have = services_of(spans)
                parents_known = all(s.get("parentId") in {x["id"] for x in spans} or s["localEndpoint"][
                    "serviceName"] == "haproxy" and s["name"].startswith("web") for s in spans)
                return spans if SERVICES | {backend} <= have and parents_known else None
            spans = until(f"a complete trace of /seg/5 through {backend} in Zipkin", complete, 60, 1.0)
            kinds = sorted(f"{s['localEndpoint']['serviceName']}:{s.get('kind', '-')}:{s['name']}" for s in spans)
            figures["traces"][backend] = {"spans": len(spans), "tree": kinds}
            hp = [s for s in spans if s["localEndpoint"]["serviceName"] == "haproxy"]
            if len(hp) != 3 or len(spans) < (13 if backend == "gsoap" else 10):
                raise CheckFailed(f"{backend}: {len(spans)} spans, {len(hp)} of HAProxy: {kinds}")
            for svc, kind in (("front", "SERVER"), ("front", "CLIENT"), ("clone", "SERVER"), ("clone", "CLIENT"),
                              (backend, "SERVER")):
                if not any(s["localEndpoint"]["serviceName"] == svc and s.get("kind") == kind for s in spans):
                    raise CheckFailed(f"{backend}: no {svc} {kind} span: {kinds}")
            log(f"/seg/5 through {backend}: one trace of {len(spans)} spans in Zipkin")
        quiet = traced_request(web, "gsoap", sampled=False)
        time.sleep(3)
        if trace(zipkin, quiet):
            raise CheckFailed("an unsampled request left spans in Zipkin")
        log("an unsampled request left no span")
        ok = True
    except (AssertionError, subprocess.TimeoutExpired) as e:
        log(f"FAILED: {e}")
    finally:
        if not args.keep:
            compose("down", "--volumes", "--remove-orphans", timeout=300)
            left = compose("ps", "-aq", capture=True, timeout=60).stdout.strip()
            figures["left_behind"] = left.split() if left else []
            ok = ok and not left
    return write_figures(out, figures, ok, {k: v for k, v in figures.items() if k != "traces"})


if __name__ == "__main__":
    sys.exit(main())
