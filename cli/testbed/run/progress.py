"""What the user sees while an experiment runs: which run, which step, users, the current
request rate and error share (from the newest Aggregated row of the stats history), and CPU
per tier (from the sampler), and the time the experiment has left ("≈ N min left": the runner
re-estimates it as phases end, testbed.run.eta, and the line counts down from there). On a
terminal the line is rewritten in place; otherwise (CI logs) one line every few seconds."""
from __future__ import annotations

import csv
import io
import sys
import time
from pathlib import Path

HISTORY = "locust_stats_history.csv"


def latest_history(run_dir: Path) -> dict | None:
    """The newest Aggregated row of the stats history: {users, rps, requests, failures}."""
    path = run_dir / HISTORY
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 16384))
            tail = f.read().decode("utf-8", errors="replace")
            f.seek(0)
            header = f.readline().decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [ln for ln in tail.splitlines() if ",Aggregated," in ln]
    if not lines or not header:
        return None
    try:
        row = next(csv.DictReader(io.StringIO(header + lines[-1] + "\n")))
        return {"users": int(row["User Count"]), "rps": float(row["Requests/s"]),
                "failures_per_s": float(row["Failures/s"]),
                "requests": int(row["Total Request Count"]), "failures": int(row["Total Failure Count"])}
    except (KeyError, ValueError, StopIteration):
        return None


class Progress:
    def __init__(self, stream=None, every_s: float = 5.0):
        self.stream = stream or sys.stdout
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = every_s
        self._last = 0.0
        self._open_line = False
        self._left: tuple[float, float] | None = None    # (seconds left, at time.monotonic())
        self.refresh = None      # called before each status line: may re-estimate (set_left)

    def set_left(self, seconds: float, at: float | None = None) -> None:
        """The experiment has `seconds` left as of `at` (time.monotonic(), default now)."""
        self._left = (max(0.0, seconds), time.monotonic() if at is None else at)

    def left(self, now: float | None = None) -> float | None:
        """Seconds left now, counted down from the last estimate; None before any."""
        if self._left is None:
            return None
        seconds, at = self._left
        return max(0.0, seconds - ((time.monotonic() if now is None else now) - at))

    def say(self, text: str) -> None:
        """A permanent line."""
        if self._open_line:
            self.stream.write("\n")
            self._open_line = False
        self.stream.write(text + "\n")
        self.stream.flush()

    def status(self, text: str, force: bool = False) -> None:
        """A line that the next status replaces (terminal) or one every `every_s` (logs)."""
        if self.refresh is not None:
            self.refresh()
        now = time.monotonic()
        left = self.left(now)
        if left is not None:
            text += " · " + left_text(left)
        if self.tty:
            self.stream.write("\r\033[K" + text)
            self.stream.flush()
            self._open_line = True
        elif force or now - self._last >= self.every_s:
            self.stream.write(text + "\n")
            self.stream.flush()
            self._last = now

    def done(self) -> None:
        if self._open_line:
            self.stream.write("\n")
            self.stream.flush()
            self._open_line = False


def left_text(seconds: float) -> str:
    return f"≈ {seconds / 60:.0f} min left" if seconds >= 90 else f"≈ {seconds:.0f} s left"


def line(run_no: int, runs: int, run_id: str, steps_total: int, steps: list[dict], phases: list[dict],
         hist: dict | None, cpu: dict[str, float], host: float | None, elapsed: float) -> str:
    running = next((p for p in phases if p.get("end") is None and p.get("start")), None)
    if running:
        where = f"{running['phase']} ({running['users']} users)"
    elif steps:
        cur = steps[-1]
        where = f"step {cur['index'] + 1}/{steps_total} {cur['users']} users"
        if cur.get("end") is None and cur.get("measure_from") and time.time() < cur["measure_from"]:
            where += " warm-up"
    else:
        where = "starting Locust"
    parts = [f"run {run_no}/{runs} {run_id}", where]
    if hist:
        err = hist["failures_per_s"] / hist["rps"] if hist["rps"] else 0.0
        parts.append(f"{hist['rps']:.0f} req/s" + (f" ({err:.1%} failing)" if hist["failures_per_s"] else ""))
    if cpu:
        parts.append("CPU " + " ".join(f"{t} {v:.0f}%" for t, v in sorted(cpu.items())))
    if host is not None:
        parts.append(f"host {host:.0f}%")
    parts.append(f"{elapsed:.0f}s")
    return " · ".join(parts)
