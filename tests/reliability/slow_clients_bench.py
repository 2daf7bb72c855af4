"""Normal traffic's latency while hundreds of slow clients hold connections, beside a baseline,
measured on a running stack (a benchmark: it asserts nothing).

    ./testbed up --no-locust
    .venv/bin/python tests/reliability/slow_clients_bench.py [--slow 500] [--requests 300] [--rounds 3]

Each round: R sequential GET /seg/2 through HAProxy (baseline), then the same while S slow
connections (half trickling headers, half a body, a byte every 0.5 s, to the web and soap
entries) are open; p50/p95 of both, and how the slow ones ended (408 and when). Rounds
alternate so drift spreads over both. Figures: results/slow-clients-<time>/figures.json.
Only 127.0.0.1 is contacted; everything is bounded in connections and seconds.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "cli"))
sys.path.insert(0, str(HERE))

from slowclient import slow_connection  # noqa: E402
from testbed.config import StackConfig  # noqa: E402


def latencies(url: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        with urllib.request.urlopen(url, timeout=10) as r:
            r.read()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def p95(xs: list[float]) -> float:
    return sorted(xs)[int(0.95 * (len(xs) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slow", type=int, default=500, help="slow connections (default 500)")
    ap.add_argument("--requests", type=int, default=300, help="normal requests per measurement")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    cfg = StackConfig.load()
    url = f"http://{cfg.client_host}:{cfg.web_port}/seg/2"
    latencies(url, 50)                                  # warm the JSP path first
    figures: dict = {"slow": args.slow, "requests": args.requests, "rounds": []}
    for rnd in range(1, args.rounds + 1):
        base = latencies(url, args.requests)
        results: list = []
        ports = (cfg.web_port, cfg.soap_port)
        threads = [threading.Thread(target=slow_connection, args=(ports[i % 2], i % 4 >= 2, results, 25.0))
                   for i in range(args.slow)]
        for t in threads:
            t.start()
        time.sleep(1)
        under = latencies(url, args.requests)
        for t in threads:
            t.join(40)
        row = {"round": rnd, "baseline_p50_ms": statistics.median(base), "baseline_p95_ms": p95(base),
               "under_p50_ms": statistics.median(under), "under_p95_ms": p95(under),
               "slow_outcomes": dict(Counter(r[0] for r in results)),
               "slow_cut_after_s_max": max((r[1] for r in results), default=None)}
        row["p95_ratio"] = row["under_p95_ms"] / row["baseline_p95_ms"]
        figures["rounds"].append(row)
        print(f"round {rnd}: p95 {row['baseline_p95_ms']:.1f} ms -> {row['under_p95_ms']:.1f} ms "
              f"(×{row['p95_ratio']:.2f}); slow connections: {row['slow_outcomes']}, cut within "
              f"{row['slow_cut_after_s_max']} s", flush=True)
    ratios = [r["p95_ratio"] for r in figures["rounds"]]
    figures["median_p95_ratio"] = statistics.median(ratios)
    out = ROOT / "results" / time.strftime("slow-clients-%Y%m%d-%H%M%S")
    out.mkdir(parents=True)
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    print(f"median p95 ratio under {args.slow} slow connections: {figures['median_p95_ratio']:.2f} "
          f"({len(ratios)} rounds); figures: {out / 'figures.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
