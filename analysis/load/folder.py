"""Loading a result folder (format: docs/results.md) into plain data, noting what is lost.

Only the raw files are read: experiment.json, runs/<id>/run.json, the Locust CSVs, cpu.csv and
threaddump-*.txt. A missing optional file is recorded in `lost`, never fatal; a folder without
experiment.json or runs/*/run.json is not a result folder (NotAResultFolder names what is missing).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from analysis.load import cpu as cpumod
from analysis.load import faults as faultmod
from analysis.load import latency as latmod
from analysis.load import locust_csv as lc
from analysis.load.settings import Settings
from analysis.load.steplog import STEP_LOG_FILE, from_step_log

EXPERIMENT_FILE = "experiment.json"
RUNS_DIR = "runs"
RUN_FILE = "run.json"
KINDS = ("segments", "clones", "calibration", "classic")
PARTS = ("segments", "clones")      # the parts of a "classic" experiment: run.json kind of each run
THREADDUMP = re.compile(r"threaddump-(?P<tier>[a-z0-9_]+)-(?P<replica>[A-Za-z0-9_.-]+)\.txt$")


class NotAResultFolder(ValueError):
    """The folder lacks a file every result folder has."""


@dataclass
class Run:
    id: str
    dir: Path
    meta: dict
    history: lc.History
    cpu: list[cpumod.Sample]
    stats: dict = field(default_factory=dict)          # Aggregated row of locust_stats.csv
    failures: list[dict] = field(default_factory=list)  # top failures
    exceptions: int = 0
    threaddumps: dict[tuple[str, str], Path] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)
    faults: list[dict] = field(default_factory=list)   # faults.jsonl (analysis/load/faults.py)
    latency: list | None = None                        # latency.hlog's intervals (analysis/load/latency.py)

    @property
    def label(self) -> str:
        return str(self.meta.get("label") or self.id)

    @property
    def status(self) -> str:
        return str(self.meta.get("status") or "unknown")


@dataclass
class ResultFolder:
    path: Path
    experiment: dict
    settings: Settings
    runs: list[Run]
    lost: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return str(self.experiment.get("kind"))


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise NotAResultFolder(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from e
    if not isinstance(data, dict):
        raise NotAResultFolder(f"{path}: expected a JSON object")
    return data


def load_run(run_dir: Path) -> Run:
    """One runs/<id>/ folder; files that are missing or cut are noted in Run.lost."""
    meta = _json(run_dir / RUN_FILE)
    run_id = str(meta.get("id") or run_dir.name)
    lost: list[str] = []
    log = run_dir / STEP_LOG_FILE
    if not meta.get("steps") and log.is_file():
        with open(log, encoding="utf-8", errors="replace") as f:
            meta["steps"] = from_step_log(f)
        lost.append(f"{RUN_FILE} has no steps: step boundaries taken from {STEP_LOG_FILE}")
    elif not meta.get("steps"):
        lost.append(f"{RUN_FILE} has no steps (and no {STEP_LOG_FILE}): nothing to measure")
    try:
        history = lc.read_history(run_dir / lc.HISTORY_FILE)
        if history.dropped_rows:
            lost.append(f"{lc.HISTORY_FILE}: {history.dropped_rows} unreadable row(s) dropped (cut file)")
    except FileNotFoundError:
        history = lc.History(rows=[])
        lost.append(f"{lc.HISTORY_FILE} missing: no throughput for this run")
    except lc.CsvFormatError as e:
        history = lc.History(rows=[])
        lost.append(str(e))
    try:
        samples = cpumod.read(run_dir / cpumod.CPU_FILE)
        if samples.dropped_rows:
            lost.append(f"{cpumod.CPU_FILE}: {samples.dropped_rows} unreadable row(s) dropped")
        cpu_samples = samples.samples
    except FileNotFoundError:
        cpu_samples = []
        lost.append(f"{cpumod.CPU_FILE} missing: no CPU per tier, loadgen saturation not checked")
    except ValueError as e:
        cpu_samples = []
        lost.append(str(e))
    run = Run(run_id, run_dir, meta, history, cpu_samples, lost=lost)
    for name, attr in ((lc.STATS_FILE, "stats"), (lc.FAILURES_FILE, "failures"),
                       (lc.EXCEPTIONS_FILE, "exceptions")):
        try:
            rows = lc.read_rows(run_dir / name)
        except FileNotFoundError:
            lost.append(f"{name} missing")
            continue
        if attr == "stats":
            run.stats = lc.aggregated_totals(rows)
        elif attr == "failures":
            run.failures = lc.failure_summary(rows)
        else:
            run.exceptions = len(rows)
    for p in sorted(run_dir.glob("threaddump-*.txt")):
        m = THREADDUMP.search(p.name)
        if m:
            run.threaddumps[(m["tier"], m["replica"])] = p
    run.faults, cut = faultmod.read(run_dir)
    lost.extend(cut)
    if (run_dir / latmod.LOG_FILE).is_file():
        run.latency, bad = latmod.read(run_dir / latmod.LOG_FILE)
        if bad:
            lost.append(f"{latmod.LOG_FILE}: {len(bad)} unreadable line(s) dropped ({bad[0]})")
    first = (meta.get("steps") or [{}])[0].get("start")
    for name, when in ((meta.get("notes") or {}).get("locust_workers_lost") or {}).items():
        at = f" at +{when - first:.0f} s" if first else ""
        lost.append(f"Locust {name} exited during the run{at}: the other workers carried its users "
                    "from then on (a step it left is short of load while they took over)")
    if run.status not in ("complete", "unknown"):
        lost.append(f"run status {run.status}")
    return run


def load(path: str | Path) -> ResultFolder:
    """Read a result folder; raise NotAResultFolder naming what is missing."""
    path = Path(path)
    if not path.is_dir():
        raise NotAResultFolder(f"{path}: no such folder")
    missing = []
    if not (path / EXPERIMENT_FILE).is_file():
        missing.append(EXPERIMENT_FILE)
    run_dirs = sorted(p.parent for p in (path / RUNS_DIR).glob(f"*/{RUN_FILE}"))
    if not run_dirs:
        missing.append(f"{RUNS_DIR}/<run_id>/{RUN_FILE}")
    if missing:
        raise NotAResultFolder(f"{path} is not a result folder: missing {' and '.join(missing)} "
                               "(see docs/results.md)")
    experiment = _json(path / EXPERIMENT_FILE)
    kind = experiment.get("kind")
    if kind not in KINDS:
        raise NotAResultFolder(f"{path / EXPERIMENT_FILE}: \"kind\" is {kind!r}; "
                               f"expected one of {', '.join(KINDS)}")
    try:
        settings = Settings.from_json(experiment.get("settings"))
    except (TypeError, ValueError) as e:
        raise NotAResultFolder(f"{path / EXPERIMENT_FILE}: \"settings\" must hold numbers ({e})") from e
    runs, lost = [], []
    for d in run_dirs:
        try:
            runs.append(load_run(d))
        except NotAResultFolder as e:  # one unreadable run.json does not hide the others
            lost.append(f"{d.name}: {e}")
    if not runs:
        raise NotAResultFolder(f"{path}: no readable {RUNS_DIR}/<run_id>/{RUN_FILE} ({'; '.join(lost)})")
    runs.sort(key=lambda r: (r.meta.get("started") or 0, r.id))
    if experiment.get("status") not in (None, "complete"):
        lost.append(f"experiment status {experiment.get('status')}")
    declared = experiment.get("runs")
    if isinstance(declared, list):
        present = {r.id for r in runs}
        for rid in declared:
            if str(rid) not in present:
                lost.append(f"run {rid} is planned in experiment.json but has no {RUN_FILE}")
    return ResultFolder(path, experiment, settings, runs, lost)


def part_settings(result: ResultFolder, part: str | None) -> Settings:
    """A classic experiment's settings for one part: [settings] with [settings.<part>] over it."""
    sub = result.settings.extra.get(part) if part in PARTS else None
    if not isinstance(sub, dict):
        return result.settings
    base = {k: v for k, v in result.settings.to_json().items() if k not in PARTS}
    return Settings.from_json({**base, **sub})


def planned_load(experiment: dict, run_id: str) -> dict:
    """The load plan experiment.json's definition gave run_id ({} for an older folder)."""
    runs = (experiment.get("definition") or {}).get("runs") or []
    return next((dict(r.get("load") or {}) for r in runs if isinstance(r, dict) and r.get("id") == run_id), {})


def saturating(experiment: dict, run_id: str) -> bool:
    """Does the run drive its path to saturation, as the segment law needs (think time 0, a
    closed loop)? A run with think time or an open-loop rate (tracing.toml's low-load run) does not."""
    load = planned_load(experiment, run_id)
    return not (load.get("think_time") or load.get("arrival_rate"))


def stack_cores(experiment: dict) -> float:
    """Cores available to the stack: the stack's CPU affinity list, else host cores."""
    affinity = (experiment.get("cpu_affinity") or {}).get("stack")
    if affinity:
        return float(len(cpu_list(str(affinity))))
    return float((experiment.get("host") or {}).get("cores") or 1)


def cpu_list(text: str) -> list[int]:
    """A Linux CPU list ("0", "1-3", "0,2-3") as CPU numbers."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return sorted(set(out))
