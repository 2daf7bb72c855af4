"""What a fault is: an action (kill, pause, slow) on one replica of a tier, or on a whole node of a
cluster, at a time offset and for a while; parsed from the `fault` verb's arguments or from an
experiment's [[faults]] tables, every value checked where it enters (FaultError names the fix).
What each action does is in faults/injector.py."""
from __future__ import annotations

import re
from dataclasses import dataclass

ACTIONS = ("kill", "pause", "slow")
TARGET = re.compile(r"^(?P<tier>front|clone|axis|gsoap)(?:#(?P<replica>\d+))?$")
NODE_TARGET = re.compile(r"^(?:node:(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)|(?P<node>node-\d+))$")
KEYS = ("action", "target", "at", "for", "speed", "run")


class FaultError(ValueError):
    """A fault that cannot be done as asked; the text names the fix."""


@dataclass(frozen=True)
class Fault:
    action: str                 # kill | pause | slow
    tier: str
    replica: int | None         # None: the tier's highest-numbered replica
    at: float = 0.0             # seconds after the start (of the run, or of the command)
    duration: float | None = None   # seconds; None: kill stays killed, pause/slow 10 s
    speed: float = 0.2          # slow: the share of time the replica still runs
    run: str = "*"              # experiments: the run (entry id) it applies to, * = every run
    node: str | None = None     # a node fault (tier "node"): the node's hostname

    @property
    def target(self) -> str:
        if self.node:
            return self.node
        return self.tier + (f"#{self.replica}" if self.replica is not None else "")

    def describe(self) -> str:
        d = f" for {self.duration:g} s" if self.duration is not None else ""
        return f"{self.action} {self.target} at +{self.at:g} s{d}" + (
            f" (runs {self.speed:.0%} of the time)" if self.action == "slow" else "")


def parse(action: str, target: str, at: float = 0.0, duration: float | None = None, speed: float = 0.2,
          run: str = "*") -> Fault:
    if action not in ACTIONS:
        raise FaultError(f"fault {action!r}: one of {', '.join(ACTIONS)}")
    m = TARGET.match(str(target))
    node = NODE_TARGET.match(str(target))
    if node and action == "slow":
        raise FaultError(f"fault slow {target}: a node can be killed or paused; slow one of its replicas instead")
    if not m and not node:
        raise FaultError(f"fault target {target!r}: TIER or TIER#i, e.g. clone#2 (tiers: front, clone, axis, "
                         "gsoap), or a cluster node: node-3 (or node:HOSTNAME)")
    if not 0 <= at <= 86400 or (duration is not None and not 0 < duration <= 86400):
        raise FaultError(f"fault {action} {target}: at must be 0..86400 s and for 0 < D <= 86400 s")
    if not 0.01 <= speed <= 0.99:
        raise FaultError(f"fault slow {target}: speed must be 0.01..0.99 (the share of time it runs)")
    if action != "kill" and duration is None:
        duration = 10.0
    if node:
        return Fault(action, "node", None, float(at), duration, float(speed), str(run),
                     node=node["name"] or node["node"])
    return Fault(action, m["tier"], int(m["replica"]) if m["replica"] else None, float(at),
                 duration, float(speed), str(run))


def from_table(entry: dict, where: str) -> Fault:
    """One [[faults]] entry of an experiment file."""
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise FaultError(f"{where}: [[faults]] has unknown key(s) {', '.join(unknown)}; keys: {', '.join(KEYS)}")
    try:
        return parse(entry.get("action", ""), entry.get("target", ""), float(entry.get("at", 0)),
                     float(entry["for"]) if "for" in entry else None, float(entry.get("speed", 0.2)),
                     entry.get("run", "*"))
    except (TypeError, ValueError) as e:
        raise FaultError(f"{where}: [[faults]]: {e}") from None


def from_tables(entries, ids: list[str], where: str) -> list[Fault]:
    """An experiment's [[faults]]; run = an entry id of its [[runs]], or "*" for every run."""
    if not isinstance(entries, list):
        raise FaultError(f"{where}: faults must be an array of tables: [[faults]]")
    out = [from_table(e if isinstance(e, dict) else {}, where) for e in entries]
    for f in out:
        if f.run != "*" and f.run not in ids:
            raise FaultError(f"{where}: [[faults]] run = {f.run!r} is not a run of this file "
                             f"({', '.join(ids)}, or \"*\" for every run)")
    return out
