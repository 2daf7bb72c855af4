"""testbed: start a real multi-tier SOAP system on this machine, load it, and find its
bottleneck.

  ./testbed up          build what is missing and start the stack (local processes)
  ./testbed test        build everything and run every test
  ./testbed status      every replica, its port, health and HAProxy state
  ./testbed down        stop everything `up` started
"""
from __future__ import annotations

import argparse
import os
import sys

from testbed.stacks import verbs as stack_verbs

VERB_GROUPS = (                       # `./testbed --help` lists the verbs by what they do
    ("the stack", ("up", "status", "scale", "logs", "fault", "down", "cluster")),
    ("experiments and their results", ("run", "report", "compare", "capacity", "predict", "traces", "analyze")),
    ("your own SOAP service", ("service",)),
    ("build, test, measure", ("setup", "build", "test", "bench")),
)


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


def cmd_fault(args) -> int:
    from testbed.faults.command import command
    return command(args)


def cmd_cluster(args) -> int:
    from testbed.stacks import cluster
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
    from testbed import runcmd as command
    prereqs.ensure()
    return command.main(args)


def cmd_capacity(args) -> int:
    from testbed import prereqs
    from testbed import capacity
    prereqs.ensure()
    return capacity.main(args)


def cmd_service(args) -> int:
    from testbed.ownservice import command
    return command.main(args)


def service_doc() -> str:
    from testbed.ownservice import command
    return command.__doc__


def capacity_doc() -> str:
    from testbed import capacity
    return capacity.__doc__.split("\n\n")[0]


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
    stack_verbs.add_up_arguments(s)
    s.set_defaults(func=stack_verbs.up)

    s = add_verb("cluster", help="a multi-node Docker Swarm on this machine (Docker-in-Docker nodes)",
                       description="up: N nodes, each a container with its own Docker engine, network and CPU "
                                   "quota, joined into one Swarm, with a private registry on the manager holding "
                                   "the stack's images; down: remove every node, network and volume; status: "
                                   "the nodes and the tasks on each (docs/docker.md, 'A cluster on one machine')")
    from testbed.stacks.cluster import add_arguments as cluster_arguments
    cluster_arguments(s)
    s.set_defaults(func=cmd_cluster)

    s = add_verb("down", help="stop everything `up` and `scale` started, and nothing else")
    s.set_defaults(func=stack_verbs.down)

    s = add_verb("status", help="every replica: port, pid, health, HAProxy state")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=stack_verbs.status)

    s = add_verb("scale", help="add or remove replicas while load runs (TIER=N ...)",
                       description="Start new replicas and reload HAProxy seamlessly, or drain replicas "
                                   "in HAProxy, wait for their requests to finish, then stop them.")
    s.add_argument("spec", nargs="+", metavar="TIER=N")
    s.set_defaults(func=stack_verbs.scale)

    s = add_verb("logs", help="the log of every replica of a tier (or haproxy)")
    s.add_argument("tier")
    s.add_argument("-f", "--follow", action="store_true")
    s.add_argument("-n", "--lines", type=int, default=40)
    s.set_defaults(func=stack_verbs.logs)

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
    from testbed.runcmd import add_arguments
    add_arguments(s)
    s.set_defaults(func=cmd_run)

    s = add_verb("service", help="read your SOAP service's WSDL: a request template per operation, checked against "
                                 "its schema (docs/own-service.md)",
                 description=service_doc(), formatter_class=argparse.RawDescriptionHelpFormatter)
    from testbed.ownservice.command import add_arguments as service_arguments
    service_arguments(s)
    s.set_defaults(func=cmd_service)

    s = add_verb("capacity", help="the smallest configuration that meets service levels: chosen by the model, "
                                  "measured (docs/compare.md)",
                 description=capacity_doc())
    from testbed.capacity import add_arguments as capacity_arguments
    capacity_arguments(s)
    s.set_defaults(func=cmd_capacity)

    for verb, text in (("report", "regenerate steps.csv, summary.json, plots and report.html of a result folder"),
                       ("analyze", "apply the segment or capacity laws to numbers you give"),
                       ("traces", "where the time goes, from a traced run's spans (docs/tracing.md)"),
                       ("compare", "result folders of one experiment against the first: what changed, where; "
                                   "exit 1 on a regression (docs/compare.md)"),
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
