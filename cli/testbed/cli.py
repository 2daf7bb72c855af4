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
import sys
import time

from testbed import ROOT

TIER_FLAGS = {"front": "--fronts", "clone": "--clones", "axis": "--axis", "gsoap": "--gsoap"}
CLIENT_MODES = ("singleton", "request", "pool")
VERB_GROUPS = (                       # `./testbed --help` lists the verbs by what they do
    ("the stack", ("up", "status", "scale", "logs", "fault", "down", "cluster")),
    ("experiments and their results", ("run", "report", "predict", "traces", "analyze")),
    ("build, test, measure", ("setup", "build", "test", "bench")),
)


def _stack(docker: bool | None = None):
    """The stack to act on: the one that runs (local or containers), else a local one
    (docker=True: a containerized one). Exits naming the fix when that cannot be."""
    from testbed.stack.config import ConfigError, StackConfig
    from testbed.stack.interface import StackError
    from testbed.stack.factory import open_stack
    try:
        return open_stack(StackConfig.load(), docker)
    except (ConfigError, StackError) as e:
        raise SystemExit(f"testbed: {e}")


def cmd_setup(args) -> int:
    from testbed import prereqs
    return prereqs.setup(args.yes)


def cmd_build(args) -> int:
    from testbed import build, prereqs
    prereqs.ensure()
    try:
        build.all_(force=args.force)
    except build.BuildError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    return 0


def cmd_up(args) -> int:
    from testbed import tiers
    from testbed.observe.monitoring import MonitoringError
    from testbed.procs import ProcError
    from testbed.stack.interface import StackError
    from testbed.observe.tracing import TracingError
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
    try:
        overrides.update(_cpus_option(args.cpus))
    except ValueError as e:
        print(f"testbed: up: --cpus: {e}", file=sys.stderr)
        return 2
    if args.spread or args.placement:
        from testbed.swarm import placement
        if not args.swarm:
            print("testbed: up: --spread and --placement place tiers on the nodes of a Swarm: add --swarm",
                  file=sys.stderr)
            return 2
        try:
            overrides.update(placement.to_knobs(placement.parse_spec(args.placement or ""), args.spread))
        except placement.PlacementError as e:
            print(f"testbed: up: {e}", file=sys.stderr)
            return 2
    stack = _stack(docker=args.docker or args.swarm)
    if args.swarm and not stack.running():
        from testbed.swarm.stack import SwarmStack
        stack = SwarmStack(stack.cfg)
    if stack.running():
        print(f"testbed: the {stack.mode} stack is already up (./testbed status); change replica counts "
              "with ./testbed scale TIER=N, or ./testbed down first", file=sys.stderr)
        return 1
    if stack.mode == "local":
        from testbed import build, prereqs
        prereqs.ensure()
        build.ensure([n for n, c in counts.items() if c > 0], tracing=args.tracing)
        print("up: starting HAProxy and " + ", ".join(f"{n} ×{c}" for n, c in counts.items() if c))
    t0 = time.monotonic()
    try:
        stack.up({n: c for n, c in counts.items() if c > 0}, overrides, locust=not args.no_locust,
                 monitoring=args.monitoring, tracing=args.tracing)
    except (StackError, ProcError, MonitoringError, TracingError) as e:
        print(f"testbed: {e}" + ("\n  see: docker compose ps; docker compose logs" if stack.mode == "docker" else ""),
              file=sys.stderr)
        return 1
    print(f"up: healthy in {time.monotonic() - t0:.0f}s")
    _print_entry_points(stack.entry_points(), {n for n, c in counts.items() if c})
    print("  ./testbed status · ./testbed scale clone=3 · ./testbed logs TIER · ./testbed down")
    return 0


