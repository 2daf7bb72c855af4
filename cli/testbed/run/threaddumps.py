"""Thread dumps of the Java tiers at a run's plateau: `jstack <pid>` of every replica of the
tiers the run's path reaches, saved raw as runs/<id>/threaddump-<tier>-<replica>.txt.

They are taken while the shape holds the last step's load (the step with the most users) just
after that step's measurement window has closed, so the dump's own cost (a short JVM
safepoint, and jstack's CPU) never falls inside a measured window."""
from __future__ import annotations

import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

JAVA_TIERS = ("front", "clone", "axis")
TIMEOUT_S = 20.0


def tiers_reached(path: int, backend: str) -> list[str]:
    """Java tiers a request to /seg/<path> passes through."""
    if path < 5:
        return ["front"]
    return ["front", "clone"] + (["axis"] if backend == "axis" else [])


def take(replicas: list[dict], tiers: list[str], run_dir: Path) -> dict[str, str]:
    """replicas: Stack.status()["replicas"] rows. Returns {file name or tier-replica: outcome}."""
    if not shutil.which("jstack"):
        return {"jstack": "not found (install a JDK): no thread dumps"}
    todo = [r for r in replicas if r["tier"] in tiers and r["tier"] in JAVA_TIERS and r["alive"]]

    def one(r: dict) -> tuple[str, str]:
        name = f"threaddump-{r['tier']}-{r['replica']}.txt"
        t0 = time.monotonic()
        try:
            p = subprocess.run(["jstack", str(r["pid"])], capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return name, f"jstack timed out after {TIMEOUT_S:.0f} s"
        if p.returncode != 0 or "Full thread dump" not in p.stdout:
            return name, f"jstack failed: {(p.stderr or p.stdout).strip()[:200]}"
        (run_dir / name).write_text(p.stdout)
        return name, f"taken at {time.time():.3f} in {time.monotonic() - t0:.1f} s"

    if not todo:
        return {}
    with ThreadPoolExecutor(max_workers=min(4, len(todo))) as ex:
        return dict(ex.map(one, todo))
