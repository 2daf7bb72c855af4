"""An experiment pointed at the user's own SOAP service (`./testbed run EXP --service WSDL`, or
[service] in the file; docs/own-service.md): the table's shape checked when the file is read, and the
runs rewritten once the WSDL has been read (runcmd: ownservice/wiring.py gives the knobs)."""
from __future__ import annotations

import re
from dataclasses import replace

from testbed.experiment.plan import DefinitionError, unknown, whole
from testbed.experiment.runkeys import OPERATIONS, demands_text

OWN = "own"          # the backend of your own service: never a file's, set here
SERVICE_KEYS = ("wsdl", "operation", "payload", "n", "params", "pid")


def service_table(table, where: str) -> dict:
    """[service] (wsdl = "http://...", operation, payload = "FILE", n = 3, params = {NAME = "VALUE"}),
    checked in shape; the WSDL itself is read when the experiment runs (runcmd: ownservice.wiring)."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise DefinitionError(f"{where}: [service] must be a table: wsdl = \"http://...\", operation = \"NAME\"")
    unknown(table, SERVICE_KEYS, f"{where} [service]")
    if not isinstance(table.get("wsdl"), str) or not table["wsdl"].strip():
        raise DefinitionError(f"{where} [service]: wsdl = \"http://host:port/...?wsdl\" is required")
    for key in ("operation", "payload"):
        if key in table and not isinstance(table[key], str):
            raise DefinitionError(f"{where} [service]: {key} must be a string")
    params = table.get("params", {})
    if not isinstance(params, dict) or not all(isinstance(v, (str, int, float)) for v in params.values()):
        raise DefinitionError(f"{where} [service]: params must be a table of NAME = VALUE")
    out = dict(table)
    out["n"] = whole(table.get("n", 3), "n", f"{where} [service]", 0, 100_000)
    out["params"] = {str(k): str(v) for k, v in params.items()}
    if "pid" in table:
        out["pid"] = whole(table["pid"], "pid", f"{where} [service]", 1, 2 ** 22)
    return out


def with_service(exp, knobs: dict[str, str], n: int, operation: str):
    """The experiment pointed at the user's own service: path 5 of every run calls it (backend own,
    its operation, arrays of n items), the contract's services are not started, and every run's
    stack has the service's knobs (OWN_*: ownservice/wiring.py). Runs that scale the service tier
    are left out (one endpoint: the testbed does not start or scale your service), and the service's
    demand knobs with them (its wait is its own)."""
    service_tier = {"axis", "gsoap"}
    kept, dropped = [], []
    for r in exp.runs:
        if any(r.tiers.get(t, 0) > 1 for t in service_tier):
            dropped.append(r.entry)
            continue
        label = re.sub(r"\b1 (axis|gsoap)\b", operation, r.label)       # "1 clone, 1 axis" -> "1 clone, total"
        label = re.sub(r"\b(Axis2|gSOAP|axis|gsoap)\b( (" + "|".join(OPERATIONS) + r")\b)?", operation, label)
        entry = re.sub(r"^(axis|gsoap)-", f"{OWN}-", r.entry)        # segments' axis-path5 -> own-path5
        kept.append(replace(r, id=entry + r.id[len(r.entry):], entry=entry, backend=OWN, op=operation, n=n,
                            knobs={**r.knobs, **knobs}, label=label,
                            tiers={**r.tiers, "axis": 0, "gsoap": 0}, auto_wait=False,
                            demands={k: v for k, v in r.demands.items() if k != "SERVICE"}))
    if not kept:
        raise DefinitionError(f"{exp.source}: every run scales the service tier, which your own service is not "
                              "(one endpoint): nothing to run against it")
    settings = {**exp.settings, "service": f"{operation} at {knobs.get('OWN_SERVER')} (WSDL {exp.service.get('wsdl')})"}
    if dropped:
        settings["service tier scaling"] = (f"not measured: your service is one endpoint ({', '.join(dict.fromkeys(dropped))} "
                                            "left out)")
    settings["demand knobs"] = demands_text(kept)
    return replace(exp, runs=kept, settings=settings)