def _cpus_option(text: str | None) -> dict[str, str]:
    """--cpus clone=0.5,axis=1 -> {CPUS_CLONE: "0.5", CPUS_AXIS: "1"} (ValueError naming the form)."""
    from testbed.cpu.quotas import QUOTA_TIERS, QuotaError, cores
    out: dict[str, str] = {}
    for part in filter(None, (text or "").split(",")):
        tier, eq, value = part.strip().partition("=")
        if not eq or tier not in QUOTA_TIERS:
            raise ValueError(f"expected TIER=CORES[,TIER=CORES...] with TIER in {', '.join(QUOTA_TIERS)}, "
                             f"got {part.strip()!r}")
        try:
            cores({f"CPUS_{tier.upper()}": value}, tier)
        except QuotaError as e:
            raise ValueError(str(e).split(", in .env")[0]) from None
        out[f"CPUS_{tier.upper()}"] = value.strip()
    return out


ENTRY_TIER = {"web": "front", "clones": "clone", "axis": "axis", "gsoap": "gsoap"}


def _print_entry_points(entry_points: dict[str, str], tiers_up: set[str]) -> None:
    """One line per entry point; one whose tier has no replica says how to add one."""
    width = max([8] + [len(n) + 1 for n in entry_points])
    for name, url in entry_points.items():
        tier = ENTRY_TIER.get(name)
        note = f"   (no {tier} replica: ./testbed scale {tier}=1)" if tier and tier not in tiers_up else ""
        print(f"  {name:{width}s} {url}{note}")


def cmd_down(args) -> int:
    from testbed.stack.interface import StackError
    from testbed.stack.factory import detect
    stack = detect()
    if stack is None:
        print("down: stopped nothing (no stack was running)")
        return 0
    try:
        stopped = stack.down()
    except StackError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    what = {"local": "stopped ", "docker": "removed the containers of ",
            "swarm": "removed the Swarm services "}[stack.mode]
    print("down: " + what + (", ".join(stopped) if stopped else "nothing"))
    return 0


def cmd_status(args) -> int:
    from testbed.stack.factory import detect
    stack = detect()
    st = stack.status() if stack else {"mode": None, "up": False, "entry_points": {}, "haproxy": None,
                                       "locust": [], "replicas": []}
    if args.json:
        print(json.dumps(st, indent=1))
        return 0 if st["up"] else 3
    if stack is None:
        print("status: down (start it with ./testbed up, or ./testbed up --docker)")
        return 3
    where = {"local": "local processes", "docker": "containers, docker compose project",
             "swarm": "Docker Swarm stack"}[st["mode"]]
    print(f"status: {'up' if st['up'] else 'HAProxy NOT running'} ({where})")
    _print_entry_points(st["entry_points"], {r["tier"] for r in st["replicas"]})
    if st["locust"]:
        alive = sum(p["alive"] for p in st["locust"])
        print(f"  locust: {alive}/{len(st['locust'])} processes alive (master + workers)")
    where_col = "pid / port" if st["mode"] == "local" else "container / address"
    width = max([len(where_col)] + [len(f"{r['container']} / {r['address'] or '-'}") for r in st["replicas"]
                                    if st["mode"] != "local"])
    node_col = st["mode"] == "swarm"
    print(f"  {'replica':10s} " + (f"{'node':8s} " if node_col else "") +
          f"{where_col:{width}s} {'process':8s} {'health':8s} {'haproxy':10s} {'sessions':8s} cpu quota")
    for tier, n in (st.get("elsewhere") or {}).items():
        print(f"  {tier}: {n} replica(s) on nodes whose engine is not reachable from here (not inspected)")
    for r in st["replicas"]:
        place = f"{r['pid']} / {r['port']}" if st["mode"] == "local" else f"{r['container']} / {r['address'] or '-'}"
        print(f"  {r['tier'] + '-' + str(r['replica']):10s} " + (f"{r['node'] or '-':8s} " if node_col else "") +
              f"{place:{width}s} {'alive' if r['alive'] else 'DEAD':8s} {'ok' if r['healthy'] else 'FAIL':8s} "
              f"{r['haproxy']:10s} {r['sessions']:<8d} {_quota_text(r.get('cpu_quota'))}")
    others = [(p["name"], p.get("cpu_quota")) for p in ([{"name": "haproxy", **st["haproxy"]}] if st["haproxy"]
                                                        else []) + st["locust"]]
    if any(q for _, q in others):
        print("  cpu quota: " + ", ".join(f"{n} {_quota_text(q)}" for n, q in others))
    if node_col and (st.get("haproxy") or {}).get("node"):
        print(f"  haproxy on {st['haproxy']['node']}")
    return 0 if st["up"] else 3


