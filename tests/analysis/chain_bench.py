"""The model's fit to the hand-made folder's baseline with the Markov chain's solver as it was (a
Python loop building every chain on every call: the reference kept in
test_prediction_chain_cache.py) and as it is (the chain's structure cached), side by side:

    .venv/bin/python tests/analysis/chain_bench.py [--rounds 5]

Two fits, as the prediction tests make them (analysis.predict.fit on
tests/analysis/data/predict-handmade): the baseline's own steps (4, 8, 16 users), and those
with three steps of 48, 64 and 96 users added (test_prediction_folder.py's noisy steps).
Each round times each fit with the old solver and the new one, interleaved, the order swapped
every round; the new solver's structure cache is emptied before each of its fits, so that
each pays for its own structures as a fresh `./testbed predict` does. Every pair of fits must
give equal answers (else it stops). Medians and the ratio old / new go to
results/chain-bench-<time>.json. A benchmark, not a test: the times are reported, not judged.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from analysis.load.folder import load  # noqa: E402
from analysis.predict import baseline_demands as dmod, chain  # noqa: E402
from analysis.predict.fit import fit  # noqa: E402
from analysis.steps import run_steps  # noqa: E402
from test_prediction_chain_cache import _reference_solve_chain  # noqa: E402

SOLVERS = {"old": _reference_solve_chain, "new": chain.solve_chain}


def workloads() -> dict[str, object]:
    result = load(HERE / "data" / "predict-handmade")
    d = dmod.measure(result, run_steps(result))
    noisy = [replace(d.steps[0], users=n, lock_wait=n / 100 - 0.010 - 0.030) for n in (48, 64, 96)]
    return {"baseline (4, 8, 16 users)": d, "with 48, 64, 96 users": replace(d, steps=d.steps + noisy)}


def timed_fit(demands, solver: str):
    chain.cache_clear()
    chain.solve_chain = SOLVERS[solver]          # analysis.predict.model calls chain.solve_chain
    try:
        t0 = time.perf_counter()
        fitted = fit(demands)
        return time.perf_counter() - t0, fitted
    finally:
        chain.solve_chain = SOLVERS["new"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    loads = workloads()
    times = {name: {"old": [], "new": []} for name in loads}
    for rnd in range(args.rounds):
        order = ("old", "new") if rnd % 2 == 0 else ("new", "old")
        for name, d in loads.items():
            answers = {}
            for solver in order:
                seconds, answers[solver] = timed_fit(d, solver)
                times[name][solver].append(seconds)
            if answers["old"] != answers["new"]:
                raise SystemExit(f"chain_bench: the fits differ ({name}):\n{answers['old']}\n{answers['new']}")
            print(f"round {rnd + 1}/{args.rounds}  {name:28s} old {times[name]['old'][-1]:7.3f} s"
                  f"  new {times[name]['new'][-1]:7.3f} s", flush=True)
    figures = {"rounds": args.rounds, "cpus": os.cpu_count(), "load_average_after": os.getloadavg(), "fits": {}}
    for name, t in times.items():
        old, new = statistics.median(t["old"]), statistics.median(t["new"])
        figures["fits"][name] = {"old_s": t["old"], "new_s": t["new"], "old_median_s": old,
                                 "new_median_s": new, "ratio_old_over_new": old / new}
        print(f"{name:28s} median old {old:.3f} s, new {new:.3f} s: {old / new:.2f}x ({args.rounds} runs each)")
    out = ROOT / "results" / time.strftime("chain-bench-%Y%m%d-%H%M%S.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"figures: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
