"""Studies: experiments that measure programs of their own instead of the stack under Locust
(docs/method.md: "Serialization cost", "RPC latency by transport", "IPC throughput", "Socket
server models"). They keep the experiment conventions:
a TOML file under loadgen/experiments/, `./testbed run NAME [--quick] [--repeat K]`, one folder
results/<name>-<time>/ with the definition, raw samples, summary.json, plots and report.html,
`./testbed report FOLDER` to regenerate, Ctrl-C keeps what finished.

The file:

  name, kind, description   kind names the study's two modules (below)
  [params]                  the study's parameters; every key must be one the study knows
  [quick]                   params that replace [params]'s with --quick

A study is two modules named by its kind:

  testbed.studies.<kind>    what to measure and how (cli/testbed/studies/<kind>.py):
      PARAMS    dict: every parameter with its default ("repeat" = measurements per point)
      check(params)              raise StudyError naming the key and the fix
      points(params)             -> [Point]: what to measure, in order
      prepare(ctx)               build/check what the points need; facts -> ctx.facts
      measure(ctx, point, rep)   -> dict: one measurement (ctx.run_json runs a program);
                                 raise PointError when it failed; {"valid": False,
                                 "invalid_reason": ...} marks a measurement whose data is wrong
      cleanup(ctx)               always called, also after Ctrl-C or a failure
      describe(data) -> str      optional: a short line for the terminal
  analysis.studies.<kind>   what the samples mean (analysis/render/study_report.py says what it has)

Every point is measured `repeat` times, in rounds (all points once, then again), so drift on a
shared machine spreads over every configuration. samples.jsonl gets one line per measurement
as soon as it ends, so an interruption loses only the measurement in progress.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from testbed.run import results
from testbed.experiment.definition import RUN_ID, DefinitionError, read_toml
from testbed.experiment.plan import is_whole
from testbed.run.progress import Progress

SAMPLES_FILE = "samples.jsonl"
TOP_KEYS = ("name", "kind", "description", "params", "quick")


class StudyError(DefinitionError):
    """The study's parameters are wrong, or what it needs is missing; the text names the fix."""


def whole(params: dict, key: str, lo: int, hi: int, where: str = "") -> int:
    """params[key], refused unless a whole number lo..hi; where prefixes the key ("with_work.")."""
    v = params[key]
    if not is_whole(v, lo, hi):
        raise StudyError(f"{where}{key} must be a whole number from {lo} to {hi} (got {v!r})")
    return v


def wholes(params: dict, key: str, lo: int, hi: int, where: str = "", empty: bool = False) -> list[int]:
    """params[key], refused unless a list of whole numbers lo..hi (non-empty unless empty=True)."""
    v = params[key]
    if not isinstance(v, list) or (not v and not empty) or not all(is_whole(x, lo, hi) for x in v):
        what = "a list" if empty else "a non-empty list"
        raise StudyError(f"{where}{key} must be {what} of whole numbers from {lo} to {hi} (got {v!r})")
    return v


class PointError(RuntimeError):
    """One measurement failed; it is recorded and the study goes on."""


@dataclass(frozen=True)
class Point:
    id: str                       # unique in the study: letters, digits, _ . -
    label: str                    # what a person reads
    params: dict                  # what the analysis groups by
    timeout_s: float = 120.0      # a measurement longer than this is stopped and marked "timeout"


@dataclass
class Study:
    name: str
    kind: str
    description: str
    params: dict
    quick: bool
    source: Path
    text: str
    module: object

    def points(self) -> list[Point]:
        pts = self.module.points(self.params)
        ids = [p.id for p in pts]
        dup = {i for i in ids if ids.count(i) > 1}
        bad = [i for i in ids if not RUN_ID.match(i)]
        if dup or bad:
            raise StudyError(f"{self.kind}: point ids must be unique names (duplicates: {sorted(dup)}, "
                             f"bad: {bad})")
        return pts


def module(kind: str):
    """testbed.studies.<kind>, or None when no study of that kind exists."""
    if not RUN_ID.match(kind):
        return None
    try:
        return importlib.import_module(f"testbed.studies.{kind}")
    except ModuleNotFoundError as e:
        if e.name in (f"testbed.studies.{kind}", "testbed.studies"):
            return None
        raise