def _quota_text(cores: float | None) -> str:
    return f"{cores:g} core" + ("s" if cores != 1 else "") if cores else "-"


def cmd_scale(args) -> int:
    from testbed import tiers
    from testbed.procs import ProcError
    from testbed.stack.interface import StackError
    from testbed.stack.factory import detect
    stack = detect()
    if stack is None:
        print("testbed: scale: the stack is not up; start it with ./testbed up", file=sys.stderr)
        return 1
    allowed = (*tiers.TIERS, "locust-worker") if stack.mode != "local" else tiers.TIERS
    for spec in args.spec:
        name, _, n = spec.partition("=")
        if name not in allowed or not n.isdigit() or int(n) > tiers.MAX_REPLICAS:
            print(f"testbed: scale: expected TIER=N with TIER in {', '.join(allowed)} and "
                  f"N in 0..{tiers.MAX_REPLICAS}, got {spec!r}", file=sys.stderr)
            return 2
        if stack.mode == "local":
            from testbed import build
            build.ensure([name])
        try:
            before, after = stack.scale(name, int(n))
        except (StackError, ProcError, OSError) as e:
            print(f"testbed: {e}", file=sys.stderr)
            return 1
        print(f"scale: {name} {before} -> {after}")
    return 0


def cmd_logs(args) -> int:
    from testbed.stack.interface import StackError
    try:
        return _stack().logs(args.tier, args.lines, args.follow)
    except StackError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2


def cmd_fault(args) -> int:
    from testbed.faults.command import command
    return command(args)


def cmd_cluster(args) -> int:
    from testbed.swarm import cluster
    return cluster.command(args)


def cmd_test(args) -> int:
    from testbed import testcmd
    return testcmd.main(args)


def cmd_bench(args) -> int:
    from testbed import prereqs
    from testbed.bench import services as bench
    bad = [f"--{k} {getattr(args, k)}" for k in ("duration", "repeat", "warmup", "connections")
           if getattr(args, k) < 1]
    if bad:
        print(f"testbed: bench: {', '.join(bad)}: must be at least 1", file=sys.stderr)
        return 2
    prereqs.ensure()
    return bench.main(args)


def cmd_run(args) -> int:
    from testbed import prereqs
    from testbed.run import command
    prereqs.ensure()
    return command.main(args)


