"""An experiment on a stack deployed with `docker stack deploy` (check_stack.py's Swarm phase):
`./testbed run` finds the Swarm stack by itself, samples every task's cgroup and takes thread
dumps; the result folder must say so. One run: scaling the client tier of a Swarm stack from an
experiment (c1 -> c2, the thread dump of each clone, the speed-up) is checked on the multi-node
cluster (check_cluster.py, clones-cluster --quick), which CI runs after this. The run asks for
the stack as deployed (no demand knob, every tier at one replica), so that nothing is restarted
before it or put back after it: reconfiguring a Swarm stack from an experiment (a restart with a
knob, a scale, the restore at the end) is what the cluster check's experiment does, and this
one took 50 s more doing it again (CI rehearsal 2026-11-28: 27 s before the run, 25 s after)."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOML = """name = "swarm-check"
kind = "clones"
description = "check_stack.py: an experiment on the Swarm stack"
[load]
users = [4, 8]
step_seconds = 6
warmup_seconds = 2
hold_seconds = 3
workers = 1
[defaults]
tiers = { front = 1, clone = 1, axis = 1, gsoap = 1 }
[[runs]]
id = "c1"
"""


def run_on_swarm(workdir: Path, timeout: float = 600) -> dict:
    """Run the experiment; return figures; raise AssertionError naming what is wrong."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "swarm-check.toml").write_text(TOML)
    t0 = time.monotonic()
    r = subprocess.run([str(ROOT / "testbed"), "run", str(workdir / "swarm-check.toml"), "--results",
                        str(workdir)], cwd=ROOT, text=True, capture_output=True, timeout=timeout)
    wall = round(time.monotonic() - t0, 1)
    folders = sorted(workdir.glob("swarm-check-*"))
    assert r.returncode == 0 and folders, f"./testbed run exited {r.returncode}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
    folder = folders[-1]
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "complete" and exp["mode"] == "swarm", (exp["status"], exp["mode"])
    run = folder / "runs" / "c1-r0"
    seen = {tuple(line.split(",")[1:3]) for line in (run / "cpu.csv").read_text().splitlines()[1:]}
    want = {("front", "1"), ("clone", "1"), ("axis", "1"), ("haproxy", "1")}
    assert want <= seen, f"c1-r0: no CPU samples of {sorted(want - seen)}"
    assert (run / "threaddump-clone-1.txt").is_file(), "c1-r0: no thread dump of the clone"
    summary = json.loads((folder / "summary.json").read_text())
    tput = next(x["max_throughput"] for x in summary["runs"] if x["id"] == "c1-r0")
    assert tput and tput > 0, summary["runs"]
    return {"folder": str(folder), "wall_seconds": wall, "max_throughput": round(tput, 1)}
