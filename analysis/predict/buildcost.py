"""A client per request from the baseline and the client-build probe (docs/predict.md).

A per-request client builds its client on every call — WSDL fetched through HAProxy from the
service, parsed, the stub created — which a singleton baseline never does. The runner measures
that build on the baseline's stack before any held-out run (testbed/run/buildprobe.py:
build_probe.json, each tier's CPU per build with its idle rate taken off, and the median
build's wall time). The model of a per-request configuration is then the baseline's: all of
its CPU outside any lock (there is none), plus each tier's CPU per build, and the build's wall
time not spent on that CPU as a delay.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from analysis.predict.calibrate import Calibrated
from analysis.predict.demands import SERVICES, Demands

FILE = "build_probe.json"


@dataclass(frozen=True)
class BuildCost:
    backend: str
    cpu: dict[str, float]          # tier (front, clone, haproxy, axis, gsoap, loadgen, unattributed) -> s per build
    wall_s: float                  # the median build's wall time
    builds: int

    def off_cpu(self, backend: str) -> float:
        """The build's wall time not spent on the CPU it was measured to use (≥ 0)."""
        return max(self.wall_s - sum(v for t, v in self.cpu.items() if t not in SERVICES or t == backend), 0.0)

    def to_json(self) -> dict:
        return {"backend": self.backend, "cpu_s_per_build": self.cpu, "build_s_median": self.wall_s,
                "builds": self.builds}


def read(folder: Path) -> tuple[BuildCost | None, str | None]:
    """(the probe's figures, None) or (None, why there are none)."""
    path = Path(folder) / FILE
    if not path.exists():
        return None, f"no {FILE} (the runner probes the client build only when a per-request run is planned)"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        return None, f"{FILE} unreadable: {e}"
    if data.get("error"):
        return None, f"the client-build probe failed: {data['error']}"
    cpu = data.get("cpu_s_per_build")
    built = int((data.get("probe") or {}).get("built") or 0)
    if not isinstance(cpu, dict) or not built:
        return None, f"{FILE} has no CPU per build"
    return BuildCost(str(data.get("backend") or "axis"), {str(k): float(v) for k, v in cpu.items()},
                     float(data.get("build_s_median") or 0.0), built), None


def usable(cost: BuildCost | None, d: Demands) -> bool:
    """A probe of the calls the baseline made (a probe of the other backend says nothing of them)."""
    return cost is not None and cost.backend == d.backend


def request_calibration(cal: Calibrated, cost: BuildCost, d: Demands) -> Calibrated:
    """The baseline's calibration with every CPU outside the lock plus the build's, per pool,
    and the build's off-CPU time added to the latency (a per-request model has no lock)."""
    first = next(iter(d.pools))
    outside = {p: cal.outside.get(p, 0.0) + cal.inside.get(p, 0.0) for p in d.pools}
    for tier, s in cost.cpu.items():
        if tier in SERVICES and tier != d.backend:
            continue                   # the other backend was idle: its figure is noise
        p = d.tier_pool.get(tier, first)
        outside[p] = outside.get(p, 0.0) + s
    return replace(cal, outside=outside, inside={}, inside_fixed={},
                   residual=max(cal.residual, 0.0) + cost.off_cpu(d.backend))
