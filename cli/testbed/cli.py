"""testbed: start a real multi-tier SOAP system on this machine, load it, and find its
bottleneck.

  ./testbed up          build what is missing and start the stack (local processes)
  ./testbed test        build everything and run every test
  ./testbed status      every replica, its port, health and HAProxy state
  ./testbed down        stop everything `up` started
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from testbed import ROOT

TIER_FLAGS = {"front": "--fronts", "clone": "--clones", "axis": "--axis", "gsoap": "--gsoap"}
CLIENT_MODES = ("singleton", "request", "pool")


def _stack():
    from testbed.config import ConfigError, StackConfig
    from testbed.local import Stack
    try:
        return Stack(StackConfig.load())
    except ConfigError as e:
        raise SystemExit(f"testbed: {e}")


def cmd_setup(args) -> int:
    from testbed import prereqs
    return prereqs.setup(args.yes)


def cmd_build(args) -> int:
    from testbed import build, prereqs
    prereqs.require()
    try:
        build.all_(force=args.force)
    except build.BuildError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    return 0


def _docker_stack():
    """testbed.docker when the stack in place is the containerized one, else None."""
    from testbed import docker
    return docker if docker.active() else None


def cmd_up(args) -> int:
    from testbed import tiers
    counts = {name: getattr(args, name) for name in TIER_FLAGS}
    bad = [f"{TIER_FLAGS[n]} {c}" for n, c in counts.items() if not 0 <= c <= tiers.MAX_REPLICAS]
    if bad:
        print(f"testbed: up: {', '.join(bad)}: replicas must be 0..{tiers.MAX_REPLICAS}", file=sys.stderr)
        return 2
    overrides = {}
    if args.client_mode:
        overrides["CLIENT_MODE"] = args.client_mode
    if args.pool_size is not None:
        overrides["CLIENT_POOL_SIZE"] = str(args.pool_size)
    if args.docker:
        from testbed import docker
        return docker.cmd_up(args, counts, overrides)
    from testbed import build, prereqs
    from testbed.local import StackError
    from testbed.procs import ProcError
    prereqs.require()
    build.ensure([n for n, c in counts.items() if c > 0])
    stack = _stack()
    t0 = time.monotonic()
    print("up: starting HAProxy and " + ", ".join(f"{n} ×{c}" for n, c in counts.items() if c))
    try:
        stack.up({n: c for n, c in counts.items() if c > 0}, overrides, locust=not args.no_locust)
    except (StackError, ProcError) as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    print(f"up: healthy in {time.monotonic() - t0:.0f}s")
    _print_entry_points(stack.entry_points(), {n for n, c in counts.items() if c})
    print("  ./testbed status · ./testbed logs TIER · ./testbed down")
    return 0


ENTRY_TIER = {"web": "front", "clones": "clone", "axis": "axis", "gsoap": "gsoap"}


def _print_entry_points(entry_points: dict[str, str], tiers_up: set[str]) -> None:
    """One line per entry point; one whose tier has no replica says how to add one."""
    for name, url in entry_points.items():
        tier = ENTRY_TIER.get(name)
        note = f"   (no {tier} replica: ./testbed scale {tier}=1)" if tier and tier not in tiers_up else ""
        print(f"  {name:8s} {url}{note}")


def cmd_down(args) -> int:
    if d := _docker_stack():
        return d.cmd_down(args)
    from testbed.local import StackError
    try:
        stopped = _stack().down()
    except StackError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    print("down: stopped " + (", ".join(stopped) if stopped else "nothing (no stack was running)"))
    return 0


def cmd_status(args) -> int:
    if d := _docker_stack():
        return d.cmd_status(args)
    st = _stack().status()
    if args.json:
        print(json.dumps(st, indent=1))
        return 0 if st["up"] else 3
    if not st["up"] and not st["replicas"]:
        print("status: down (start it with ./testbed up)")
        return 3
    print(f"status: {'up' if st['up'] else 'HAProxy NOT running'}")
    _print_entry_points(st["entry_points"], {r["tier"] for r in st["replicas"]})
    if st["locust"]:
        alive = sum(p["alive"] for p in st["locust"])
        print(f"  locust: {alive}/{len(st['locust'])} processes alive (master + workers)")
    print(f"  {'replica':10s} {'port':>5s} {'pid':>7s}  {'process':8s} {'health':8s} {'haproxy':10s} sessions")
    for r in st["replicas"]:
        print(f"  {r['tier'] + '-' + str(r['replica']):10s} {r['port']:5d} {r['pid']:7d}  "
              f"{'alive' if r['alive'] else 'DEAD':8s} {'ok' if r['healthy'] else 'FAIL':8s} "
              f"{r['haproxy']:10s} {r['sessions']}")
    return 0 if st["up"] else 3


def cmd_scale(args) -> int:
    if d := _docker_stack():
        return d.cmd_scale(args)
    from testbed import build, tiers
    from testbed.local import StackError
    from testbed.procs import ProcError
    stack = _stack()
    for spec in args.spec:
        name, _, n = spec.partition("=")
        if name not in tiers.TIERS or not n.isdigit() or int(n) > tiers.MAX_REPLICAS:
            print(f"testbed: scale: expected TIER=N with TIER in {', '.join(tiers.TIERS)} and "
                  f"N in 0..{tiers.MAX_REPLICAS}, got {spec!r}", file=sys.stderr)
            return 2
        build.ensure([name])
        try:
            before, after = stack.scale(name, int(n))
        except (StackError, ProcError) as e:
            print(f"testbed: {e}", file=sys.stderr)
            return 1
        print(f"scale: {name} {before} -> {after}")
    return 0


def cmd_logs(args) -> int:
    if d := _docker_stack():
        return d.cmd_logs(args)
    from testbed.local import StackError
    try:
        paths = _stack().logs(args.tier)
    except StackError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
    if not paths:
        print(f"logs: no logs for {args.tier} yet")
        return 1
    if args.follow:
        return subprocess.call(["tail", "-n", str(args.lines), "-F", *map(str, paths)])
    for p in paths:
        print(f"==> {p} <==")
        print("\n".join(p.read_text(errors="replace").splitlines()[-args.lines:]))
    return 0


def cmd_test(args) -> int:
    from testbed import build, prereqs
    prereqs.require()
    try:
        build.native()
        build.java(run_tests=True)
    except build.BuildError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    rc = subprocess.call(["ctest", "--test-dir", "build", "--output-on-failure"], cwd=ROOT)
    if rc != 0:
        print("testbed: ctest failed", file=sys.stderr)
        return rc
    return subprocess.call([sys.executable, "-m", "pytest", *args.pytest_args], cwd=ROOT)


def cmd_bench(args) -> int:
    from testbed import bench, prereqs
    prereqs.require()
    return bench.main(args)


def cmd_run(args) -> int:
    from testbed import prereqs
    from testbed.run import command
    prereqs.require()
    return command.main(args)


def cmd_analysis(args) -> int:
    from analysis.cli import main as analysis_main
    return analysis_main([args.verb, *args.args], prog="testbed")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="testbed", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    s = sub.add_parser("setup", help="install the system packages the testbed needs (apt-get)")
    s.add_argument("-y", "--yes", action="store_true", help="do not ask (apt-get runs as root)")
    s.set_defaults(func=cmd_setup)

    s = sub.add_parser("build", help="build the Java tiers (Maven) and the gSOAP tools (CMake)")
    s.add_argument("--force", action="store_true", help="rebuild even if nothing changed")
    s.set_defaults(func=cmd_build)

    s = sub.add_parser("up", help="build what is missing and start the stack on loopback",
                       description="Start every tier as local processes behind HAProxy and wait until "
                                   "all are healthy. Knobs: .env (docs in the file).")
    s.add_argument("--fronts", dest="front", type=int, default=1, metavar="F",
                   help="front (JSP/EJB-like) replicas (default 1)")
    s.add_argument("--clones", dest="clone", type=int, default=1, metavar="C",
                   help="SOAP client tier replicas (default 1)")
    s.add_argument("--axis", type=int, default=1, metavar="A", help="Axis2 service replicas (default 1)")
    s.add_argument("--gsoap", type=int, default=1, metavar="G", help="gSOAP service replicas (default 1)")
    s.add_argument("--client-mode", choices=CLIENT_MODES, default=None,
                   help="client lifecycle of the client tier (default: CLIENT_MODE in .env, singleton)")
    s.add_argument("--pool-size", type=int, default=None, metavar="N",
                   help="clients per clone in --client-mode pool (default: CLIENT_POOL_SIZE in .env)")
    s.add_argument("--no-locust", action="store_true",
                   help="do not start the Locust web UI (master + LOCUST_WORKERS workers)")
    s.add_argument("--docker", action="store_true",
                   help="start the stack as containers (docker compose; docs/docker.md) instead of "
                        "local processes; status/scale/logs/down then act on the containers")
    s.set_defaults(func=cmd_up)

    s = sub.add_parser("down", help="stop everything `up` and `scale` started, and nothing else")
    s.set_defaults(func=cmd_down)

    s = sub.add_parser("status", help="every replica: port, pid, health, HAProxy state")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("scale", help="add or remove replicas while load runs (TIER=N ...)",
                       description="Start new replicas and reload HAProxy seamlessly, or drain replicas "
                                   "in HAProxy, wait for their requests to finish, then stop them.")
    s.add_argument("spec", nargs="+", metavar="TIER=N")
    s.set_defaults(func=cmd_scale)

    s = sub.add_parser("logs", help="the log of every replica of a tier (or haproxy)")
    s.add_argument("tier")
    s.add_argument("-f", "--follow", action="store_true")
    s.add_argument("-n", "--lines", type=int, default=40)
    s.set_defaults(func=cmd_logs)

    s = sub.add_parser("test", help="build everything and run every test (JUnit, ctest, pytest)",
                       description="Arguments after the verb go to pytest, e.g. ./testbed test -k interop -x")
    s.add_argument("pytest_args", nargs=argparse.REMAINDER)
    s.set_defaults(func=cmd_test)

    s = sub.add_parser("bench", help="measure service throughput vs this machine's HTTP bound")
    s.add_argument("--duration", type=int, default=10, help="seconds per measurement (default 10)")
    s.add_argument("--connections", type=int, default=16, help="concurrent keep-alive connections")
    s.add_argument("--repeat", type=int, default=3, help="runs of every measurement (median reported)")
    s.add_argument("--ops", default="ping,sendInts:1000",
                   help="operations and item counts, e.g. ping,sendInts:1000,sendDoubles:100000 "
                        "(default ping,sendInts:1000)")
    s.add_argument("-o", "--output", default=None, help="result folder (default results/bench-<time>)")
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser("run", help="run an experiment (segments, clones, calibration) into results/",
                       description="Drive an experiment of loadgen/experiments/ against the local stack "
                                   "(started if down) and write results/<name>-<time>/ with a report. "
                                   "docs/experiments.md says what each measures and how to edit one.")
    from testbed.run.command import add_arguments
    add_arguments(s)
    s.set_defaults(func=cmd_run)

    for verb, text in (("report", "regenerate steps.csv, summary.json, plots and report.html of a result folder"),
                       ("analyze", "apply the segment or capacity laws to numbers you give")):
        s = sub.add_parser(verb, help=text, add_help=False, prefix_chars="\0",
                           description=f"./testbed {verb} --help for the options (the analysis package's CLI)")
        s.add_argument("args", nargs=argparse.REMAINDER)
        s.set_defaults(func=cmd_analysis)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        print("\ntestbed: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:            # e.g. ./testbed status | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
