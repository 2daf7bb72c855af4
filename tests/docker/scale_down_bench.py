"""Scale-down under load, measured side by side on a running compose stack (or Swarm stack):
each tier 3 -> 1 with plain `docker compose up --scale`, with `./testbed scale`, or with
`docker service scale`, while C closed-loop clients send requests through that tier.

    ./testbed up --docker --no-locust
    .venv/bin/python tests/docker/scale_down_bench.py [--rounds 6] [--clients 4]
        [--tiers clone,front,axis,gsoap] [--ways compose,testbed]
    ./testbed down
    # Swarm (a stack deployed as docs/docker.md says, named testbed):
    .venv/bin/python tests/docker/scale_down_bench.py --ways swarm

The ways alternate within each round (scaledown.py says what each does). Figures (requests
ok/failed per round, tier and way, the first failure texts) go to
results/scale-down-<time>/figures.json. A benchmark, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "cli"))
sys.path.insert(0, str(HERE))

from check_stack import PORT_KNOBS, Stack  # noqa: E402
from scaledown import TIER_PATHS, WAYS, scale_down_round  # noqa: E402
from testbed.config import StackConfig  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--tiers", default="clone", help=f"comma-separated, of {', '.join(TIER_PATHS)}")
    ap.add_argument("--ways", default="compose,testbed", help=f"comma-separated, of {', '.join(WAYS)}")
    args = ap.parse_args()
    tiers, ways = args.tiers.split(","), args.ways.split(",")
    bad = [t for t in tiers if t not in TIER_PATHS] + [w for w in ways if w not in WAYS]
    if bad:
        raise SystemExit(f"scale_down_bench: unknown {', '.join(bad)}")
    cfg = StackConfig.load()
    stack = Stack({k: getattr(cfg, k.lower()) for k in PORT_KNOBS})
    out = ROOT / "results" / time.strftime("scale-down-%Y%m%d-%H%M%S")
    out.mkdir(parents=True)
    figures: dict = {"rounds": args.rounds, "clients": args.clients, "results": []}
    try:
        for rnd in range(1, args.rounds + 1):
            for tier in tiers:
                for way in ways:
                    r = scale_down_round(stack, tier, way, args.clients)
                    figures["results"].append({"round": rnd, **r})
                    print(f"round {rnd}/{args.rounds} {tier:6s} {way:8s} ok {r['ok']:6d}  failed {r['failed']}",
                          flush=True)
    finally:
        (out / "figures.json").write_text(json.dumps(figures, indent=1))
        print(f"figures: {out / 'figures.json'}")
    for tier in tiers:
        for way in ways:
            rows = [r for r in figures["results"] if r["tier"] == tier and r["way"] == way]
            print(f"{tier:6s} {way:8s} failed {sum(r['failed'] for r in rows)} of "
                  f"{sum(r['ok'] + r['failed'] for r in rows)} requests in {len(rows)} rounds "
                  f"(per round: {', '.join(str(r['failed']) for r in rows)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
