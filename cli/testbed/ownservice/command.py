"""./testbed service sample|check WSDL: read a SOAP service's WSDL (yours: any the machine can
reach) and write a request template per operation, or check an edited one against the schema
(docs/own-service.md).

    ./testbed service sample http://127.0.0.1:8000/?wsdl -o requests/
    ./testbed service check http://127.0.0.1:8000/?wsdl --operation total --payload requests/total.xml --param n=10

Exit 0: done; 1: the template does not match the schema; 2: the WSDL or the input cannot be used.
Nothing is sent to the service: the WSDL (and what it imports from its own location) is all that
is fetched.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from testbed.ownservice import wsdl

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,100}$")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = sub.add_parser("sample", help="write a request template per operation (OPERATION.xml)")
    s.add_argument("wsdl", metavar="WSDL", help="the service's WSDL: an http(s) URL or a file")
    s.add_argument("-o", "--output", default="requests", metavar="DIR", help="where the templates go (default requests/)")
    s.add_argument("--operation", default=None, metavar="NAME", help="only this operation")
    c = sub.add_parser("check", help="check a template, expanded with its parameters, against the operation's schema")
    c.add_argument("wsdl", metavar="WSDL", help="the service's WSDL: an http(s) URL or a file")
    c.add_argument("--operation", default=None, metavar="NAME", help="the operation (needed when it has several)")
    c.add_argument("--payload", required=True, metavar="FILE", help="the template (from sample, edited or not)")
    c.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a template parameter, e.g. n=10 (the arrays' size; default n=3)")


def params(items: list[str]) -> dict[str, str]:
    out = {"n": "3"}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not NAME.match(name.strip()):
            raise wsdl.ServiceError(f"--param {item!r}: write NAME=VALUE, e.g. n=10")
        out[name.strip()] = value.strip()
    return out


def main(args) -> int:
    try:
        service = wsdl.read(args.wsdl)
        if args.action == "sample":
            return _sample(service, args)
        return _check(service, args)
    except wsdl.ServiceError as e:
        print(f"testbed: service: {e}", file=sys.stderr)
        return 2


def _describe(service: wsdl.Service) -> str:
    return (f"{service.location}: SOAP {service.soap}, binding {service.binding}, endpoint {service.endpoint or '—'}, "
            f"{len(service.operations)} operation(s), {len(service.documents)} document(s) read")


def _sample(service: wsdl.Service, args) -> int:
    ops = [service.operation(args.operation)] if args.operation else list(service.operations.values())
    out = Path(args.output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise wsdl.ServiceError(f"-o {out}: cannot be made ({e.strerror or e})") from None
    print(_describe(service))
    for op in ops:
        if not NAME.match(op.name):
            print(f"  {op.name!r}: its name is not a file name; skipped", file=sys.stderr)
            continue
        text = wsdl.sample(op)
        wsdl.check(op, wsdl.expand(text, {"n": 3}))          # what it writes, it can read back
        path = out / f"{op.name}.xml"
        path.write_text(text, encoding="utf-8")
        print(f"  {op.name} ({op.style}/literal): {path}")
    return 0


def _check(service: wsdl.Service, args) -> int:
    op = service.operation(args.operation)
    try:
        text = Path(args.payload).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise wsdl.ServiceError(f"--payload {args.payload}: cannot be read ({e})") from None
    given = params(args.param)
    payload = wsdl.expand(text, given)
    try:
        wsdl.check(op, payload)
    except wsdl.ServiceError as e:
        print(f"testbed: service: {args.payload}: {e}", file=sys.stderr)
        return 1
    shown = ", ".join(f"{k}={v}" for k, v in given.items())
    print(f"{args.payload}: matches the schema of {op.name} ({shown}: {len(payload):,} bytes)")
    return 0
