"""The harness of the overhead benchmarks (monitoring_overhead, tracing_overhead): what one
condition of the stack costs against a reference condition, measured side by side.

Runs come in groups (a round, a cycle within one, a pair) that hold every condition once, in an
order that reverses from one group to the next (alternating), so that a drift within a group --
the JIT's last gains, a neighbour's load -- falls on each condition alike. A condition's figure
is its throughput over the reference's in the same group (ratios_to), never a ratio of two
medians, which would carry the drift between groups. The figure of a set of such ratios grouped
by round (figure): every ratio, each round's median, the median of those, and the mean of every
ratio with its 95 % interval. Fresh JVMs are warmed up before they are measured (warm_stack);
the results are written as overhead.json and overhead.md (write).
"""
from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Callable, Sequence

from testbed.bench.wrk import STACK_WARMUP_MAX_RUNS, warm_up
from testbed.run import results


def alternating(items: Sequence[str], i: int) -> list[str]:
    """The order of group i: the items as given for an even i, reversed for an odd one."""
    return list(items) if i % 2 == 0 else list(items)[::-1]


def warm_stack(url: str, connections: int, seconds: int, say=print, script: Path | None = None) -> bool:
    """Fresh JVMs behind `url` (a path through the whole stack) loaded with wrk runs of `seconds`
    until they stop speeding up (wrk.warm_up's rule, at most STACK_WARMUP_MAX_RUNS runs); True
    when they did. Nothing measured here is a result."""
    w = warm_up([("stack", "web", "seg5", url, script, None)], connections, seconds, say,
                max_runs=STACK_WARMUP_MAX_RUNS)
    return all(t["warm"] for t in w.values())


def ratios_to(rows: list[dict], reference: str, group: Callable[[dict], Any],
              value: str = "rps") -> dict[str, dict[Any, list[float]]]:
    """condition -> {group: [value of each of its runs there / the reference's]}, groups in
    sorted order; a run's group is group(run). The reference's value in a group is the median of
    its runs there (one run, as a rule); a group where it has none (or only 0 or None) gives no
    ratio, nor does a run without a value. The reference's own ratios are 1."""
    by: dict[Any, list[dict]] = {}
    for r in rows:
        by.setdefault(group(r), []).append(r)
    out: dict[str, dict[Any, list[float]]] = {}
    for g in sorted(by):
        ref = [r[value] for r in by[g] if r["condition"] == reference and r[value]]
        if not ref:
            continue
        base = statistics.median(ref)
        for r in by[g]:
            if r[value] is not None:
                out.setdefault(r["condition"], {}).setdefault(g, []).append(r[value] / base)
    return out


def figure(rounds: list[list[float]]) -> dict | None:
    """The figure of a set of ratios, grouped by round: every ratio, each round's median, the
    median of those (the result), and the mean of every ratio with its 95 % interval (Student's
    t; None below two ratios), rounded to 4 places. None without a ratio."""
    from analysis.stats import mean_ci
    rounds = [r for r in rounds if r]
    ratios = [x for r in rounds for x in r]
    if not ratios:
        return None
    medians = [statistics.median(r) for r in rounds]
    ci = mean_ci(ratios)
    return {"ratios": [round(x, 4) for x in ratios],
            "rounds": [round(x, 4) for x in medians],
            "median": round(statistics.median(medians), 4),
            "mean": round(ci[0], 4) if ci else None,
            "ci95": [round(ci[0] - ci[1], 4), round(ci[0] + ci[1], 4)] if ci else None}


def median(values: list) -> float | None:
    """The median of the values that are not None; None when there is none."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def write(folder: Path, data: dict, title: str, intro: str, lines: list[str]) -> str:
    """overhead.json (data) and overhead.md (the title, the intro paragraph and the table of
    `lines`) in `folder`; returns the table."""
    table = "\n".join(lines)
    results.write_json(folder / "overhead.json", data)
    (folder / "overhead.md").write_text(f"# {title}\n\n{intro}\n\n{table}\n")
    return table
