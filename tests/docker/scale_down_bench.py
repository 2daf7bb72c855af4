"""Scale-down under load, measured side by side on a running compose stack: the client
tier 3 -> 1 with `./testbed scale` (drains the removed replicas in HAProxy first) and with
plain `docker compose up --scale` (stops them while HAProxy still routes to them).

    ./testbed up --docker --no-locust
    .venv/bin/python tests/docker/scale_down_bench.py [--rounds 6] [--clients 4]
    ./testbed down

Each round scales to 3, starts C closed-loop clients on the clones entry point
(127.0.0.1 only; each bounded to 5000 requests), scales to 1 one way, waits until HAProxy
shows one clone UP, then stops the clients. The two ways alternate within each round.
Figures (requests ok/failed per round and way, the first failure texts) go to
results/scale-down-<time>/figures.json. A benchmark, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "cli"))
sys.path.insert(0, str(HERE))

from check_stack import Load  # noqa: E402
from testbed import docker  # noqa: E402
from testbed.config import StackConfig  # noqa: E402


def sh(*cmd: str) -> None:
    r = subprocess.run(list(cmd), cwd=ROOT, text=True, capture_output=True, timeout=400)
    if r.returncode != 0:
        raise SystemExit(f"scale_down_bench: {' '.join(cmd)} failed:\n{(r.stdout + r.stderr)[-1500:]}")


def scale_down(way: str, cfg: StackConfig) -> None:
    if way == "testbed scale":
        sh(str(ROOT / "testbed"), "scale", "clone=1")
    else:
        sh("docker", "compose", "up", "--detach", "--wait", "--no-recreate", "--no-deps",
           "--scale", "clone=1", "clone")
        docker.ComposeStack(cfg).wait_servers("clone", 1, 60)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--clients", type=int, default=4)
    args = ap.parse_args()
    if not docker.ComposeStack(StackConfig.load()).running():
        raise SystemExit("scale_down_bench: no compose stack runs; start one: ./testbed up --docker --no-locust")
    cfg = StackConfig.load()
    url = f"http://127.0.0.1:{cfg.clones_port}/invoke?backend=axis&op=ping"
    out = ROOT / "results" / time.strftime("scale-down-%Y%m%d-%H%M%S")
    out.mkdir(parents=True)
    figures: dict = {"rounds": args.rounds, "clients": args.clients, "url": url,
                     "testbed scale": [], "docker compose --scale": []}
    try:
        for rnd in range(1, args.rounds + 1):
            for way in ("testbed scale", "docker compose --scale"):
                sh(str(ROOT / "testbed"), "scale", "clone=3")
                loads = [Load(url, 5000) for _ in range(args.clients)]
                for load in loads:
                    load.start()
                time.sleep(1)
                scale_down(way, cfg)
                time.sleep(1)
                for load in loads:
                    load.stop.set()
                for load in loads:
                    load.join(60)
                ok, failed = sum(x.ok for x in loads), sum(x.failed for x in loads)
                figures[way].append({"ok": ok, "failed": failed,
                                     "first_failures": [f for x in loads for f in x.failures][:3]})
                print(f"round {rnd}/{args.rounds} {way:24s} ok {ok:6d}  failed {failed}", flush=True)
    finally:
        (out / "figures.json").write_text(json.dumps(figures, indent=1))
        print(f"figures: {out / 'figures.json'}")
    for way in ("testbed scale", "docker compose --scale"):
        rows = figures[way]
        print(f"{way:24s} failed {sum(r['failed'] for r in rows)} of "
              f"{sum(r['ok'] + r['failed'] for r in rows)} requests in {len(rows)} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
