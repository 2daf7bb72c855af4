"""The time an experiment has left, re-estimated as its phases end (the progress line's
"≈ N min left").

What a run will take is the sum of its parts, each from what this experiment has measured so far
(the ledger's rows of its finished runs) and, before anything is measured, from the plan:
    restart          median reconfiguration of the runs that changed the stack (else the planned
                     restart); a run that keeps the stack: median of those that kept it (else 0)
    priming          median priming of the cold runs that primed (else the plan's: planned_prime);
                     only a cold run primes (RunDriver's rule: the first run, a restart, a tier the
                     path reaches for the first time)
    steps            measured seconds per step (all finished runs' measuring / their steps, warm-ups
                     included) × the run's steps (else step_seconds × steps)
    hold             mean measured hold (else hold_seconds)
    load generator   median of the rest of a run (else the planned Locust start and stop)
The run going on: what is left of its current phase (its estimate less the time it has run, never
below 0), its later phases, and half the load-generator part (Locust's stop). Calibration still to
come: its planned seconds less what calibration has taken so far.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from testbed.experiment.definition import RunSpec
from testbed.run.record.threaddumps import tiers_reached


def changed_runs(runs: list[RunSpec]) -> list[bool]:
    """True where a run changes the stack (replicas or knobs) from the run before it."""
    return [i > 0 and (r.tiers != runs[i - 1].tiers or r.stack_knobs() != runs[i - 1].stack_knobs())
            for i, r in enumerate(runs)]


def cold_runs(runs: list[RunSpec], changed: list[bool]) -> list[bool]:
    """True where a run's Java tiers are cold (onerun.RunDriver: then it primes)."""
    warm: set[str] = set()
    out = []
    for i, r in enumerate(runs):
        reached = set(tiers_reached(r.path, r.backend))
        out.append(i == 0 or changed[i] or not reached <= warm)
        warm = (set() if changed[i] else warm) | reached
    return out


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def planned_prime(load) -> float:
    """A prime's length before any was measured: a fixed one's seconds; one by measurement
    (warm = "steady") the earliest it can end — its windows filled and the rule held at two
    window ends — never past its ceiling (then re-estimated from the primes measured)."""
    if not load.steady:
        return load.prime_seconds
    earliest = max(load.warm_min_seconds, (load.warm_windows + 1) * load.warm_window_seconds)
    return min(earliest, load.warm_max_seconds)


@dataclass
class Figures:
    """What the experiment's finished runs measured, part by part."""
    restarts: list[float] = field(default_factory=list)
    kept: list[float] = field(default_factory=list)        # reconfiguration of runs that changed nothing
    primings: list[float] = field(default_factory=list)
    measuring_s: float = 0.0
    steps: int = 0
    holds: list[float] = field(default_factory=list)
    locust: list[float] = field(default_factory=list)

    def add(self, row: dict, changed: bool) -> None:
        """A finished run's ledger row (ledger.split_run); changed: it was to change the stack."""
        (self.restarts if changed else self.kept).append(row["reconfiguration_s"])
        if row["priming_s"] > 0:
            self.primings.append(row["priming_s"])
        if row.get("steps"):
            self.measuring_s += row["measuring_s"]
            self.steps += row["steps"]
        if row["hold_s"] > 0:
            self.holds.append(row["hold_s"])
        self.locust.append(row["locust_s"])


class Eta:
    def __init__(self, runs: list[RunSpec], calibration_s: float, locust_s: float, restart_s: float):
        """calibration_s: the calibration planned; locust_s, restart_s: the planned Locust start
        and stop, and restart, until some are measured."""
        self.loads = [r.load for r in runs]
        self.changed = changed_runs(runs)
        self.cold = cold_runs(runs, self.changed)
        self.calibration_s, self.locust_s, self.restart_s = calibration_s, locust_s, restart_s
        self.fig = Figures()

    def ran(self, i: int, row: dict) -> None:
        """Run i ended: its ledger row joins the measured figures."""
        self.fig.add(row, self.changed[i])

    def parts(self, i: int) -> dict[str, float]:
        """Run i's expected seconds, part by part (the module docstring)."""
        f, load = self.fig, self.loads[i]
        if self.changed[i]:
            restart = _median(f.restarts) if f.restarts else self.restart_s
        else:
            restart = _median(f.kept) or 0.0
        primes = self.cold[i] and load.prime_ceiling() > 0
        return {"restart": restart,
                "prime": (_median(f.primings) or planned_prime(load)) if primes else 0.0,
                "step": f.measuring_s / f.steps if f.steps else load.step_seconds,
                "steps": len(load.users),
                "hold": (statistics.mean(f.holds) if f.holds else load.hold_seconds) if load.hold_seconds > 0 else 0.0,
                "locust": _median(f.locust) if f.locust else self.locust_s}

    def run_s(self, i: int) -> float:
        p = self.parts(i)
        return p["restart"] + p["prime"] + p["step"] * p["steps"] + p["hold"] + p["locust"]

    def current_left(self, i: int, steps: list[dict], phases: list[dict], now: float) -> float:
        """What is left of run i, which has logged these steps and phases (results.read_step_log)."""
        p = self.parts(i)
        if not steps and not phases:
            return self.run_s(i) - p["restart"]             # Locust not started yet: its restart is done
        tail = p["locust"] / 2
        phase = {x["phase"]: x for x in phases}

        def rest_of(start, estimate: float, longest: float | None = None) -> float:
            """What is left of a phase estimated at `estimate` s; once it has outlasted that (a
            prime by measurement still warming, a step still narrowing its interval), as long
            again as it has lasted, never past its longest."""
            elapsed = now - start
            if elapsed < estimate or longest is None:
                return max(0.0, estimate - elapsed)
            return max(0.0, min(longest - elapsed, elapsed))

        hold = phase.get("hold")
        if hold:
            return (0.0 if hold.get("end") else rest_of(hold["start"], p["hold"])) + tail
        later_hold = p["hold"]
        if steps:
            cur = steps[-1]
            done = cur.get("end") is not None
            this = 0.0 if done else rest_of(cur["start"], p["step"], self.loads[i].step_seconds)
            later = max(0, p["steps"] - len(steps)) * p["step"]
            return this + later + later_hold + tail
        prime = phase.get("prime")        # it primes after all (a tier was cold that the plan thought warm)
        prime_s = p["prime"] or _median(self.fig.primings) or planned_prime(self.loads[i])
        this = (rest_of(prime["start"], prime_s, self.loads[i].prime_ceiling())
                if prime and not prime.get("end") else 0.0)
        return this + p["steps"] * p["step"] + later_hold + tail

    def left(self, nxt: int, calibration_spent: float, current: tuple | None = None) -> float:
        """Seconds left: runs nxt.. to come (current = (i, steps, phases, now): run i is going
        on, the runs after it to come), and calibration still to come."""
        total = max(0.0, self.calibration_s - calibration_spent)
        if current is not None:
            i = current[0]
            total += self.current_left(*current)
            nxt = i + 1
        return total + sum(self.run_s(j) for j in range(nxt, len(self.loads)))