def cmd_analysis(args) -> int:
    from analysis.cli import main as analysis_main
    return analysis_main([args.verb, *args.args], prog="testbed")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="testbed", usage="testbed [-h] VERB ...",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    # the verbs are listed by what they do (VERB_GROUPS), in the description, not argparse's one list
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True, help=argparse.SUPPRESS)
    helps: dict[str, str] = {}

    def add_verb(name: str, help: str, **kw) -> argparse.ArgumentParser:
        helps[name] = help
        return sub.add_parser(name, help=help, **kw)

    s = add_verb("setup", help="install the system packages the testbed needs (apt-get as root; "
                                     "up, test, build, bench and run do it too when something is missing)")
    s.add_argument("-y", "--yes", action="store_true", help="accepted for scripts: setup never asks")
    s.set_defaults(func=cmd_setup)

    s = add_verb("build", help="build the Java tiers (Maven) and the gSOAP tools (CMake)")
    s.add_argument("--force", action="store_true", help="rebuild even if nothing changed")
    s.set_defaults(func=cmd_build)

    s = add_verb("up", help="build what is missing and start the stack on loopback",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Start every tier as local processes behind HAProxy and wait until "
                                   "all are healthy. Knobs: .env (docs in the file).",
                       epilog="CPU quotas (one machine per tier, results comparable across hosts): "
                              "CPUS_<TIER> in .env\nor the environment, or --cpus; the same knobs as "
                              "compose's cpus. Examples:\n"
                              "  CPUS_CLONE=0.5 ./testbed up          every clone replica gets half a core\n"
                              "  ./testbed up --cpus clone=0.5,axis=0.5 --clones 2\n"
                              "Local processes get a cgroup each (v2 cpu.max or v1 cpu.cfs_quota_us): root, "
                              "or a delegated\ncgroup (docs/tiers.md); ./testbed status shows each "
                              "replica's quota.")
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
    s.add_argument("--cpus", default=None, metavar="TIER=CORES,...",
                   help="CPU quota per replica in cores, e.g. clone=0.5,axis=1 (TIER: front, clone, axis, "
                        "gsoap, haproxy, locust); sets CPUS_<TIER> over .env (default: .env's, 0 = none)")
    s.add_argument("--no-locust", action="store_true",
                   help="do not start the Locust web UI (master + LOCUST_WORKERS workers)")
    s.add_argument("--monitoring", action="store_true",
                   help="also start Prometheus (every replica's metrics, recording rules for each tier's "
                        "utilisation and demand; docs/monitoring.md) and the CPU exporter; with --docker: "
                        "compose's monitoring profile")
    s.add_argument("--tracing", action="store_true",
                   help="also start Zipkin and trace a sampled share of requests through every tier (Locust's "
                        "--trace-sample, default 1 %%; docs/tracing.md); with --docker: compose's tracing profile")
    s.add_argument("--docker", action="store_true",
                   help="start the stack as containers (docker compose; docs/docker.md) instead of "
                        "local processes; status/scale/logs/down then act on the containers")
    s.add_argument("--swarm", action="store_true",
                   help="deploy the stack to the Docker Swarm this node manages, or to the cluster of "
                        "./testbed cluster up (docker stack deploy; docs/docker.md); status/scale/logs/down "
                        "then act on its services")
    s.add_argument("--spread", choices=("tier-per-node",), default=None,
                   help="with --swarm: front, clone and axis each on a node of its own (docs/docker.md)")
    s.add_argument("--placement", default=None, metavar="TIER=NODE,...",
                   help="with --swarm: the nodes a tier may run on, e.g. front=node-2,clone=node-3+node-4")
    s.set_defaults(func=cmd_up)

    s = add_verb("cluster", help="a multi-node Docker Swarm on this machine (Docker-in-Docker nodes)",
                       description="up: N nodes, each a container with its own Docker engine, network and CPU "
                                   "quota, joined into one Swarm, with a private registry on the manager holding "
                                   "the stack's images; down: remove every node, network and volume; status: "
                                   "the nodes and the tasks on each (docs/docker.md, 'A cluster on one machine')")
    from testbed.swarm.cluster import add_arguments as cluster_arguments
    cluster_arguments(s)
    s.set_defaults(func=cmd_cluster)

    s = add_verb("down", help="stop everything `up` and `scale` started, and nothing else")
    s.set_defaults(func=cmd_down)

    s = add_verb("status", help="every replica: port, pid, health, HAProxy state")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_status)

    s = add_verb("scale", help="add or remove replicas while load runs (TIER=N ...)",
                       description="Start new replicas and reload HAProxy seamlessly, or drain replicas "
                                   "in HAProxy, wait for their requests to finish, then stop them.")
    s.add_argument("spec", nargs="+", metavar="TIER=N")
    s.set_defaults(func=cmd_scale)

    s = add_verb("logs", help="the log of every replica of a tier (or haproxy)")
    s.add_argument("tier")
    s.add_argument("-f", "--follow", action="store_true")
    s.add_argument("-n", "--lines", type=int, default=40)
    s.set_defaults(func=cmd_logs)

    s = add_verb("fault", help="kill, pause or slow one replica (now or later, for a while)",
                       description="Fault injection (cli/testbed/faults/): kill = SIGKILL (with --for, "
                                   "restarted after D s); pause = SIGSTOP for D s; slow = runs only --speed of "
                                   "the time for D s. Prints when HAProxy took it out of rotation.")
    from testbed.faults.command import add_arguments as fault_arguments
    fault_arguments(s)
    s.set_defaults(func=cmd_fault)

    s = add_verb("test", help="build everything and run every test (JUnit, ctest, pytest)",
                       description="Arguments after the verb (and its own options) go to pytest, "
                                   "e.g. ./testbed test -k interop -x")
    from testbed.testcmd import add_arguments as test_arguments
    test_arguments(s)
    s.set_defaults(func=cmd_test)

    s = add_verb("bench", help="measure service throughput vs this machine's HTTP bound")
    s.add_argument("--duration", type=int, default=10, help="seconds per measurement (default 10)")
    s.add_argument("--connections", type=int, default=16, help="concurrent keep-alive connections")
    s.add_argument("--repeat", type=int, default=3, help="runs of every measurement (median reported)")
    s.add_argument("--warmup", type=int, default=3, metavar="S",
                   help="seconds of one warm-up run: before measuring, every target is loaded in runs "
                        "of S seconds until it stops speeding up (JIT, pools); not part of the results "
                        "(default 3)")
    s.add_argument("--ops", default="ping,sendInts:1000",
                   help="operations and item counts, e.g. ping,sendInts:1000,sendDoubles:100000 "
                        "(default ping,sendInts:1000)")
    s.add_argument("--serializers", default="generated,tuned",
                   help="gSOAP's array serializers to measure side by side: the stack's gSOAP runs its "
                        "GSOAP_SERIALIZERS, bench starts one more gSOAP process for each other one "
                        "(local mode, direct route) (default generated,tuned)")
    s.add_argument("-o", "--output", default=None, help="result folder (default results/bench-<time>)")
    s.set_defaults(func=cmd_bench)

    s = add_verb("run", help="run an experiment, a study or a benchmark (loadgen/experiments/) into results/",
                       description="Drive an experiment of loadgen/experiments/ against the local stack "
                                   "(started if down) and write results/<name>-<time>/ with a report. "
                                   "docs/experiments.md says what each measures and how to edit one.")
    from testbed.run.command import add_arguments
    add_arguments(s)
    s.set_defaults(func=cmd_run)

    for verb, text in (("report", "regenerate steps.csv, summary.json, plots and report.html of a result folder"),
                       ("analyze", "apply the segment or capacity laws to numbers you give"),
                       ("traces", "where the time goes, from a traced run's spans (docs/tracing.md)"),
                       ("predict", "predict another configuration from a result folder's baseline (docs/predict.md)")):
        s = add_verb(verb, help=text, add_help=False, prefix_chars="\0",
                           description=f"./testbed {verb} --help for the options (the analysis package's CLI)")
        s.add_argument("args", nargs=argparse.REMAINDER)
        s.set_defaults(func=cmd_analysis)
    p.description = __doc__ + "\n" + verbs_by_group(helps)
    return p


