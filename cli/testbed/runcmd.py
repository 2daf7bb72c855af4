"""The `run` verb: its arguments and what it does with them."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

EFFICIENCY = "loadgen-efficiency"
OVERHEAD = "monitoring-overhead"
TRACING_OVERHEAD = "tracing-overhead"
BENCHMARKS = (EFFICIENCY, OVERHEAD, TRACING_OVERHEAD)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("experiment", metavar="EXPERIMENT",
                   help="segments | clones | calibration | classic (loadgen/experiments/<name>.toml), a path to "
                        f"an experiment .toml (e.g. your edited copy), or a benchmark: {', '.join(BENCHMARKS)}")
    p.add_argument("--service", default=None, metavar="WSDL",
                   help="run the experiment against your own SOAP service: path 5 calls it (its WSDL's http URL; "
                        "or [service] in the experiment file: docs/own-service.md)")
    p.add_argument("--operation", default=None, metavar="NAME", help="with --service: the operation to call")
    p.add_argument("--service-pid", type=int, default=None, metavar="PID",
                   help="with --service, when it runs on this machine: its process (its CPU is then measured)")
    p.add_argument("--payload", default=None, metavar="FILE",
                   help="with --service: its request template (default: the schema's sample)")
    p.add_argument("--quick", action="store_true",
                   help="the whole experiment in <= 2 minutes at lower resolution (its [quick] table)")
    p.add_argument("--repeat", type=int, default=None, metavar="K",
                   help="run every configuration K times (medians and spread in the report); "
                        f"default 1 (benchmarks: 3 rounds)")
    p.add_argument("--workers", type=int, default=None, metavar="W",
                   help="Locust worker processes (0 = one local process); default: the file's "
                        "[load] workers, \"auto\" = one per core of LOADGEN_CPUS (else every core)")
    p.add_argument("--remote-workers", type=int, default=0, metavar="N",
                   help="also wait for N Locust workers on other hosts, which connect to --master-bind "
                        "(docs/docker.md, 'Experiments on Swarm')")
    p.add_argument("--master-bind", default=None, metavar="HOST:PORT",
                   help="with --remote-workers: where the Locust master listens for them (default: "
                        "loopback and a free port, for this host's workers only)")
    p.add_argument("--results", default=None, metavar="DIR",
                   help="where result folders go (default: results/)")
    p.add_argument("--keep-stack", action="store_true",
                   help="if the experiment starts the stack, leave it running at the end")
    p.add_argument("--docker", action="store_true",
                   help="when no stack runs, start the containerized one (docker compose) instead of "
                        "local processes; a running stack is used in whatever mode it runs")
    p.add_argument("--tracing", action="store_true",
                   help="when no stack runs, start it with tracing on (Zipkin; docs/tracing.md): each run's "
                        "traces (its [load] trace_sample, default 1 %%) go into its folder, and the report "
                        "decomposes the time by tier from them; a running stack must have tracing on already")
    p.add_argument("--no-scale", action="store_true",
                   help="run a scaled service wait (wait_us = \"auto\") as the file's scale.unscaled_wait_us "
                        "instead of choosing it for this host (docs/experiments.md, 'The regime')")
    p.add_argument("--scale-from", default=None, metavar="FOLDER",
                   help="choose the scaled wait from the CPU costs an earlier result folder measured "
                        "(no cost probe)")
    p.add_argument("--profile", default=None, choices=("stack", "classic-system"),
                   help="classic experiments: stack = the stack's own costs (default); classic-system = "
                        "emulated segment demands that give the classic system's shape (experimental: docs/experiments.md)")
    p.add_argument("--slo", default=None, metavar="FILE",
                   help="judge the result against these service levels (slo.toml, docs/compare.md): "
                        "slo.json and slo-junit.xml in the folder; a missed level exits 1")
    p.add_argument("--no-restore", action="store_true",
                   help="if the stack was already up, leave it as the last run configured it "
                        "(default: put replica counts and knobs back)")


def sigterm_as_ctrl_c() -> None:
    """SIGTERM (a CI timeout, `kill`) ends a run like Ctrl-C: finished steps kept, report made.
    The handler raises KeyboardInterrupt itself: a run started in the background by a script
    inherits SIGINT ignored, and a SIGINT sent on to itself would then be lost, and the SIGTERM
    with it."""
    import signal
    import threading

    def on_term(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)


def _benchmark(args, stack, results_dir) -> int:
    if args.experiment == EFFICIENCY:
        from testbed.bench import efficiency
        return efficiency.main(stack, results_dir, quick=args.quick, rounds=args.repeat,
                               keep_stack=args.keep_stack)
    if args.experiment == OVERHEAD:
        from testbed.bench import monitoring_overhead
        return monitoring_overhead.main(stack, results_dir, quick=args.quick, rounds=args.repeat)
    from testbed.bench import tracing_overhead
    return tracing_overhead.main(stack, results_dir, quick=args.quick, rounds=args.repeat)


def _own_service(exp, cfg):
    """The experiment pointed at the user's own service ([service] or --service), its WSDL read and
    its request checked now, before anything starts; None (said why) when it cannot be."""
    from testbed.experiment import ownrun
    from testbed.ownservice import wiring, wsdl
    svc = exp.service
    try:
        knobs = wiring.prepare(svc["wsdl"], svc.get("operation"), Path(svc["payload"]) if svc.get("payload") else None,
                               svc.get("params", {}), cfg.state_dir / "own", pid=svc.get("pid"))
    except wsdl.ServiceError as e:
        print(f"testbed: run: your service: {e}", file=sys.stderr)
        return None
    return ownrun.with_service(exp, knobs, int(svc.get("n", 3)), knobs["OWN_OPERATION"])


def main(args) -> int:
    sigterm_as_ctrl_c()
    from testbed.config import ConfigError, StackConfig
    from testbed.faults.spec import FaultError
    from testbed.experiment import definition
    from testbed.run.runner import RESULTS_DIR, Runner

    results_dir = Path(args.results) if args.results else RESULTS_DIR
    if args.experiment not in BENCHMARKS:
        study = _study(args)
        if study is not None:
            return study
    if args.repeat is None:
        args.repeat = 3 if args.experiment in BENCHMARKS else 1
    if args.repeat < 1:
        print("testbed: run: --repeat must be >= 1", file=sys.stderr)
        return 2
    if args.workers is not None and not 0 <= args.workers <= 64:
        print("testbed: run: --workers must be 0..64", file=sys.stderr)
        return 2
    try:
        cfg = StackConfig.load()
    except ConfigError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
    from testbed.stack import StackError
    from testbed.stacks.factory import open_stack
    try:
        stack = open_stack(cfg, docker=True if args.docker else None)
    except StackError as e:
        print(f"testbed: run: {e}", file=sys.stderr)
        return 2
    if not stack.running() and not args.docker:
        from testbed.swarm import nodes
        if nodes.load(cfg.state_dir):        # a cluster made here and no stack on it yet: deploy there
            from testbed.stacks.swarm import SwarmStack
            stack = SwarmStack(cfg)
    if args.experiment in BENCHMARKS:
        try:
            return _benchmark(args, stack, results_dir)
        except StackError as e:      # the benchmark's own stack could not start (a port in use ...)
            print(f"testbed: run {args.experiment}: {e}", file=sys.stderr)
            return 2
    try:
        exp = definition.load(args.experiment, quick=args.quick, repeat=args.repeat,
                              scaling=not args.no_scale, profile=args.profile)
    except (definition.DefinitionError, FaultError) as e:      # FaultError: a bad [[faults]] entry
        print(f"testbed: run: {e}", file=sys.stderr)
        return 2
    if args.service:
        exp.service = {**exp.service, "wsdl": args.service}
        if args.operation:
            exp.service["operation"] = args.operation
        if args.payload:
            exp.service["payload"] = args.payload
        if args.service_pid is not None:
            exp.service["pid"] = args.service_pid
    elif args.operation or args.payload or args.service_pid is not None:
        print("testbed: run: --operation and --payload describe the request to your own service: give its WSDL "
              "with --service URL", file=sys.stderr)
        return 2
    if exp.service:
        exp = _own_service(exp, cfg)
        if exp is None:
            return 2
    remote = None
    if args.remote_workers or args.master_bind:
        host, _, port = (args.master_bind or "").rpartition(":")
        if not args.remote_workers or not host or not port.isdigit() or not 0 < int(port) < 65536:
            print("testbed: run: --remote-workers N and --master-bind HOST:PORT go together "
                  "(e.g. --remote-workers 4 --master-bind 10.0.0.5:5599)", file=sys.stderr)
            return 2
        from testbed.run.locustrun import RemoteWorkers
        remote = RemoteWorkers(host, int(port), args.remote_workers)
    scale_from = Path(args.scale_from) if args.scale_from else None
    if scale_from is not None and not (scale_from / "experiment.json").is_file():
        print(f"testbed: run: --scale-from {scale_from}: not a result folder (no experiment.json)", file=sys.stderr)
        return 2
    levels = None
    if args.slo:
        from analysis import slo
        try:
            levels = slo.load(args.slo)              # a bad file stops nothing that has run
        except slo.SloError as e:
            print(f"testbed: run: --slo {e}", file=sys.stderr)
            return 2
    runner = Runner(exp, stack, results_dir=results_dir, workers=args.workers,
                    keep_stack=args.keep_stack, restore=not args.no_restore, remote=remote,
                    scale_from=scale_from, tracing=args.tracing)
    try:
        folder = runner.run()
    except KeyboardInterrupt:
        return 130
    status = 0 if runner.meta.get("status") == "complete" else 1
    if levels is not None and folder is not None:
        from analysis import slo
        try:
            shown, miss = slo.check_folder(folder, levels)
        except Exception as e:               # the folder stays; the levels can be judged again with compare
            print(f"testbed: run: --slo: the levels could not be judged: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        print(shown)
        status = max(status, 1 if miss else 0)
    return status


def _study(args) -> int | None:
    """Run the experiment if it is a study (cli/testbed/studies/runner.py); None if it is not."""
    from testbed.experiment import definition
    from testbed.studies import runner as study
    from testbed.run.runner import RESULTS_DIR
    try:
        path = definition.find(args.experiment)
        raw, text = definition.read_toml(path)
    except (definition.DefinitionError, OSError):
        return None                      # the experiment loader says what is wrong
    if not study.is_study(raw):
        return None
    if args.repeat is not None and args.repeat < 1:
        print("testbed: run: --repeat must be >= 1", file=sys.stderr)
        return 2
    try:
        s = study.parse(raw, path, text, quick=args.quick, repeat=args.repeat)
    except study.StudyError as e:
        print(f"testbed: run: {e}", file=sys.stderr)
        return 2
    runner = study.StudyRunner(s, Path(args.results) if args.results else RESULTS_DIR)
    try:
        runner.run()
    except KeyboardInterrupt:
        return 130
    return 0 if runner.meta.get("status") == "complete" else 1
