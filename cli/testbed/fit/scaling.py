"""Experiments scaled to the host: the service wait that the singleton lock holds, chosen so that
the experiment's largest lock-bound configuration needs at most a share of the CPU it has.

Why (docs/experiments.md, "The regime"): a singleton client holds its lock for one whole SOAP
call, the remote service's wait W included, so one clone serves at most 1/(W + r) calls a
second (r: the rest of the round trip). The classic finding — the lock caps throughput while
CPU stays idle — shows only where the host still has CPU to spare at that rate times the
number of locks. With W too small for the host, the host's CPU runs out first and the finding
cannot be tested; W is therefore chosen per host, from what one request costs here.

Rule (written to experiment.json "scaling", the terminal and the report):
- a run whose client tier holds L locks (clones × 1 for the singleton, clones × pool size for a
  pool) goes at most X = L / (W + r) requests/s; r ≥ 0 is taken as 0, which errs on the side of
  a larger W;
- at X, a group of processes with CPU cost D per request (CPU-seconds, measured on /seg/5 from
  CPU samples and throughput) needs X·D cores. Groups: the host (every process of the
  experiment; its capacity is the host's cores less what other programs used while the costs
  were measured), each tier with a CPU quota (quota × its replicas in that run), and the
  stack's and the load generator's CPUs when they are pinned apart;
- W ≥ L·D / (share·C) for every such run and group, C the group's capacity; W is the largest
  bound, rounded up to a whole millisecond, within [min_wait_us, max_wait_us];
- a client per request is left out: it is CPU-bound by design (it parses the WSDL on every
  call), so no wait keeps it off the CPU, and a larger W only raises its ratio to the singleton.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from testbed.experiment.scale import ScaleSettings

LOADGEN = "loadgen"
KERNEL = "kernel"             # container modes: softirq, the bridge's packet work (analysis/load/cpu.py)
STACK_TIERS = ("front", "clone", "axis", "gsoap", "haproxy")
MIN_CAPACITY_SHARE = 0.25         # never plan with less than this share of the host's cores


@dataclass(frozen=True)
class Costs:
    """CPU cost of one /seg/5 request per process group, measured on this host.

    per_request_s -- tier -> CPU-seconds per request (front, clone, axis|gsoap, haproxy, loadgen)
    throughput -- requests/s of the steps they were measured at
    background_cores -- cores other programs used meanwhile (host CPU less this experiment's)
    source -- where they were measured, as a person reads it
    """
    per_request_s: dict[str, float]
    throughput: float
    background_cores: float = 0.0
    source: str = ""
    steps: list[int] = field(default_factory=list)

    @property
    def total_s(self) -> float:
        return sum(self.per_request_s.values())

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "Costs":
        return cls({k: float(v) for k, v in d["per_request_s"].items()}, float(d["throughput"]),
                   float(d.get("background_cores") or 0.0), str(d.get("source") or ""),
                   [int(x) for x in d.get("steps") or []])


def costs_from_steps(steps, source: str, min_share_of_max: float = 0.5) -> Costs | None:
    """Costs from a run's measured steps (analysis.steps.StepSample): over the valid steps whose
    throughput is at least min_share_of_max of the best, each tier's CPU divided by throughput
    (sums over those steps, so busier steps weigh more). None when no step qualifies."""
    valid = [s for s in steps if s.valid and s.throughput and s.cpu]
    if not valid:
        return None
    best = max(s.throughput for s in valid)
    used = [s for s in valid if s.throughput >= min_share_of_max * best]
    x = sum(s.throughput for s in used)
    tiers = sorted({t for s in used for t in s.cpu if t in STACK_TIERS + (LOADGEN,)})
    per = {t: sum(s.cpu.get(t, 0.0) for s in used) / 100.0 / x for t in tiers}
    if any(s.kernel_cpu is not None for s in used):     # container modes: the bridge's packet work
        per[KERNEL] = sum(s.kernel_cpu or 0.0 for s in used) / 100.0 / x
    own = [s.own_cpu for s in used]
    hosts = [s.host_cpu for s in used]
    background = 0.0
    if all(h is not None for h in hosts):
        background = max(0.0, sum(h - o for h, o in zip(hosts, own)) / len(used) / 100.0)
    return Costs(per, x / len(used), background, source, [s.index for s in used])


@dataclass(frozen=True)
class LockedRun:
    """A run of the experiment as the rule sees it: how many locks its client tier holds and how
    many replicas each tier has (a quota is per replica)."""
    id: str
    locks: int
    replicas: dict[str, int]
    what: str                      # "4 singleton clones", "a pool of 8 on 1 clone"
    quotas: dict[str, float] = field(default_factory=dict)   # tier -> cores per replica


@dataclass(frozen=True)
class Capacity:
    """The CPU an experiment has: host cores; with STACK_CPUS/LOADGEN_CPUS the pinned CPUs
    (quotas, per run, are the runs' own: LockedRun.quotas)."""
    host_cores: float
    stack_cores: float | None = None
    loadgen_cores: float | None = None


@dataclass(frozen=True)
class Bound:
    run: str
    group: str
    wait_us: float                 # the least wait this run and group allow
    cores_per_call_rate: float     # D of the group (CPU-seconds per request)
    capacity: float                # cores of the group


@dataclass(frozen=True)
class Choice:
    """What the runner chose, why, and from what (experiment.json "scaling")."""
    wait_us: int
    scaled: bool
    reason: str                    # one sentence: "service wait 24 ms because ..."
    rule: str = ""
    costs: Costs | None = None
    capacity: Capacity | None = None
    share: float = 0.6
    bounds: list[Bound] = field(default_factory=list)
    binding: Bound | None = None
    runs: list[str] = field(default_factory=list)     # the runs whose wait was set

    def to_json(self) -> dict:
        return {"wait_us": self.wait_us, "scaled": self.scaled, "reason": self.reason,
                "rule": self.rule, "share": self.share,
                "costs": self.costs.to_json() if self.costs else None,
                "capacity": asdict(self.capacity) if self.capacity else None,
                "bounds": [asdict(b) for b in self.bounds],
                "binding": asdict(self.binding) if self.binding else None, "runs": list(self.runs)}

    def sentence(self) -> str:
        return (f"scaled to this host: service wait {self.wait_us / 1000:g} ms because {self.reason}"
                if self.scaled else f"not scaled: service wait {self.wait_us / 1000:g} ms ({self.reason})")


RULE = ("W = max over the lock-bound runs and CPU groups of L·D/(share·C), rounded up to a whole "
        "ms: L the locks the client tier holds (clones × 1, or × the pool size), D the group's CPU "
        "per /seg/5 request, C its cores (the host's less other programs' use; a quota × its "
        "replicas); the singleton's rate is 1/(W + round trip) ≤ 1/W, so the runs need at most "
        "that share; a client per request is CPU-bound by design and left out")


def _groups(costs: Costs, cap: Capacity, run: LockedRun) -> list[tuple[str, float, float]]:
    """(group, D, C) for one run."""
    per = costs.per_request_s
    host = max(cap.host_cores - costs.background_cores, MIN_CAPACITY_SHARE * cap.host_cores)
    label = "host" if costs.background_cores < 0.05 else \
        f"host ({cap.host_cores:g} less {costs.background_cores:.2f} that other programs used)"
    out = [(label, costs.total_s, host)]
    if cap.stack_cores:
        out.append(("stack CPUs", sum(v for t, v in per.items() if t in STACK_TIERS), cap.stack_cores))
    if cap.loadgen_cores and LOADGEN in per:
        out.append(("load generator CPUs", per[LOADGEN], cap.loadgen_cores))
    for tier, q in sorted(run.quotas.items()):
        if tier in per and q > 0:
            n = max(run.replicas.get(tier, 1), 1)
            out.append((f"{tier} quota ({n} × {q:g} core)", per[tier], q * n))
    return out


def choose_wait(costs: Costs, cap: Capacity, runs: list[LockedRun], settings: ScaleSettings
                ) -> Choice:
    """The service wait for this host (see the module rule)."""
    bounds = []
    for run in runs:
        for group, d, c in _groups(costs, cap, run):
            if d > 0 and c > 0:
                bounds.append(Bound(run.id, group, run.locks * d / (settings.share * c) * 1e6, d, c))
    if not bounds:
        return Choice(settings.unscaled_wait_us, False, "no lock-bound run or no measured cost",
                      RULE, costs, cap, settings.share)
    binding = max(bounds, key=lambda b: b.wait_us)
    wait = int(math.ceil(binding.wait_us / 1000.0 - 1e-9)) * 1000
    clamped = ""
    if wait < settings.min_wait_us:
        wait, clamped = settings.min_wait_us, f"; raised to scale.min_wait_us {settings.min_wait_us / 1000:g} ms"
    elif wait > settings.max_wait_us:
        wait, clamped = settings.max_wait_us, (f"; held at scale.max_wait_us {settings.max_wait_us / 1000:g} ms "
                                               "(the host is too busy or too small for the largest run)")
    run = next(r for r in runs if r.id == binding.run)
    need = run.locks / (wait / 1e6) * binding.cores_per_call_rate
    reason = (f"{run.what} ({run.locks} call{'s' if run.locks > 1 else ''} at once) would need at most "
              f"{need:.2f} of the {binding.capacity:.2f} cores of the {binding.group} "
              f"({need / binding.capacity:.0%} ≤ {settings.share:.0%}), at "
              f"{binding.cores_per_call_rate * 1e3:.2f} ms of CPU per request measured on "
              f"{costs.source}" + clamped)
    return Choice(wait, True, reason, RULE, costs, cap, settings.share, bounds, binding)


def unscaled(settings: ScaleSettings, why: str) -> Choice:
    return Choice(settings.unscaled_wait_us, False, why, RULE, share=settings.share)


# ------------------------------------------------------------------------------ runs
# (the rule's input; the chosen wait goes into the runs by fit/rewrite.py's with_wait)
def locked_runs(specs) -> list[LockedRun]:
    """The runs the rule bounds (RunSpec list): those whose wait is "auto", except a client per
    request (CPU-bound by design)."""
    out = []
    for s in specs:
        if not s.auto_wait or s.client_mode == "request":
            continue
        clones = max(int(s.tiers.get("clone", 1)), 1)
        if s.client_mode == "pool":
            size = int(s.pool_size or 1)
            locks, what = clones * size, f"a pool of {size} on {clones} clone{'s' if clones > 1 else ''}"
        else:
            locks = clones
            what = "the singleton on 1 clone" if clones == 1 else f"{clones} singleton clones"
        quotas = {k[5:].lower(): float(v) for k, v in s.knobs.items() if k.startswith("CPUS_") and float(v) > 0}
        out.append(LockedRun(s.id, locks, dict(s.tiers), what, quotas))
    return out