def is_study(raw: dict) -> bool:
    kind = raw.get("kind")
    return isinstance(kind, str) and module(kind) is not None


def parse(raw: dict, path: Path, text: str, quick: bool = False, repeat: int | None = None) -> Study:
    where = str(path)
    unknown = sorted(set(raw) - set(TOP_KEYS))
    if unknown:
        raise StudyError(f"{where}: unknown key(s) {', '.join(unknown)}; a study file has "
                         f"{', '.join(TOP_KEYS)}")
    name, kind = raw.get("name"), raw.get("kind")
    if not isinstance(name, str) or not RUN_ID.match(name):
        raise StudyError(f"{where}: name = \"...\" is required (letters, digits, _ . -)")
    mod = module(kind) if isinstance(kind, str) else None
    if mod is None:
        raise StudyError(f"{where}: kind = {kind!r} is not a study")
    params = dict(mod.PARAMS)
    for table in ("params", "quick"):
        given = raw.get(table, {})
        if not isinstance(given, dict):
            raise StudyError(f"{where}: [{table}] must be a table")
        bad = sorted(set(given) - set(mod.PARAMS))
        if bad:
            raise StudyError(f"{where}: [{table}] has unknown key(s) {', '.join(bad)}; {kind} knows: "
                             f"{', '.join(sorted(mod.PARAMS))}")
        if table == "params" or quick:
            params.update(given)
    if repeat is not None:
        params["repeat"] = repeat
    if not isinstance(params.get("repeat"), int) or params["repeat"] < 1:
        raise StudyError(f"{where}: repeat must be a whole number >= 1 (got {params.get('repeat')!r})")
    try:
        mod.check(params)
    except StudyError as e:
        raise StudyError(f"{where}: {e}") from None
    return Study(name, kind, str(raw.get("description", "")), params, quick, path, text, mod)


def load(path: Path, quick: bool = False, repeat: int | None = None) -> Study:
    raw, text = read_toml(path)
    return parse(raw, path, text, quick=quick, repeat=repeat)


@dataclass
class Context:
    """What a study's prepare/measure/cleanup get."""
    folder: Path
    params: dict
    quick: bool
    say: object                                   # say(text): a permanent progress line
    facts: dict = field(default_factory=dict)     # environment facts -> experiment.json
    raw_dir: Path | None = None                   # per-measurement raw files go here

    def run_json(self, argv: list[str], timeout: float, env: dict | None = None,
                 cwd: Path | None = None, stdin: str | None = None) -> dict:
        """Run a measuring program and return the JSON object it prints last on stdout.
        It runs in its own process group: on timeout or Ctrl-C the whole group is killed."""
        full_env = {**os.environ, **(env or {})}
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=full_env, cwd=cwd, start_new_session=True,
                             stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
        try:
            out, err = p.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(p)
            raise PointError(f"timeout: {Path(argv[0]).name} ran longer than {timeout:.0f} s; stopped") from None
        except BaseException:
            _kill_group(p)
            raise
        if p.returncode != 0:
            tail = " | ".join((err or out or "").strip().splitlines()[-3:])[:400]
            raise PointError(f"{Path(argv[0]).name} exited {p.returncode}: {tail or 'no output'}")
        for line in reversed(out.strip().splitlines()):
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    break
        raise PointError(f"{Path(argv[0]).name} printed no JSON result: {out.strip()[-200:]!r}")


