"""The values of a run's keys that set the stack: replica counts (tiers), CPU quotas
(tiers_cpus), synthetic demands (demands, with the scaled service wait "auto") and other .env
knobs (knobs); definition.py reads the files and calls these, each naming the key on a mistake."""
from __future__ import annotations

import re

from testbed.swarm import placement
from testbed.tiers import MAX_POOL_SIZE  # noqa: F401  (the clone's range, for the definitions)
from testbed.experiment.plan import DefinitionError, unknown, whole
from testbed.experiment.scale import AUTO, SCALED_POINT

TIER_NAMES = ("front", "clone", "axis", "gsoap")
OPERATIONS = ("ping", "sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer",
              "echoInts", "work")   # the contract's operations (a run's op)
DEMAND_POINTS = ("SEG1", "SEG2", "SEG3", "SEG4", "INVOKER", "CLONE", "SERVICE")
DEMAND_KEYS = ("cpu_us", "wait_us", "locked")
MAX_REPLICAS = 16
# knobs the runner sets, and the value that means "as the tier's default" when a run does not
# set them (docs/tiers.md, client-clones/README.md)
KNOB_DEFAULTS = {"CLIENT_MODE": "singleton", "CLIENT_POOL_SIZE": "8",
                 **{f"DEMAND_{p}_{k}": "0" for p in DEMAND_POINTS for k in ("CPU_US", "WAIT_US", "LOCKED")}}


def demands_text(runs) -> str:
    """One line saying which demand knobs the runs set ("none": every demand is zero)."""
    seen: dict[str, list[str]] = {}
    for r in runs:
        text = "; ".join(f"{p} {d['cpu_us']} µs CPU + "
                         + ("a wait scaled to the host" if r.auto_wait and p == SCALED_POINT else f"{d['wait_us']} µs wait")
                         + f"{' under its process lock' if d['locked'] else ' (no lock)'}"
                         for p, d in sorted(r.demands.items())) or "none"
        seen.setdefault(text, []).append(r.entry)
    if len(seen) == 1:
        return next(iter(seen)) + (" (every run)" if next(iter(seen)) != "none" else "")
    return " | ".join(f"{', '.join(dict.fromkeys(ids))}: {t}" for t, ids in seen.items())


def tiers(defaults: dict, entry: dict, where: str) -> dict[str, int]:
    """Replica counts: the defaults' (a classic part's over [defaults]), then the run's."""
    counts = {"front": 1, "clone": 1, "axis": 1, "gsoap": 0}
    for layer in (defaults.get("tiers", {}), entry.get("tiers", {})):
        if not isinstance(layer, dict):
            raise DefinitionError(f"{where}: tiers must be a table like {{front = 1, clone = 2}}")
        unknown(layer, TIER_NAMES, f"{where} tiers")
        for t, n in layer.items():
            counts[t] = whole(n, f"tiers.{t}", where, 0, MAX_REPLICAS)
    return counts


def tiers_cpus(defaults: dict, entry: dict, where: str) -> dict[str, str]:
    """tiers_cpus = {clone = 0.5}: a CPU quota per replica of a tier, in cores (compose `cpus`,
    a cgroup per local replica), merged key by key over [defaults]; as the knobs CPUS_<TIER>."""
    out = {}
    for layer in (defaults.get("tiers_cpus", {}), entry.get("tiers_cpus", {})):
        if not isinstance(layer, dict):
            raise DefinitionError(f"{where}: tiers_cpus must be a table like {{clone = 0.5, axis = 1}}")
        unknown(layer, TIER_NAMES, f"{where} tiers_cpus")
        for t, v in layer.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 64:
                raise DefinitionError(f"{where}: tiers_cpus.{t} must be cores per replica, 0..64 "
                                      f"(0 = no quota), got {v!r}")
            out[f"CPUS_{t.upper()}"] = f"{v:g}"
    return out


def demands(value, where: str, auto_wait_us: int = 0) -> tuple[dict[str, dict], bool]:
    """The demand tables, and whether demands.SERVICE.wait_us is "auto" (then auto_wait_us stands
    in for it until the runner chooses)."""
    auto = False
    if not isinstance(value, dict):
        raise DefinitionError(f"{where}: demands must be a table like {{SEG2 = {{wait_us = 10000, locked = true}}}}")
    out = {}
    for point, d in value.items():
        if point not in DEMAND_POINTS:
            raise DefinitionError(f"{where}: demands.{point}: unknown point; points are {', '.join(DEMAND_POINTS)}")
        if not isinstance(d, dict):
            raise DefinitionError(f"{where}: demands.{point} must be a table {{cpu_us, wait_us, locked}}")
        unknown(d, DEMAND_KEYS, f"{where} demands.{point}")
        cpu = whole(d.get("cpu_us", 0), f"demands.{point}.cpu_us", where, 0, 60_000_000)
        locked = d.get("locked", False)
        if not isinstance(locked, bool):
            raise DefinitionError(f"{where}: demands.{point}.locked must be true or false")
        if d.get("wait_us") == AUTO:
            if point != SCALED_POINT or locked:
                raise DefinitionError(f"{where}: demands.{point}.wait_us = \"{AUTO}\": only the remote "
                                      f"service's unlocked wait (demands.{SCALED_POINT} = {{ wait_us = \"{AUTO}\", "
                                      "locked = false }) is chosen by the runner; give a number of µs")
            auto, wait = True, auto_wait_us
        else:
            wait = whole(d.get("wait_us", 0), f"demands.{point}.wait_us", where, 0, 60_000_000)
        if cpu or wait or auto:
            out[point] = {"cpu_us": cpu, "wait_us": wait, "locked": locked}
    return out, auto


def knobs(value, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise DefinitionError(f"{where}: knobs must be a table like {{GSOAP_SERVER_MODEL = \"pool\"}}")
    out = {}
    for k, v in value.items():
        if k in placement.KNOBS:
            raise DefinitionError(f"{where}: knobs.{k}: set it with placement or spread instead")
        if k in KNOB_DEFAULTS or k.startswith("DEMAND_"):
            raise DefinitionError(f"{where}: knobs.{k}: set it with client_mode, pool_size or demands instead")
        if not re.match(r"^[A-Z][A-Z0-9_]*$", k) or isinstance(v, (dict, list)):
            raise DefinitionError(f"{where}: knobs.{k}: expected NAME = value (a .env knob)")
        out[k] = str(int(v) if isinstance(v, bool) else v)
    return out
