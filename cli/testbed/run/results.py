"""The raw files of a result folder that the runner writes (format: docs/results.md):
experiment.json and runs/<id>/run.json, each rewritten atomically (name.tmp, then rename)
whenever something happens, so a Ctrl-C or a crash leaves what had happened."""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from testbed import ROOT

FORMAT = 1
STEP_LOG = "steps.jsonl"
# what an adaptive step's end record adds (loadgen/shapes.py): kept in run.json's steps
STEP_EXTRA_KEYS = ("ended_by", "shape_samples", "shape_throughput", "shape_ci", "ramp_stopped")
LOCUST_PREFIX = "locust"          # --csv <run_dir>/locust -> locust_stats.csv, ...


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def new_folder(results_dir: Path, name: str, started: float) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(started))
    folder = results_dir / f"{name}-{stamp}"
    n = 1
    while folder.exists():                 # two experiments started in one second
        n += 1
        folder = results_dir / f"{name}-{stamp}-{n}"
    (folder / "runs").mkdir(parents=True)
    return folder


def cpu_list_text(cpus: set[int] | None) -> str:
    """{0, 1, 2, 5} -> "0-2,5"."""
    if not cpus:
        return ""
    out, run = [], []
    for c in sorted(cpus):
        if run and c != run[-1] + 1:
            out.append(run)
            run = []
        run.append(c)
    out.append(run)
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in out)


def cpu_affinity(stack_cpus: set[int] | None, loadgen_cpus: set[int] | None) -> dict | None:
    """experiment.json cpu_affinity: null when nothing is pinned; else both lists (an unpinned
    side may use every CPU this process may use)."""
    if not stack_cpus and not loadgen_cpus:
        return None
    everything = set(os.sched_getaffinity(0))
    return {"loadgen": cpu_list_text(loadgen_cpus or everything),
            "stack": cpu_list_text(stack_cpus or everything)}


def host() -> dict:
    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        import psutil
        mem_gb = round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:            # psutil missing or /proc unreadable: leave it out
        pass
    return {"cores": os.cpu_count() or 1, "cpu_model": model, "mem_gb": mem_gb}


def _cmd(argv: list[str], pattern: str | None = None) -> str | None:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = (r.stdout + r.stderr).strip()
    if pattern:
        m = re.search(pattern, out)
        return m.group(1) if m else None
    return out.splitlines()[0] if out else None


def _jar_version(prefix: str) -> str | None:
    for lib in ("services/axis/target/lib", "services/front/target/lib", "client-clones/target/lib"):
        for jar in sorted((ROOT / lib).glob(f"{prefix}-[0-9]*.jar")):
            return jar.stem[len(prefix) + 1:]
    return None


def versions() -> dict:
    from importlib import metadata
    try:                        # never `import locust` here: it monkey-patches this process (gevent)
        locust_version = metadata.version("locust")
    except metadata.PackageNotFoundError:
        locust_version = None
    return {"testbed": _cmd(["git", "describe", "--always", "--dirty"]),
            "locust": locust_version, "python": sys.version.split()[0],
            "java": _cmd(["java", "-version"], r'version "([^"]+)"'),
            "tomcat": _jar_version("tomcat-embed-core"), "axis2": _jar_version("axis2-kernel"),
            "gsoap": _cmd(["soapcpp2", "-V"], r"(\d+\.\d+\.\d+\w*)") if shutil.which("soapcpp2") else None,
            "haproxy": _cmd(["haproxy", "-v"], r"version (\S+)")}


class RunFile:
    """runs/<id>/run.json of one run; steps are taken from the shape's step log."""

    def __init__(self, run_dir: Path, meta: dict):
        self.dir = run_dir
        self.path = run_dir / "run.json"
        self.meta = meta
        self.write()

    def write(self) -> None:
        write_json(self.path, self.meta)

    def refresh_steps(self) -> bool:
        """Re-read steps.jsonl into meta["steps"]; True (and run.json rewritten) if it changed."""
        steps, phases = read_step_log(self.dir / STEP_LOG)
        notes = self.meta.setdefault("notes", {})
        if steps == self.meta.get("steps") and phases == notes.get("phases", []):
            return False
        self.meta["steps"] = steps
        notes["phases"] = phases
        self.write()
        return True

    def finish(self, status: str, error: str | None = None) -> None:
        self.refresh_steps()
        self.meta["status"] = status
        self.meta["ended"] = time.time()
        if error:
            self.meta["error"] = error
        self.write()


def read_step_log(path: Path) -> tuple[list[dict], list[dict]]:
    """(steps, other phases) from the shape's JSON lines; a cut last line is skipped."""
    steps: dict[int, dict] = {}
    phases: dict[str, dict] = {}
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return [], []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        if "index" in rec and isinstance(rec["index"], int):
            st = steps.setdefault(rec["index"], {"index": rec["index"], "users": None, "start": None,
                                                 "measure_from": None, "end": None})
            st.update({k: v for k, v in rec.items() if (k in st or k in STEP_EXTRA_KEYS) and k != "index"})
        elif isinstance(rec.get("phase"), str):
            ph = phases.setdefault(rec["phase"], {"phase": rec["phase"], "users": None,
                                                   "start": None, "end": None})
            ph.update({k: v for k, v in rec.items() if k in ph and k != "phase"})
    return [steps[i] for i in sorted(steps) if steps[i]["users"] is not None], list(phases.values())


def served_counts(replicas: list[dict], settle_s: float = 0) -> dict[str, dict]:
    """GET /served of every replica (java-common Served, gSOAP served.cpp): tier-replica ->
    its counters, or {"error": why} where it cannot be read (e.g. a Swarm task's address).
    With settle_s, first waits (at most that long) until no front has a request in flight: the
    previous run's last requests, still queued when its Locust stopped, would otherwise be
    counted in this run's front total but not in its Locust's."""
    end = time.monotonic() + settle_s
    while True:
        out = _served_once(replicas)
        busy = [k for k, v in out.items() if k.startswith("front-") and (v.get("in_flight") or 0) > 0]
        if not busy or time.monotonic() >= end:
            return out
        time.sleep(0.2)


def _served_once(replicas: list[dict]) -> dict[str, dict]:
    out = {}
    for r in replicas:
        key = f"{r['tier']}-{r['replica']}"
        if not (r.get("url") and r.get("alive")):
            out[key] = {"error": "not running"}
            continue
        try:
            with urllib.request.urlopen(r["url"] + "/served", timeout=2) as resp:
                out[key] = json.loads(resp.read())
        except (OSError, ValueError) as e:
            out[key] = {"error": f"{type(e).__name__}: {e}"[:120]}
    return out
