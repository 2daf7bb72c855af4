"""Thread dumps of the Java tiers at a run's plateau, of every replica of the tiers the run's
path reaches, saved raw as runs/<id>/threaddump-<tier>-<replica>.txt. The stack takes them
(Stack.thread_dump: `jstack <pid>` of a local process, SIGQUIT and the log of a container).

They are taken while the shape holds the last step's load (the step with the most users) just
after that step's measurement window has closed, so the dump's own cost (a short JVM
safepoint, and jstack's CPU) never falls inside a measured window."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from testbed.stack import Stack

JAVA_TIERS = ("front", "clone", "axis")
TIMEOUT_S = 25.0


def tiers_reached(path: int, backend: str) -> list[str]:
    """Java tiers a request to /seg/<path> passes through."""
    if path < 5:
        return ["front"]
    return ["front", "clone"] + (["axis"] if backend == "axis" else [])


def take(stack: Stack, replicas: list[dict], tiers: list[str], run_dir: Path) -> dict[str, str]:
    """replicas: Stack.status()["replicas"] rows. Returns {file name: outcome}."""
    todo = [r for r in replicas if r["tier"] in tiers and r["tier"] in JAVA_TIERS and r["alive"]]

    def one(r: dict) -> tuple[str, str]:
        name = f"threaddump-{r['tier']}-{r['replica']}.txt"
        t0 = time.monotonic()
        try:
            text = stack.thread_dump(r)
        except Exception as e:          # one replica's failure must not lose the others'
            return name, f"failed: {e}"[:300]
        (run_dir / name).write_text(text)
        return name, f"taken at {time.time():.3f} in {time.monotonic() - t0:.1f} s"

    if not todo:
        return {}
    with ThreadPoolExecutor(max_workers=min(4, len(todo))) as ex:
        return dict(ex.map(one, todo))
