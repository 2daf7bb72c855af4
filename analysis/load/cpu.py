"""cpu.csv: CPU samples per process, and their means over a time window.

Columns: timestamp (epoch s), tier, replica, pid, cpu_percent (100 = one core busy over the
interval since the previous sample of that process). Tier "host" is the whole machine
(up to 100 x cores). Tier "node" (on a cluster made by `./testbed cluster up`) is a whole
cluster node, replica its name: the node container's cgroup, every process on the node. Tier
"kernel" (container modes) is the host's softirq time: the kernel's packet work on the bridge,
charged to no container, counted as the stack's own (analysis/judge/regime.py). A cut last line is
dropped.
"""
from __future__ import annotations

import csv
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

CPU_FILE = "cpu.csv"
TIMESTAMP, TIER, REPLICA, PID, CPU_PERCENT = "timestamp", "tier", "replica", "pid", "cpu_percent"
COLUMNS = (TIMESTAMP, TIER, REPLICA, PID, CPU_PERCENT)

STACK_TIERS = ("front", "clone", "axis", "gsoap", "own", "haproxy")   # own: your service, when its pid is given
TIERS = STACK_TIERS + ("loadgen", "host")
HOST, LOADGEN, NODE, KERNEL = "host", "loadgen", "node", "kernel"


@dataclass(frozen=True)
class Sample:
    timestamp: float
    tier: str
    replica: str
    pid: str
    cpu_percent: float


@dataclass
class CpuSamples:
    samples: list[Sample]
    dropped_rows: int = 0


def parse(lines) -> CpuSamples:
    """Parse cpu.csv content; rows that do not parse are counted in dropped_rows."""
    reader = csv.DictReader(lines)
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{CPU_FILE}: missing column(s) {', '.join(missing)}")
    out = CpuSamples(samples=[])
    for raw in reader:
        try:
            if None in raw or any(raw.get(c) is None for c in COLUMNS):
                raise ValueError("cut row")
            value, ts = float(raw[CPU_PERCENT]), float(raw[TIMESTAMP])
            if not (math.isfinite(value) and math.isfinite(ts)) or not raw[TIER]:
                raise ValueError("bad number")
        except ValueError:
            out.dropped_rows += 1
            continue
        out.samples.append(Sample(ts, raw[TIER], raw[REPLICA] or "1", raw[PID] or "", value))
    return out


def read(path: Path) -> CpuSamples:
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return parse(f)


@dataclass(frozen=True)
class WindowCpu:
    """CPU over one window. Values are % of one core; None where a tier had no sample."""

    replicas: dict[tuple[str, str], float]   # (tier, replica) -> mean over the window
    samples: int

    def tier_total(self, tier: str) -> float | None:
        """Sum over the tier's replicas of each replica's mean."""
        values = [v for (t, _), v in self.replicas.items() if t == tier]
        return sum(values) if values else None

    def tier_max_replica(self, tier: str) -> float | None:
        values = [v for (t, _), v in self.replicas.items() if t == tier]
        return max(values) if values else None

    def tier_replicas(self, tier: str) -> dict[str, float]:
        return {r: v for (t, r), v in self.replicas.items() if t == tier}


def window(samples: list[Sample], start: float, end: float) -> WindowCpu:
    """Mean cpu_percent per (tier, replica) over samples with start <= timestamp <= end."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(list)
    n = 0
    for s in samples:
        if start <= s.timestamp <= end:
            sums[(s.tier, s.replica)].append(s.cpu_percent)
            n += 1
    return WindowCpu({k: sum(v) / len(v) for k, v in sums.items()}, n)