def _kill_group(p: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(p.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        p.communicate(timeout=5)


class StudyRunner:
    def __init__(self, study: Study, results_dir: Path, progress: Progress | None = None):
        self.study = study
        self.results_dir = Path(results_dir)
        self.progress = progress or Progress()
        self.folder: Path | None = None
        self.meta: dict = {}
        self.counts = {"ok": 0, "failed": 0, "timeout": 0, "invalid": 0}

    def run(self) -> Path:
        st, say = self.study, self.progress.say
        started = time.time()
        points = st.points()
        self.folder = results.new_folder(self.results_dir, st.name, started)
        (self.folder / "runs").rmdir()            # a study has samples, not Locust runs
        raw_dir = self.folder / "raw"
        ctx = Context(self.folder, st.params, st.quick, say, raw_dir=raw_dir)
        self.meta = {"format": results.FORMAT, "name": st.name, "kind": st.kind, "study": True,
                     "description": st.description, "definition": st.text, "quick": st.quick,
                     "params": st.params, "started": started, "ended": None, "status": "running",
                     "host": results.host(), "versions": results.versions(), "environment": ctx.facts,
                     "points": [{"id": p.id, "label": p.label, "params": p.params} for p in points]}
        self._write()
        shutil.copyfile(st.source, self.folder / "experiment.toml")
        repeat = st.params["repeat"]
        total = len(points) * repeat
        say(f"{st.name}: {len(points)} point(s) × {repeat}{' (quick)' if st.quick else ''}; "
            f"results in {_shown(self.folder)}")
        status, interrupted = "complete", False
        try:
            try:
                st.module.prepare(ctx)
                self._write()
                raw_dir.mkdir(exist_ok=True)
                done = 0
                t0 = time.monotonic()
                with open(self.folder / SAMPLES_FILE, "a", buffering=1, encoding="utf-8") as out:
                    for rep in range(repeat):
                        for p in points:
                            done += 1
                            eta = (time.monotonic() - t0) / max(1, done - 1) * (total - done + 1) if done > 1 else None
                            self.progress.status(f"{st.name} {done}/{total} {p.label} · repeat {rep + 1}/{repeat}"
                                                 + (f" · about {eta / 60:.1f} min left" if eta else ""), force=True)
                            out.write(json.dumps(self._measure(ctx, p, rep), default=str) + "\n")
                self.progress.done()
            finally:
                with _sigint_held():
                    st.module.cleanup(ctx)
            if self.counts["ok"] == 0:
                status = "failed"
                self.meta["error"] = "no measurement succeeded (see samples.jsonl and the report)"
        except KeyboardInterrupt:
            self.progress.done()
            say("Ctrl-C: keeping the finished measurements ...")
            status, interrupted = "interrupted", True
        except (StudyError, PointError, OSError) as e:
            status = "failed"
            self.meta["error"] = str(e).splitlines()[0][:500]
            say(f"testbed: run: {self.meta['error']}")
        with _sigint_held():
            self.meta.update(status=status, ended=time.time(), measurements=dict(self.counts))
            self._write()
            self._report()
        say(f"{st.name}: {status} in {(time.time() - started) / 60:.1f} min "
            f"({self.counts['ok']} ok, {total - self.counts['ok']} not); "
            f"report: {_shown(self.folder / 'report.html')}")
        if interrupted:
            raise KeyboardInterrupt
        return self.folder

    def _measure(self, ctx: Context, p: Point, rep: int) -> dict:
        rec = {"point": p.id, "label": p.label, "repeat": rep, "params": p.params,
               "started": time.time(), "status": "ok", "error": None, "data": None}
        t0 = time.monotonic()
        try:
            data = self.study.module.measure(ctx, p, rep)
            rec["data"] = data
            if isinstance(data, dict) and data.get("valid") is False:
                rec["status"], rec["error"] = "invalid", str(data.get("invalid_reason") or "data check failed")
        except PointError as e:
            rec["status"] = "timeout" if str(e).startswith("timeout") else "failed"
            rec["error"] = str(e)
        rec["seconds"] = round(time.monotonic() - t0, 3)
        self.counts[rec["status"]] += 1
        if rec["status"] == "ok":
            describe = getattr(self.study.module, "describe", None)
            if describe:
                self.progress.say(f"  {p.label} #{rep + 1}: {describe(rec['data'])}")
        else:
            self.progress.say(f"  {p.label} #{rep + 1}: {rec['status']}: {rec['error']}")
        return rec

    def _write(self) -> None:
        results.write_json(self.folder / "experiment.json", self.meta)

    def _report(self) -> None:
        try:
            from analysis.judge.findings import Finding, text_lines
            from analysis.render.report import regenerate
            regenerate(self.folder)
            summary = json.loads((self.folder / "summary.json").read_text())
            for ln in text_lines([Finding.from_json(f) for f in summary.get("findings", [])]):
                self.progress.say(ln)
        except Exception as e:          # the samples are kept; the report can be made again
            self.progress.say(f"testbed: run: the report could not be made: {type(e).__name__}: {e}; "
                              f"retry with ./testbed report {_shown(self.folder)}")


@contextlib.contextmanager
def _sigint_held():
    """Ctrl-C is ignored inside (cleanup and the final write must finish)."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _shown(p: Path) -> str:
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)
