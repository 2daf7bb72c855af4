"""The stack's verbs: `./testbed up`, `down`, `status`, `scale` and `logs`, on whichever stack runs
(local processes, compose containers or a Swarm stack: testbed.stacks.factory picks it). The
argument parser is testbed.cli's; each verb takes its parsed arguments and returns the exit status."""
from __future__ import annotations

import json
import sys
import time

TIER_FLAGS = {"front": "--fronts", "clone": "--clones", "axis": "--axis", "gsoap": "--gsoap"}
CLIENT_MODES = ("singleton", "request", "pool")


def add_up_arguments(s) -> None:
    """`up`'s options (its help text and description are the CLI's)."""
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
    s.add_argument("--service", default=None, metavar="WSDL",
                   help="your own SOAP service, by its WSDL's http URL: behind HAProxy's /own, called by the "
                        "client tier as /seg/5?backend=own (docs/own-service.md)")
    s.add_argument("--operation", default=None, metavar="NAME",
                   help="with --service: the operation to call (needed when the WSDL has several)")
    s.add_argument("--payload", default=None, metavar="FILE",
                   help="with --service: its request template (./testbed service sample writes one; default: "
                        "the schema's sample)")
    s.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="with --service: a parameter of the template (${NAME}); n, the arrays' size, is each "
                        "request's own")
    s.add_argument("--service-pid", type=int, default=None, metavar="PID",
                   help="with --service, when it runs on this machine: its process, whose CPU is then measured "
                        "with the tiers' (tier own)")
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


def _stack(docker: bool | None = None):
    """The stack to act on: the one that runs (local or containers), else a local one
    (docker=True: a containerized one). Exits naming the fix when that cannot be."""
    from testbed.config import ConfigError, StackConfig
    from testbed.stack import StackError
    from testbed.stacks.factory import open_stack
    try:
        return open_stack(StackConfig.load(), docker)
    except (ConfigError, StackError) as e:
        raise SystemExit(f"testbed: {e}")


def up(args) -> int:
    from testbed import tiers
    from testbed.observe.monitoring import MonitoringError
    from testbed.procs import ProcError
    from testbed.stack import StackError
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
        if not 1 <= args.pool_size <= tiers.MAX_POOL_SIZE:
            print(f"testbed: up: --pool-size {args.pool_size}: clients per clone must be 1..{tiers.MAX_POOL_SIZE}",
                  file=sys.stderr)
            return 2
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
    if not args.service and (args.operation or args.payload or args.param or args.service_pid):
        print("testbed: up: --operation, --payload and --param describe the request to your own service: "
              "give its WSDL with --service URL", file=sys.stderr)
        return 2
    stack = _stack(docker=args.docker or args.swarm)
    if args.service and stack.mode != "local":
        print("testbed: up: --service runs with the local stack (./testbed up --service URL) for now",
              file=sys.stderr)
        return 2
    if args.service and not stack.running():
        from pathlib import Path

        from testbed.ownservice import command as own_command, wiring, wsdl
        try:
            given = own_command.params(args.param)
            given.pop("n")
            overrides.update(wiring.prepare(args.service, args.operation,
                                            Path(args.payload) if args.payload else None, given,
                                            stack.cfg.state_dir / "own", pid=args.service_pid))
        except wsdl.ServiceError as e:
            print(f"testbed: up: --service: {e}", file=sys.stderr)
            return 2
    if args.swarm and not stack.running():
        from testbed.stacks.swarm import SwarmStack
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


def down(args) -> int:
    from testbed.stack import StackError
    from testbed.stacks.factory import detect
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


def status(args) -> int:
    from testbed.stacks.factory import detect
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


def scale(args) -> int:
    from testbed import tiers
    from testbed.procs import ProcError
    from testbed.stack import StackError
    from testbed.stacks.factory import detect
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


def logs(args) -> int:
    from testbed.stack import StackError
    try:
        return _stack().logs(args.tier, args.lines, args.follow)
    except StackError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
