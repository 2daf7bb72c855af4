"""CPU per node of a cluster (a stack on `./testbed cluster up`'s nodes): at each run's
max-throughput step, every node's CPU — its whole cgroup, every process on it (cpu.csv tier
"node") — beside its CPU quota and the replicas it ran (run.json notes.stack: replica -> node).

Method: the node's CPU is the mean of its samples over the step's measurement window, like a
tier's; utilisation = CPU / (100 × the node's quota in cores, or this host's cores without one).
The node rows are empty off a cluster.
"""
from __future__ import annotations

import re

from analysis import html as h


def placement(run_meta: dict) -> dict[str, list[str]]:
    """node -> the replicas (tier-replica) it ran at the start of the run."""
    out: dict[str, list[str]] = {}
    for name, r in sorted(((run_meta.get("notes") or {}).get("stack") or {}).items()):
        if isinstance(r, dict) and r.get("node"):
            out.setdefault(r["node"], []).append(name)
    return out


def rows(runs, steps_by_run: dict, maxima: dict, experiment: dict) -> list[dict]:
    """One row per run and node (runs: analysis.folder RunResult-like, with .id and .meta)."""
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


def html_table(node_rows: list[dict]) -> str:
    return h.table("nodes", ["run", "node", "role", "CPU quota (cores)", "replicas on it",
                             "CPU at the max step (% of a core)", "of its capacity"], [
        [h.esc(r["run_id"]), h.esc(r["node"]), h.esc(r.get("role") or ""),
         "#" + h.num(r["cpus"]) if r["cpus"] else "none", h.esc(", ".join(r["replicas"]) or "—"),
         "#" + h.num(r["cpu_percent"], 3), h.pct(r["utilisation"])] for r in node_rows],
        "no node samples (not a cluster)") + (
        "<p>A node's CPU is its whole cgroup (the tiers on it, its engine, the registry on the manager, "
        "Locust's workers on the load-generator node), over the max-throughput step's window; capacity "
        "is its CPU quota, or this host's cores without one.</p>")


def _natural(name: str):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", name)]
