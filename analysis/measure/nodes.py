"""CPU per node of a cluster (a stack on `./testbed cluster up`'s nodes): at each run's
max-throughput step, every node's CPU — its whole cgroup, every process on it (cpu.csv tier
"node") — beside its CPU quota and the replicas it ran (run.json notes.stack: replica -> node).

Method: the node's CPU is the mean of its samples over the step's measurement window, like a
tier's; utilisation = CPU / (100 × the node's quota in cores, or this host's cores without one).
The node rows are empty off a cluster; the report's "CPU per node" section
(analysis/render/templates/experiment.html.j2, block nodes) shows them.
"""
from __future__ import annotations

import re


def placement(run_meta: dict) -> dict[str, list[str]]:
    """node -> the replicas (tier-replica) it ran at the start of the run."""
    out: dict[str, list[str]] = {}
    for name, r in sorted(((run_meta.get("notes") or {}).get("stack") or {}).items()):
        if isinstance(r, dict) and r.get("node"):
            out.setdefault(r["node"], []).append(name)
    return out


def rows(runs, steps_by_run: dict, maxima: dict, experiment: dict) -> list[dict]:
    """One row per run and node (runs: analysis.load.folder RunResult-like, with .id and .meta)."""
    cluster = ((experiment.get("stack") or {}).get("cluster") or {}).get("nodes") or {}
    host = float((experiment.get("host") or {}).get("cores") or 1)
    out = []
    for run in runs:
        m = maxima.get(run.id)
        at = next((s for s in steps_by_run.get(run.id, []) if m and s.index == m.step), None)
        if at is None or not at.nodes:
            continue
        placed = placement(run.meta)
        for node in sorted(at.nodes, key=_natural):
            cpus = (cluster.get(node) or {}).get("cpus")
            cpu = at.nodes[node]
            out.append({"run_id": run.id, "node": node, "role": (cluster.get(node) or {}).get("role"),
                        "cpus": cpus, "replicas": placed.get(node, []), "cpu_percent": cpu,
                        "utilisation": cpu / (100 * float(cpus or host)), "step": at.index, "users": at.users})
    return out


def _natural(name: str):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", name)]
