"""The user's own SOAP service put in the stack (`./testbed up --service WSDL`, docs/own-service.md):
the WSDL read and checked here, once, then handed on as knobs (the same for every stack mode and
kept with the stack's other overrides):

    OWN_SERVER     host:port of the service's soap:address: the one server of HAProxy's backend "own"
    OWN_ENDPOINT   /own/<path of the soap:address>: where the client tier sends, through HAProxy
                   (the soap entry, which takes /own off before the service sees the path)
    OWN_WSDL       where each client build fetches the WSDL: through HAProxy too when the WSDL comes
                   from the service itself, else its http URL or file as given
    OWN_OPERATION  the operation /seg/5?backend=own calls
    OWN_TEMPLATE   its request: the template (given, or sampled from the schema) checked against the
                   schema, every parameter but ${n} already given its value (the clone expands ${n})
    OWN_PID        where the service runs, when it runs on this machine and you said so: its CPU is
                   sampled with the tiers' (tier "own"); otherwise it is not measured

Nothing is sent to the service here: the WSDL, and what it imports from its own location, is all
that is fetched (wsdl.py's limits)."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse
from xml.sax.saxutils import escape

from testbed.haproxy.config import OWN_SERVER
from testbed.ownservice import wsdl

KNOBS = ("OWN_SERVER", "OWN_ENDPOINT", "OWN_WSDL", "OWN_OPERATION", "OWN_TEMPLATE")
PREFIX = "/own"
MAX_TEMPLATE_BYTES = 1 << 20


def _same_origin(a: str, b: str) -> bool:
    ua, ub = urlparse(a), urlparse(b)
    return (ua.scheme, (ua.hostname or "").lower(), ua.port or 80) == (ub.scheme, (ub.hostname or "").lower(), ub.port or 80)


def _given(template: str, params: dict[str, str]) -> str:
    """Every ${NAME} but ${n} replaced by its value (escaped for XML text and attributes)."""
    def one(m: re.Match) -> str:
        name = m.group(1)
        if name == "n":
            return m.group(0)
        if name not in params:
            raise wsdl.ServiceError(f"the template uses ${{{name}}}; give it with --param {name}=VALUE")
        return escape(str(params[name]), {'"': "&quot;", "'": "&apos;"})
    return wsdl.PARAM.sub(one, template)


def prepare(location: str, operation: str | None, payload: Path | None, params: dict[str, str],
            folder: Path, log=print, pid: int | None = None) -> dict[str, str]:
    """Reads the WSDL, chooses the operation, checks its template (the one given, else the schema's
    sample) expanded with n=3 and the parameters, writes what the clone will expand into folder and
    returns the knobs (module doc). ServiceError with the reason when any of it cannot be used."""
    if pid is not None and not Path(f"/proc/{pid}").is_dir():
        raise wsdl.ServiceError(f"--service-pid {pid}: no such process on this machine (the service's CPU is "
                                "measured from its process; leave the option out when it runs elsewhere)")
    service = wsdl.read(location)
    op = service.operation(operation)
    if len(service.documents) > 1:
        raise wsdl.ServiceError(f"{location}: the WSDL is {len(service.documents)} documents "
                                f"({', '.join(service.documents[1:])} imported); the client tier reads a WSDL "
                                "of one document (types inline)")
    endpoint = service.endpoint or ""
    u = urlparse(endpoint)
    if u.scheme != "http" or not u.hostname:
        raise wsdl.ServiceError(f"{location}: the port's soap:address is {endpoint or 'missing'}; the testbed calls "
                                "a service at an http:// address (https is not supported yet)")
    host_port = f"{u.hostname}:{u.port or 80}"
    if not OWN_SERVER.match(host_port):
        raise wsdl.ServiceError(f"{location}: soap:address {endpoint}: its host {u.hostname!r} is not a plain "
                                "host name or IPv4 address")
    if payload is not None:
        try:
            raw = payload.read_bytes()
        except OSError as e:
            raise wsdl.ServiceError(f"--payload {payload}: cannot be read ({e.strerror or e})") from None
        if len(raw) > MAX_TEMPLATE_BYTES:
            raise wsdl.ServiceError(f"--payload {payload}: larger than 1 MiB")
        template = raw.decode("utf-8", errors="strict")
    else:
        template = wsdl.sample(op)
    given = _given(template, params)
    wsdl.check(op, wsdl.expand(given, {"n": 3}))
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{op.name}.xml"
    out.write_text(given)
    path = (u.path or "/") + (f"?{u.query}" if u.query else "")
    w = urlparse(location)
    if w.scheme == "http" and _same_origin(location, endpoint):
        fetched = PREFIX + (w.path or "/") + (f"?{w.query}" if w.query else "")
    elif w.scheme == "http":
        fetched = location
    else:
        raise wsdl.ServiceError(f"{location}: the client tier fetches the WSDL over http, as it builds each client; "
                                "give the URL the service serves it at")
    log(f"  your service: {op.name} ({op.style}/literal, SOAP {service.soap}) at {endpoint}, "
        f"behind HAProxy's /own; its request: {out}; its CPU: "
        + (f"process {pid}" if pid is not None else "not measured (--service-pid PID where it runs here)"))
    knobs = {"OWN_SERVER": host_port, "OWN_ENDPOINT": PREFIX + path, "OWN_WSDL": fetched,
             "OWN_OPERATION": op.name, "OWN_TEMPLATE": str(out.resolve())}
    if pid is not None:
        knobs["OWN_PID"] = str(pid)
    return knobs