def verbs_by_group(helps: dict[str, str]) -> str:
    """The verbs under VERB_GROUPS' headings, each with its one-line help, wrapped to the terminal."""
    import shutil
    import textwrap
    width = max(60, min(100, shutil.get_terminal_size().columns)) - 14
    grouped = [v for _, verbs in VERB_GROUPS for v in verbs]
    ungrouped = tuple(sorted(set(helps) - set(grouped)))      # a verb added without a group: never lost
    out = []
    for title, verbs in (*VERB_GROUPS, *((("other", ungrouped),) if ungrouped else ())):
        out.append(f"{title}:")
        for v in (v for v in verbs if v in helps):
            lines = textwrap.wrap(helps[v], width) or [""]
            out.append(f"  {v:10s}  {lines[0]}")
            out += [" " * 14 + line for line in lines[1:]]
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if argv[:1] == ["test"] and argv[1:] not in (["-h"], ["--help"]):
        # test's own options first (--quick, --workers N), then everything goes to pytest,
        # options too (argparse's REMAINDER refuses a leading option: ./testbed test -k interop -x)
        from testbed.testcmd import split_options
        own, rest = split_options(argv[1:])
        args = parser.parse_args(["test", *own])
        args.pytest_args = rest
    else:
        args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        print("\ntestbed: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:            # e.g. ./testbed status | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
