"""Bottleneck hint for one run, from its steps at the plateau, and its thread dumps.

Rule (stated in the report):
1. plateau: the knee is the first valid step reaching max·(1 − tolerance); the run plateaued if
   at least one valid step with more users follows the knee (more users bought no throughput).
   Without a plateau there is no bottleneck to name: the load did not reach it.
2. at the plateau step with the least host CPU (the max-throughput step when the run did not
   plateau; plateau steps: valid, from the knee on, within the tolerance of the max — on a
   shared machine other programs' load comes and goes, and a plateau that held while the host
   had CPU to spare was not made by the host), utilisation = CPU / capacity, for the host
   (capacity = host cores), for each tier (capacity = cpu quota × replicas when quotas are set,
   else on a cluster the CPU quotas of the nodes it runs on, else the cores the stack is pinned
   to, else host cores), when the stack is pinned for the stack as a whole, and on a cluster for
   each node (its own CPU quota, else host cores).
3. plateau with host, every tier and every node below utilisation_threshold (default 80 %) ⇒
   "software/lock bottleneck (CPU idle)"; otherwise the most utilised saturated tier is named,
   with the node it runs on, or else the saturated node with the tiers on it (the host counts
   only when the stack is not pinned: pinned, the stack's cores decide).
A thread dump, when present, adds the count of BLOCKED threads and the monitor class they wait on.
Steps 2-3 are judge(), which the Locust web UI's Testbed tab also applies to the running load
(cli/testbed/live/view.py: its waits come from the client tier's lock gauge, not a thread dump).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from analysis.load import threaddump
from analysis.load.cpu import LOADGEN, STACK_TIERS
from analysis.load.folder import cpu_list
from analysis.steps import StepSample

SOFTWARE, CPU, RISING, UNKNOWN = "software", "cpu", "rising", "unknown"


@dataclass
class Hint:
    kind: str                      # software | cpu | rising | unknown
    text: str
    plateaued: bool = False
    step: int | None = None        # the step the CPU was read at (see the module rule, 2.)
    host_utilisation: float | None = None
    utilisation: dict[str, float] = field(default_factory=dict)   # tier -> fraction of capacity
    saturated: list[str] = field(default_factory=list)
    threaddumps: list[dict] = field(default_factory=list)
    nodes: dict[str, float] = field(default_factory=dict)     # cluster node -> fraction of its capacity

    def to_json(self) -> dict:
        return {"kind": self.kind, "text": self.text, "plateaued": self.plateaued,
                "step": self.step, "host_utilisation": self.host_utilisation,
                "utilisation": self.utilisation, "saturated": self.saturated,
                "threaddumps": self.threaddumps, "nodes": self.nodes}


@dataclass(frozen=True)
class Capacities:
    """Cores available to each tier (see the module rule)."""

    host_cores: float
    stack_cores: float | None = None        # set when the stack is pinned (cpu_affinity.stack)
    loadgen_cores: float | None = None
    quotas: dict[str, float] = field(default_factory=dict)   # tier -> cores per replica
    node_cpus: dict[str, float | None] = field(default_factory=dict)   # cluster node -> its CPU quota
    tier_nodes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # tier -> nodes its replicas ran on

    @classmethod
    def from_experiment(cls, experiment: dict) -> "Capacities":
        host = float((experiment.get("host") or {}).get("cores") or 1)
        aff = experiment.get("cpu_affinity") or {}
        stack = float(len(cpu_list(str(aff["stack"])))) if aff.get("stack") else None
        loadgen = float(len(cpu_list(str(aff["loadgen"])))) if aff.get("loadgen") else None
        quotas = {k: float(v) for k, v in (experiment.get("cpu_quotas") or {}).items() if v}
        cluster = ((experiment.get("stack") or {}).get("cluster") or {}).get("nodes") or {}
        return cls(host, stack, loadgen, quotas, {n: (v or {}).get("cpus") for n, v in cluster.items()})

    def for_run(self, run_meta: dict) -> "Capacities":
        """With the run's own quotas when it recorded them (docker mode records them per run:
        an experiment's tiers_cpus may change them from run to run), and on a cluster the nodes
        each tier ran on (run.json notes.stack: replica -> node)."""
        notes = run_meta.get("notes") or {}
        out = self
        if "cpu_quotas" in notes:
            out = replace(out, quotas={k: float(v) for k, v in (notes.get("cpu_quotas") or {}).items() if v})
        placed: dict[str, set[str]] = {}
        for name, r in (notes.get("stack") or {}).items():
            if isinstance(r, dict) and r.get("node"):
                placed.setdefault(name.rsplit("-", 1)[0], set()).add(r["node"])
        return replace(out, tier_nodes={t: tuple(sorted(n)) for t, n in placed.items()}) if placed else out

    def node_cores(self, node: str) -> float:
        return float(self.node_cpus.get(node) or self.host_cores)

    def where(self, tier: str) -> str:
        """' on node-3' (or ' on node-3, node-4'), '' off a cluster."""
        nodes = self.tier_nodes.get(tier)
        return f" on {', '.join(nodes)}" if nodes else ""

    def tier_cores(self, tier: str, replicas: int) -> float:
        if tier in self.quotas:
            return self.quotas[tier] * max(replicas, 1)
        nodes = self.tier_nodes.get(tier)
        if nodes and all(self.node_cpus.get(n) for n in nodes):
            return sum(float(self.node_cpus[n]) for n in nodes)
        if tier == LOADGEN:
            return self.loadgen_cores or self.host_cores
        if tier in STACK_TIERS and self.stack_cores:
            return self.stack_cores
        return self.host_cores


def plateau(steps: list[StepSample], tolerance: float) -> tuple[bool, StepSample | None]:
    """(plateaued, knee step) over the valid steps, ordered by users."""
    valid = sorted((s for s in steps if s.valid), key=lambda s: (s.users, s.index))
    if not valid:
        return False, None
    best = max(s.throughput for s in valid)
    knee = next(s for s in valid if s.throughput >= best * (1 - tolerance))
    return any(s.users > knee.users for s in valid), knee


def dump_waits(dumps: dict[tuple[str, str], str] | None) -> list[dict]:
    """Thread dumps ((tier, replica) -> jstack text) as the waits judge() names."""
    out = []
    for (tier, replica), text in sorted((dumps or {}).items()):
        d = threaddump.parse(text)
        out.append({"tier": tier, "replica": replica, **d.to_json(), "source": "thread dump",
                    "sentence": threaddump.summary_sentence(d)})
    return out


def utilisation(sample: StepSample, caps: Capacities) -> tuple[float | None, dict[str, float]]:
    """(host, tier -> utilisation) of one sample: CPU / capacity (the module rule, 2)."""
    host = sample.host_cpu / (100 * caps.host_cores) if sample.host_cpu is not None else None
    tiers = {tier: value / (100 * caps.tier_cores(tier, sample.replicas.get(tier, 1)))
             for tier, value in sample.cpu.items()}
    if caps.stack_cores:
        stack = [v for t, v in sample.cpu.items() if t in STACK_TIERS]
        if stack:
            tiers["stack"] = sum(stack) / (100 * caps.stack_cores)
    return host, tiers


def judge(sample: StepSample, caps: Capacities, where: str, threshold: float = 0.8,
          waits: list[dict] | None = None, plateaued: bool = True) -> Hint:
    """CPU-bound or software/lock-bound at one sample (the module rule, 2-3). where: what the
    text says of the throughput ("plateau at 42/s from 8 users"); waits: entries with tier,
    replica, blocked (threads waiting) and sentence, from thread dumps or a lock gauge."""
    waits = list(waits or [])
    h = Hint(UNKNOWN, "", plateaued, sample.index, threaddumps=waits)
    h.host_utilisation, h.utilisation = utilisation(sample, caps)
    h.nodes = {n: v / (100 * caps.node_cores(n)) for n, v in sample.nodes.items()}
    if h.host_utilisation is None and not h.utilisation and not h.nodes:
        h.text = f"{where}, but no CPU samples: cannot tell a CPU from a software bottleneck"
        return h
    h.saturated = sorted((t for t, u in h.utilisation.items() if u >= threshold and t != LOADGEN),
                         key=lambda t: -h.utilisation[t])
    # with the stack pinned apart from the load generator, the stack's cores are what counts
    host_hot = (h.host_utilisation is not None and h.host_utilisation >= threshold
                and not caps.stack_cores)
    hot_nodes = sorted((n for n, u in h.nodes.items() if u >= threshold), key=lambda n: -h.nodes[n])
    if not h.saturated and not host_hot and not hot_nodes:
        h.kind = SOFTWARE
        host = f"host CPU {h.host_utilisation:.0%}" if h.host_utilisation is not None else "host CPU n/a"
        busy = max((t for t in h.utilisation if t in STACK_TIERS), key=lambda t: h.utilisation[t], default=None)
        busiest = (f" (busiest: {busy} ×{sample.replicas.get(busy, 1)} at {h.utilisation[busy]:.0%})"
                   if busy else "")
        h.text = (f"software/lock bottleneck (CPU idle): {where} while {host} of capacity and no "
                  f"tier{' or node' if h.nodes else ''} above {threshold:.0%}{busiest}")
    else:
        h.kind = CPU
        if h.saturated:
            t = h.saturated[0]
            what = (f"the stack's {caps.stack_cores:g} pinned core(s) (all its tiers together)"
                    if t == "stack" else f"tier {t}{caps.where(t)}")
            h.text = f"CPU-bound: {where}; {what} at {h.utilisation[t]:.0%} of capacity"
        elif hot_nodes:
            n = hot_nodes[0]
            on = sorted(t for t, ns in caps.tier_nodes.items() if n in ns)
            h.text = (f"CPU-bound: {where}; node {n} ({', '.join(on) or 'no tier'}) at {h.nodes[n]:.0%} of "
                      f"its {caps.node_cores(n):g} CPU")
        else:
            h.text = (f"CPU-bound: {where}; host at {h.host_utilisation:.0%} of its cores, no "
                      "single tier above the threshold: the tiers and the load generator share "
                      "the CPU (pin them apart to tell which)")
    blocked = [d for d in waits if d["blocked"]]
    if blocked:
        h.text += "; " + "; ".join(f"{d.get('source', 'thread dump')} {d['tier']}-{d['replica']}: {d['sentence']}"
                                   for d in blocked)
    return h


def hint(steps: list[StepSample], caps: Capacities, tolerance: float = 0.03,
         threshold: float = 0.8, dumps: dict[tuple[str, str], str] | None = None,
         waits: list[dict] | None = None) -> Hint:
    """Bottleneck hint for one run (see the module rule). dumps: (tier, replica) -> jstack text;
    waits: further entries for judge() (a lock gauge read live)."""
    dump_info = dump_waits(dumps) + list(waits or [])
    valid = [s for s in steps if s.valid]
    if not valid:
        return Hint(UNKNOWN, "no valid step: nothing to diagnose", threaddumps=dump_info)
    plateaued, knee = plateau(steps, tolerance)
    top = best = max(valid, key=lambda s: (s.throughput, -s.users))
    if plateaued:       # CPU read at the plateau step with the least host CPU: a plateau that held
        level = [s for s in valid if s.users >= knee.users and s.throughput >= best.throughput * (1 - tolerance)
                 and s.host_cpu is not None]     # while other programs paused was not the host's
        if level:
            top = min(level, key=lambda s: (s.host_cpu, -s.throughput))
    where = f"plateau at {best.throughput:.4g}/s from {knee.users} users" + (
        f" (CPU read at {top.users} users, the plateau step with the least host CPU)" if top is not best else "")
    h = judge(top, caps, where, threshold, dump_info, plateaued)
    if not plateaued:
        h.kind, h.saturated = RISING, []
        h.text = (f"no plateau: throughput still rising at {top.users} users (the last valid step"
                  f" reaching {top.throughput:.4g}/s); add steps with more users")
    return h


def read_dumps(paths: dict[tuple[str, str], Path]) -> dict[tuple[str, str], str]:
    return {k: p.read_text(encoding="utf-8", errors="replace") for k, p in paths.items()}
