"""Where each tier runs on a multi-node Swarm: an experiment key, a flag of `./testbed up --swarm`,
and node labels underneath (docs/docker.md, "Placement").

    placement = { front = "node-2", clone = ["node-3", "node-4"], axis = "node-4" }
    spread = "tier-per-node"

A tier named in `placement` may run only on the nodes given (a list: any of them — Swarm then
has somewhere to reschedule it when a node fails); a tier not named runs anywhere.
`spread = "tier-per-node"` places front, clone and axis each on a node of its own, the classic
deployment: with four nodes or more the entry node (HAProxy, the load generator) holds no tier;
with three, the front shares it. gSOAP goes with Axis2 unless a node is left for it.

Underneath, every tier's service has the constraint `node.labels.testbed.<tier> == true` and a
node carries the label testbed.<tier>=true for each tier allowed on it. Changing the placement
is changing labels: Swarm stops the tasks that no longer fit and starts them where they do.
The knobs PLACE_<TIER> (node names, space-separated) and SPREAD carry the placement through
the runner and the stack's saved overrides like any other knob.
"""
from __future__ import annotations

import re

TIERS = ("front", "clone", "axis", "gsoap")
SPREADS = ("tier-per-node",)
NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
KNOBS = tuple(f"PLACE_{t.upper()}" for t in TIERS) + ("SPREAD",)
DEFAULTS = {k: "" for k in KNOBS}       # "": anywhere / no spread


class PlacementError(ValueError):
    """A placement that cannot be: the text names the fix."""


def label(tier: str) -> str:
    return f"testbed.{tier}"


def constraint(tier: str) -> str:
    return f"node.labels.{label(tier)} == true"


def parse(value, where: str) -> dict[str, tuple[str, ...]]:
    """An experiment's (or the CLI's) placement table: tier -> the nodes it may run on."""
    if not isinstance(value, dict):
        raise PlacementError(f"{where}: placement must be a table like "
                             '{ front = "node-2", clone = ["node-3", "node-4"] }')
    out = {}
    for tier, nodes in value.items():
        if tier not in TIERS:
            raise PlacementError(f"{where}: placement.{tier}: unknown tier; tiers are {', '.join(TIERS)}")
        names = [nodes] if isinstance(nodes, str) else nodes
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and NODE_NAME.match(n)
                                                               for n in names):
            raise PlacementError(f"{where}: placement.{tier} must be a node name or a list of them "
                                 f'(hostnames as `docker node ls` shows them), got {nodes!r}')
        out[tier] = tuple(dict.fromkeys(names))
    return out


def parse_spec(text: str) -> dict[str, tuple[str, ...]]:
    """`--placement front=node-2,clone=node-3+node-4` (a list joined by +)."""
    table = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        tier, sep, nodes = part.partition("=")
        if not sep:
            raise PlacementError(f"--placement {text!r}: expected TIER=NODE[+NODE...],... "
                                 "e.g. front=node-2,clone=node-3+node-4")
        table[tier.strip()] = [n.strip() for n in nodes.split("+")]
    return parse(table, "--placement")


def check_spread(value, where: str) -> str:
    if value not in SPREADS:
        raise PlacementError(f"{where}: spread must be one of {', '.join(SPREADS)} (got {value!r})")
    return value


def to_knobs(placement: dict[str, tuple[str, ...]] | None, spread: str | None) -> dict[str, str]:
    """PLACE_<TIER> and SPREAD for every tier ("" = anywhere), so that a run that sets a placement
    says where every tier goes."""
    placement = placement or {}
    out = {f"PLACE_{t.upper()}": " ".join(placement.get(t, ())) for t in TIERS}
    out["SPREAD"] = spread or ""
    return out


def from_tables(defaults: dict, entry: dict, where: str) -> dict[str, str]:
    """An experiment run's knobs from its placement (merged tier by tier over [defaults]'s) and
    spread; {} when neither is given."""
    table: dict = {}
    for layer in (defaults.get("placement", {}), entry.get("placement", {})):
        table.update(parse(layer, where))
    spread = entry.get("spread", defaults.get("spread"))
    if not table and spread is None:
        return {}
    return to_knobs(table, check_spread(spread, where) if spread is not None else None)


def from_knobs(knobs: dict[str, str]) -> tuple[dict[str, tuple[str, ...]], str | None]:
    placement = {t: tuple(knobs[f"PLACE_{t.upper()}"].split()) for t in TIERS
                 if knobs.get(f"PLACE_{t.upper()}", "").strip()}
    return placement, knobs.get("SPREAD") or None


def requested(knobs: dict[str, str]) -> bool:
    placement, spread = from_knobs(knobs)
    return bool(placement or spread)


def spread_tiers(kind: str, nodes: list[str], entry: str) -> dict[str, tuple[str, ...]]:
    """The placement a spread stands for on these nodes (entry: the node that runs HAProxy)."""
    check_spread(kind, "spread")
    others = [n for n in nodes if n != entry]
    if len(nodes) < 3 or entry not in nodes:
        raise PlacementError(f"spread = \"{kind}\" needs at least 3 nodes (front, clone and axis each "
                             f"on its own), this Swarm has {len(nodes)}: ./testbed cluster up --nodes 4")
    hosts = others if len(others) >= 3 else [entry, *others]
    out = {"front": (hosts[0],), "clone": (hosts[1],), "axis": (hosts[2],)}
    out["gsoap"] = (hosts[3],) if len(hosts) > 3 else (hosts[2],)
    return out


def resolve(knobs: dict[str, str], nodes: list[str], entry: str | None) -> dict[str, tuple[str, ...]]:
    """Every tier -> the nodes it may run on (all of them where nothing is asked), checked
    against the Swarm's nodes. A spread gives the tiers it places; placement overrides them."""
    placement, spread = from_knobs(knobs)
    out = {t: tuple(nodes) for t in TIERS}
    if spread:
        out.update(spread_tiers(spread, nodes, entry or nodes[0]))
    out.update(placement)
    unknown = sorted({n for t in placement for n in placement[t]} - set(nodes))
    if unknown:
        raise PlacementError(f"placement names node(s) {', '.join(unknown)}, which this Swarm does not "
                             f"have (nodes: {', '.join(nodes)}; ./testbed cluster status)")
    return out


def labels(resolved: dict[str, tuple[str, ...]], nodes: list[str]) -> dict[str, dict[str, bool]]:
    """node -> {label: wanted}: add testbed.<tier> where the tier may run, remove it elsewhere."""
    return {n: {label(t): n in resolved.get(t, ()) for t in TIERS} for n in nodes}


def override(entry_label: str | None, version_key: bool = False) -> str:
    """A second stack file (`docker stack deploy -c docker-compose.yml -c THIS`) that adds the
    tiers' constraints, and pins HAProxy and the Locust UI to the entry node when one is labelled."""
    lines = ['version: "3.9"'] if version_key else []
    lines.append("services:")
    for t in TIERS:
        lines.append(f"  {t}:\n    deploy:\n      placement:\n        constraints: [\"{constraint(t)}\"]")
    if entry_label:
        for s in ("haproxy", "locust-master"):
            lines.append(f"  {s}:\n    deploy:\n      placement:\n        constraints: "
                         f"[\"node.labels.{entry_label} == true\"]")
    return "\n".join(lines) + "\n"


def describe(resolved: dict[str, tuple[str, ...]]) -> str:
    return ", ".join(f"{t} on {'/'.join(n)}" for t, n in resolved.items())
