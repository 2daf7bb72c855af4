"""A multi-node Swarm on this machine, checked end to end and measured (CI: .ci/run).

    .venv/bin/python tests/docker/check_cluster.py                 # 3 nodes, the CI check
    .venv/bin/python tests/docker/check_cluster.py --nodes 4 --node-cpus 1.0 --experiment clones-cluster

0. a cluster an interrupted earlier run left behind (the same name) is taken down first, and
   said so: what it left is not this run's to account for;
1. what the host has before: iptables rules (`iptables-save`, counters left out) and every
   container, network and volume;
2. `./testbed cluster up --nodes N` (timed: the wall time of a cold or warm start, and which);
3. `./testbed up --swarm --spread tier-per-node --no-locust` (timed); `./testbed status --json`:
   every replica has its node, and front, clone and axis run on three different nodes;
4. /seg/5 through HAProxy on this host's loopback for both backends;
5. `./testbed run <experiment> --quick`: complete, mode swarm, cpu.csv with a row for every
   tier and every node, the report's "CPU per node" table;
6. `./testbed cluster down` (timed): nothing labelled left, no container, network or volume
   that was not there before, and the iptables rules as before.

Traffic goes only to 127.0.0.1 and to the cluster's own nodes; every wait is bounded. The
figures go to results/cluster-check-<time>/figures.json.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "cli"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_stack import CheckFailed, Stack, log  # noqa: E402
from testbed.stacks import cluster  # noqa: E402
from testbed.config import StackConfig  # noqa: E402


def run(argv: list[str], timeout: float, check: bool = True) -> subprocess.CompletedProcess:
    log("$ " + " ".join(argv))
    r = subprocess.run(argv, cwd=ROOT, text=True, capture_output=True, timeout=timeout)
    print(r.stdout[-4000:] + r.stderr[-4000:], flush=True)
    if check and r.returncode != 0:
        raise CheckFailed(f"{' '.join(argv)} exited {r.returncode}")
    return r


def iptables() -> list[str]:
    """The host's rules without their counters (what `cluster down` must leave as it found)."""
    r = subprocess.run(["iptables-save"], text=True, capture_output=True, timeout=60)
    return sorted(line for line in r.stdout.splitlines() if line and not line.startswith(("#", ":")))


def host_objects() -> dict[str, set[str]]:
    out = {}
    for kind, args in (("containers", ["ps", "-aq", "--no-trunc"]), ("networks", ["network", "ls", "-q"]),
                       ("volumes", ["volume", "ls", "-q"])):
        out[kind] = set(subprocess.run(["docker", *args], text=True, capture_output=True, timeout=60).stdout.split())
    return out


def check_placement(figures: dict) -> None:
    st = json.loads(run([str(ROOT / "testbed"), "status", "--json"], 120).stdout)
    if st.get("mode") != "swarm" or not st.get("up"):
        raise CheckFailed(f"./testbed status: expected an up swarm stack, got {st.get('mode')}, up={st.get('up')}")
    where = {r["tier"]: r["node"] for r in st["replicas"]}
    figures["placement"] = {f"{r['tier']}-{r['replica']}": r["node"] for r in st["replicas"]}
    figures["haproxy_node"] = (st.get("haproxy") or {}).get("node")
    log(f"  replicas on: {figures['placement']}, haproxy on {figures['haproxy_node']}")
    if any(not r.get("node") for r in st["replicas"]):
        raise CheckFailed(f"a replica without its node: {st['replicas']}")
    if len({where.get("front"), where.get("clone"), where.get("axis")}) != 3:
        raise CheckFailed(f"front, clone and axis are not on three different nodes: {where}")


