"""Service levels as a file, judged on a result folder (docs/compare.md, "Service levels"):
`./testbed run X --slo slo.toml`, `./testbed compare A B --slo slo.toml`.

    # slo.toml: each key a run id without its repeat ("pool-c1-a1"), a path ("/seg/5"), or "*"
    # (every run); each level one line
    [levels]
    "*" = ["p99 < 200 ms at 100/s", "errors < 0.1 %"]
    "pool-c1-a1" = ["throughput >= 300/s"]

A level: METRIC OP NUMBER [UNIT] [at RATE/s]
  METRIC  p50 p90 p95 p99 p99.9 max (ms) | errors (%) | throughput (/s)
  OP      < <= > >=
  at R/s  percentiles and errors: judged at the run's first valid step whose throughput reached R
          (a run that never did misses the level, with its maximum); without it, at the step of
          the run's maximum throughput. Throughput: always the run's maximum.

Each level is judged with its interval, never on the point alone: a percentile's distribution-free
95 % interval (latency.hlog), the error rate's Wilson 95 % interval over the step's requests, the
maximum throughput's 95 % interval. **met** when the whole interval is on the right side of the
limit, **missed** when the whole interval is on the wrong side, **not decided** when it straddles the
limit (a longer step would decide it). A miss makes the command exit 1; JUnit XML (slo-junit.xml)
gives each (run, level) as a test case: a miss a failure, not decided a skipped case with why.
"""
from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

FILE_JSON, FILE_JUNIT = "slo.json", "slo-junit.xml"
LEVEL = re.compile(r"^\s*(p50|p90|p95|p99|p99\.9|max|errors|throughput)\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)\s*"
                   r"([a-zA-Z%/]+)?\s*(?:at\s+([0-9]*\.?[0-9]+)\s*/s)?\s*$")
UNITS = {"errors": "%", "throughput": "/s"}           # the rest: ms
Z95 = 1.959964


class SloError(ValueError):
    """The levels file is wrong; the text names the file, the level and the fix."""


def parse_level(text: str, where: str) -> dict:
    m = LEVEL.match(str(text))
    if not m:
        raise SloError(f"{where}: {text!r} is not a level; write METRIC OP NUMBER [UNIT] [at RATE/s], e.g. "
                       "\"p99 < 200 ms at 100/s\", \"errors < 0.1 %\", \"throughput >= 300/s\"")
    metric, op, number, unit, at = m.groups()
    want = UNITS.get(metric, "ms")
    if unit and unit != want:
        raise SloError(f"{where}: {text!r}: {metric} is in {want}, not {unit}")
    if at and metric == "throughput":
        raise SloError(f"{where}: {text!r}: a throughput level is the run's maximum; 'at' is for percentiles and errors")
    return {"text": str(text).strip(), "metric": metric, "op": op, "limit": float(number),
            "at": float(at) if at else None}


