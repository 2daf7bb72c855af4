"""Where an experiment's wall time went: the runner times its main thread's phases as wall-clock
spans that never overlap, and at the end writes experiment.json "time" (docs/results.md).

    ledger = Ledger()
    with ledger.span("start-up"):
        ...
    with ledger.span("run", run=spec.id):
        ...                                   # one experiment run, from its first line to its last
    meta["time"] = ledger.summary(started, ended, folder / "runs")

Spans nest: time goes to the innermost open span (a run's span holds no other; a prediction
opened inside nothing), except that everything inside a "calibration" span is calibration (its
probes are Locust runs and restarts of their own). A "run" span is split afterwards, from the run's
run.json and step log (loadgen/shapes.py), into:
    reconfiguration  the span's start to run.json "started" (restarts, scaling: reconfigure.apply)
    priming          the "prime" phase
    measuring        the first step's start to the last step's end, the steps' warm-ups included
    hold             the "hold" phase (thread dumps at the plateau)
    load generator   the rest: the settle before Locust, its start and stop, the dumps' wait after
                     it, the traces fetched, the per-step line
Times are time.time() (the step log's clock), so the phases plus "unaccounted_s" are the wall
time exactly; unaccounted_s is measured (what ran outside any span), never forced to zero.
"""
from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from testbed.run.results import STEP_LOG, read_step_log

KINDS = ("start-up", "calibration", "reconfiguration", "run", "prediction", "analysis")
# experiment.json time.phases, in this order: a run's span is shown by its parts
PHASES = ("start-up", "calibration", "reconfiguration", "priming", "measuring", "hold",
          "load generator", "prediction", "analysis")
OPAQUE = ("calibration",)        # spans opened inside these count as them


class Ledger:
    def __init__(self, clock=time.time):
        self.clock = clock
        self.pieces: list[dict] = []          # {"kind", "run", "start", "end"}: closed, never overlapping
        self._open: list[dict] = []           # the spans open now, innermost last

    @contextlib.contextmanager
    def span(self, kind: str, run: str | None = None):
        """Time the block as `kind` (one of KINDS); run: the experiment run it belongs to."""
        if kind not in KINDS:
            raise ValueError(f"ledger: unknown kind {kind!r}; one of {', '.join(KINDS)}")
        if self._open and self._open[-1]["kind"] in OPAQUE:
            yield                             # inside a calibration: counted as it
            return
        now = self.clock()
        if self._open:                        # the outer span pauses
            self._close_piece(self._open[-1], now)
        self._open.append({"kind": kind, "run": run, "start": now})
        try:
            yield
        finally:
            now = self.clock()
            self._close_piece(self._open.pop(), now)
            if self._open:
                self._open[-1]["start"] = now  # the outer span goes on

    def _close_piece(self, span: dict, now: float) -> None:
        if now > span["start"]:
            self.pieces.append({"kind": span["kind"], "run": span["run"], "start": span["start"], "end": now})

    def seconds(self, kind: str) -> float:
        """Seconds spent in `kind` so far (closed pieces)."""
        return sum(p["end"] - p["start"] for p in self.pieces if p["kind"] == kind)

    def run_row(self, run_id: str, run_dir: Path) -> dict:
        """One run's row of time.runs, from its span and its folder (split_run)."""
        pieces = [p for p in self.pieces if p["kind"] == "run" and p["run"] == run_id]
        return split_run(run_id, pieces, run_dir)

    def summary(self, started: float, ended: float, runs_dir: Path) -> dict:
        """experiment.json "time": the wall time, each phase's seconds, one row per run, and
        what no span holds (wall_s − the phases' sum)."""
        phases = {k: 0.0 for k in PHASES}
        for p in self.pieces:
            if p["kind"] != "run":
                phases[p["kind"]] += p["end"] - p["start"]
        rows = []
        for run_id in dict.fromkeys(p["run"] for p in self.pieces if p["kind"] == "run"):
            row = self.run_row(run_id, runs_dir / run_id)
            rows.append(row)
            for phase, key in (("reconfiguration", "reconfiguration_s"), ("priming", "priming_s"),
                               ("measuring", "measuring_s"), ("hold", "hold_s"), ("load generator", "locust_s")):
                phases[phase] += row[key]
        wall, phases = round(ended - started, 3), {k: round(v, 3) for k, v in phases.items()}
        return {"wall_s": wall, "phases": phases, "runs": rows,
                "unaccounted_s": round(wall - sum(phases.values()), 3)}


def split_run(run_id: str, pieces: list[dict], run_dir: Path) -> dict:
    """A run's span (its pieces) cut into its parts (module docstring); the parts add up to the
    span: each part is clipped to the span and to the end of the part before it."""
    total = sum(p["end"] - p["start"] for p in pieces)
    meta = _json(run_dir / "run.json")
    notes = meta.get("notes") or {}
    steps, phases = read_step_log(run_dir / STEP_LOG)
    if not steps and not phases:          # an older folder: run.json's copy of them
        steps, phases = meta.get("steps") or [], notes.get("phases") or []
    row = {"id": run_id, "reconfiguration_s": 0.0, "priming_s": 0.0, "warm": notes.get("warm"),
           "measuring_s": 0.0, "hold_s": 0.0, "locust_s": 0.0, "steps": len(steps)}
    if not pieces:
        return row
    lo, hi = pieces[0]["start"], pieces[-1]["end"]
    ended = meta.get("ended") or hi
    phase = {p["phase"]: p for p in phases}

    def part(start, end) -> tuple[float, float] | None:
        return None if start is None else (start, end if end is not None else ended)

    parts = [("reconfiguration_s", (lo, meta.get("started") or lo)),
             ("priming_s", part(phase.get("prime", {}).get("start"), phase.get("prime", {}).get("end"))),
             ("measuring_s", part(steps[0]["start"], steps[-1]["end"]) if steps else None),
             ("hold_s", part(phase.get("hold", {}).get("start"), phase.get("hold", {}).get("end")))]
    floor = lo
    for key, iv in parts:
        if iv is None:
            continue
        start, end = max(iv[0], floor), min(iv[1], hi)
        if end > start:
            row[key] = round(end - start, 3)
            floor = end
    row["locust_s"] = round(total - sum(row[k] for k, _ in parts), 3)
    return row


def _json(path: Path) -> dict:
    try:
        out = json.loads(path.read_text(encoding="utf-8"))
        return out if isinstance(out, dict) else {}
    except (OSError, ValueError):
        return {}