def check_experiment(name: str, out: Path, figures: dict) -> None:
    t0 = time.monotonic()
    run([str(ROOT / "testbed"), "run", name, "--quick", "--results", str(out)], 1500)
    figures["experiment_seconds"] = round(time.monotonic() - t0, 1)
    folder = sorted(out.glob(f"{Path(name).stem}-*"))[-1]
    exp = json.loads((folder / "experiment.json").read_text())
    if exp["status"] != "complete" or exp["mode"] != "swarm":
        raise CheckFailed(f"{folder}: status {exp['status']}, mode {exp['mode']}")
    nodes = set((exp["stack"].get("cluster") or {}).get("nodes") or {})
    for run_dir in sorted((folder / "runs").iterdir()):
        seen = {tuple(line.split(",")[1:3]) for line in (run_dir / "cpu.csv").read_text().splitlines()[1:]}
        tiers = {t for t, _ in seen}
        missing = {"front", "clone", "axis", "haproxy", "loadgen"} - tiers
        missing |= {f"node {n}" for n in nodes if ("node", n) not in seen}
        planned = json.loads((run_dir / "run.json").read_text()).get("tiers") or {}
        clones = int(planned.get("clone", 1))
        missing |= {f"clone {i}" for i in range(1, clones + 1) if ("clone", str(i)) not in seen}
        missing |= {f"the thread dump of clone {i}" for i in range(1, clones + 1)
                    if not (run_dir / f"threaddump-clone-{i}.txt").is_file()}
        if missing:
            raise CheckFailed(f"{run_dir.name}: missing {sorted(missing)} (cpu.csv samples, thread dumps)")
    summary = json.loads((folder / "summary.json").read_text())
    scaled = [r for r in summary["runs"] if r.get("speedup") is not None]
    if not scaled or not all(r["speedup"] > 0 for r in scaled):
        raise CheckFailed(f"{folder}: no client tier scaled with a speed-up: {summary['runs']}")
    figures["client_tier_speedups"] = {r["id"]: round(r["speedup"], 2) for r in scaled}
    figures["experiment"] = {"folder": str(folder), "runs": {r["id"]: {
        "max_throughput": r["max_throughput"], "bottleneck": r["bottleneck"]["text"]} for r in summary["runs"]},
        "nodes": summary.get("nodes")}
    if not summary.get("nodes") or "CPU per node" not in (folder / "report.html").read_text():
        raise CheckFailed(f"{folder}: no CPU per node in the summary or the report")
    log(f"  experiment complete in {figures['experiment_seconds']} s: " +
        ", ".join(f"{k} {v['max_throughput']:.0f}/s" for k, v in figures["experiment"]["runs"].items()
                  if v["max_throughput"]))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--node-cpus", type=float, default=None)
    p.add_argument("--experiment", default="clones-cluster", help="run with --quick on the cluster")
    p.add_argument("--keep", action="store_true", help="leave the cluster up (debugging)")
    p.add_argument("-o", "--output", default=None, help="result folder (default results/cluster-check-<time>)")
    args = p.parse_args(argv)
    out = Path(args.output or ROOT / "results" / f"cluster-check-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    cfg = StackConfig.load()
    stack = Stack({k: v for k, v in cfg.entry_ports().items()})
    figures: dict = {"nodes": args.nodes, "node_cpus": args.node_cpus}
    stale = cluster.owned(cluster.name_of(cfg))
    if not cluster.nothing_left(stale):
        log(f"  an earlier run left a cluster named {cluster.name_of(cfg)!r} ({stale}): taking it down first")
        figures["stale_cluster_removed"] = stale
        run([str(ROOT / "testbed"), "cluster", "down"], 600)
    rules_before, objects_before = iptables(), host_objects()
    t_all = time.monotonic()
    ok = True
    try:
        node_image = subprocess.run(["docker", "image", "inspect", "--format", "{{.Id}}", cluster.node_image(cfg)],
                                    text=True, capture_output=True, timeout=30).returncode == 0
        figures["cluster_up_start"] = "warm (node image built)" if node_image else "cold (node image built now)"
        t0 = time.monotonic()
        run([str(ROOT / "testbed"), "cluster", "up", "--nodes", str(args.nodes),
             *(["--node-cpus", str(args.node_cpus)] if args.node_cpus else [])], 2400)
        figures["cluster_up_seconds"] = round(time.monotonic() - t0, 1)
        t0 = time.monotonic()
        run([str(ROOT / "testbed"), "up", "--swarm", "--spread", "tier-per-node", "--no-locust"], 1200)
        figures["swarm_up_seconds"] = round(time.monotonic() - t0, 1)
        check_placement(figures)
        for backend in ("axis", "gsoap"):
            stack.seg5(backend, f"HAProxy on 127.0.0.1:{stack.ports['WEB_PORT']}", 300)
        check_experiment(args.experiment, out, figures)
    except (AssertionError, subprocess.TimeoutExpired) as e:
        log(f"FAILED: {e}")
        ok = False
    finally:
        if not args.keep:
            t0 = time.monotonic()
            r = run([str(ROOT / "testbed"), "cluster", "down"], 600, check=False)
            figures["cluster_down_seconds"] = round(time.monotonic() - t0, 1)
            left = {k: sorted(v - objects_before[k]) for k, v in host_objects().items()}
            added = sorted(set(iptables()) - set(rules_before))
            removed = sorted(set(rules_before) - set(iptables()))
            figures["left_after_down"] = {**left, "iptables_added": added, "iptables_removed": removed}
            if r.returncode != 0 or any(left.values()) or added or removed:
                log(f"FAILED: cluster down left {figures['left_after_down']}")
                ok = False
            else:
                log("  cluster down: no container, network, volume or iptables rule left")
    figures["total_seconds"] = round(time.monotonic() - t_all, 1)
    figures["ok"] = ok
    (out / "figures.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(json.dumps({k: v for k, v in figures.items() if k != "experiment"}, indent=1))
    log(f"{'ok' if ok else 'FAILED'}; figures in {out / 'figures.json'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