def load(path: str | Path) -> dict[str, list[dict]]:
    """key -> its levels, from a slo.toml; SloError (one line) when it cannot be used."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SloError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SloError(f"{path}: cannot be read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise SloError(f"{path}: not TOML ({e})") from None
    levels = raw.get("levels")
    if not isinstance(levels, dict) or not levels:
        raise SloError(f"{path}: no [levels] table; e.g. [levels] \"*\" = [\"p99 < 200 ms at 100/s\"]")
    unknown = sorted(set(raw) - {"levels"})
    if unknown:
        raise SloError(f"{path}: unknown table or key {unknown[0]!r}: the file has [levels] only")
    out = {}
    for key, items in levels.items():
        if isinstance(items, str):
            items = [items]
        if not isinstance(items, list) or not items:
            raise SloError(f"{path}: [levels] {key!r} must be a list of levels")
        out[key] = [parse_level(t, f"{path}: [levels] {key!r}") for t in items]
    return out


def _wilson(failures: int, n: int) -> list[float] | None:
    if n <= 0:
        return None
    p = failures / n
    d = 1 + Z95 ** 2 / n
    mid = (p + Z95 ** 2 / (2 * n)) / d
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return [max(0.0, mid - half), min(1.0, mid + half)]


def _applies(key: str, run_key: str, path) -> bool:
    return key == "*" or key == run_key or (key.startswith("/seg/") and key == f"/seg/{path}")


def _verdict(value, interval, op: str, limit: float) -> tuple[str, float | None]:
    """(met | missed | not decided, by how much: value - limit)."""
    if value is None:
        return "not decided", None
    lo, hi = interval if interval else (value, value)
    below = op in ("<", "<=")
    ok_all = (hi < limit or (op == "<=" and hi == limit)) if below else (lo > limit or (op == ">=" and lo == limit))
    bad_all = (lo > limit or (op == "<" and lo == limit)) if below else (hi < limit or (op == ">" and hi == limit))
    return ("met" if ok_all else "missed" if bad_all else "not decided"), value - limit


def judge_run(run, steps: list, entry: dict, level: dict) -> dict:
    """One level on one run (analysis.load.folder Run, its StepSamples, its summary.json entry)."""
    out = {"run": run.id, "level": level["text"], "metric": level["metric"], "limit": level["limit"],
           "value": None, "interval": None, "step": None, "users": None}
    valid = [s for s in steps if s.valid and s.throughput]
    if level["metric"] == "throughput":
        out["value"], out["interval"] = entry.get("max_throughput"), entry.get("max_interval")
        out["verdict"], out["by"] = _verdict(out["value"], out["interval"], level["op"], level["limit"])
        return out
    if level["at"] is not None:
        reached = [s for s in valid if s.throughput >= level["at"]]
        if not reached:
            top = max((s.throughput for s in valid), default=None)
            out.update(verdict="missed", by=None,
                       why=f"the run never reached {level['at']:g}/s (its maximum: "
                           + (f"{top:,.1f}/s)" if top is not None else "no valid step)"))
            return out
        step = reached[0]
    else:
        step = max(valid, key=lambda s: s.throughput, default=None)
        if step is None:
            out.update(verdict="not decided", by=None, why="no valid step")
            return out
    out["step"], out["users"] = step.index, step.users
    if level["metric"] == "errors":
        n, f = step.requests or 0, step.failures or 0
        out["value"] = 100.0 * f / n if n else None
        iv = _wilson(f, n)
        out["interval"] = [100.0 * iv[0], 100.0 * iv[1]] if iv else None
    else:
        lat = step.latency or {}
        key = level["metric"]
        out["value"] = lat.get(f"{key}_ms")
        out["interval"] = None if key == "max" else (lat.get("ci95") or {}).get(key)
        if not lat:
            out["why"] = "no exact latencies in this folder (no latency.hlog)"
    out["verdict"], out["by"] = _verdict(out["value"], out["interval"], level["op"], level["limit"])
    return out


def judge(an, levels: dict[str, list[dict]]) -> list[dict]:
    """Every level that applies to a run of the analysis (analysis.summary.Analysis)."""
    from analysis.compare import _key
    entries = {e["id"]: e for e in an.summary.get("runs", [])}
    out = []
    for run in sorted(an.result.runs, key=lambda r: r.id):
        for key, items in levels.items():
            if _applies(key, _key(run.id), run.meta.get("path")):
                out += [judge_run(run, an.steps.get(run.id, []), entries.get(run.id, {}), lv) for lv in items]
    return out


def missed(results: list[dict]) -> bool:
    return any(r["verdict"] == "missed" for r in results)


def text(folder: str, results: list[dict]) -> str:
    lines = [f"service levels of {folder}:"]
    for r in results:
        iv = r.get("interval")
        shown = "—" if r["value"] is None else f"{r['value']:,.3g}" + (f" [{iv[0]:,.3g} – {iv[1]:,.3g}]" if iv else "")
        at = f" at {r['users']} users" if r.get("users") is not None else ""
        lines.append(f"  [{r['verdict']}] {r['run']}: {r['level']}: {shown}{at}" + (f" ({r['why']})" if r.get("why") else ""))
    if not results:
        lines.append("  no level applies to any run of this folder")
    return "\n".join(lines)


def junit(suites: list[tuple[str, list[dict]]]) -> str:
    """JUnit XML: a testsuite per folder, a testcase per (run, level)."""
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for folder, results in suites:
        fails = sum(r["verdict"] == "missed" for r in results)
        skips = sum(r["verdict"] == "not decided" for r in results)
        parts.append(f"  <testsuite name={quoteattr('service levels: ' + folder)} tests=\"{len(results)}\" "
                     f"failures=\"{fails}\" skipped=\"{skips}\" errors=\"0\">")
        for r in results:
            name = quoteattr(f"{r['run']}: {r['level']}")
            value = "no value" if r["value"] is None else f"{r['value']:.6g}"
            msg = escape(f"{value}, interval {r.get('interval')}" + (f"; {r['why']}" if r.get("why") else ""))
            parts.append(f"    <testcase classname={quoteattr(r['run'])} name={name}>")
            if r["verdict"] == "missed":
                parts.append(f"      <failure message={quoteattr('missed: ' + value)}>{msg}</failure>")
            elif r["verdict"] == "not decided":
                parts.append(f"      <skipped message={quoteattr('not decided: the interval straddles the limit')}>"
                             f"{msg}</skipped>")
            parts.append("    </testcase>")
        parts.append("  </testsuite>")
    parts.append("</testsuites>")
    return "\n".join(parts) + "\n"


def write(out_dir: Path, suites: list[tuple[str, list[dict]]]) -> None:
    """slo.json and slo-junit.xml in out_dir."""
    import json
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / FILE_JSON).write_text(json.dumps([{"folder": f, "levels": r} for f, r in suites], indent=1),
                                           encoding="utf-8")
    (Path(out_dir) / FILE_JUNIT).write_text(junit(suites), encoding="utf-8")


def check_folder(folder: str | Path, levels: dict[str, list[dict]]) -> tuple[str, bool]:
    """Judge a result folder (after ./testbed run --slo): its slo.json and slo-junit.xml written
    into it; (the text, whether a level was missed)."""
    from analysis.load.folder import load as load_folder
    from analysis.summary import analyse
    results = judge(analyse(load_folder(folder), simulate=False), levels)
    write(Path(folder), [(str(folder), results)])
    return text(str(folder), results), missed(results)
