"""Does a classic run agree with full segments and clones runs? Figure by figure: the classic
run's value and 95 % interval beside the full runs', and a verdict.

    python -m analysis.judge.agreement results/classic-… results/segments-… results/clones-… [-o out.md]

Rule: two maxima (each a step's mean with a symmetric interval) agree when their difference
is within its own 95 % interval, ±√(h₁² + h₂²); derived figures (segment throughputs, path
maxima normalized by T(1..1), speed-ups, ratios to the singleton: asymmetric intervals) agree
when their intervals overlap. Absolute maxima also move with the machine's load between
runs; the ratios cancel that. A figure
without an interval on either side is "no interval". Each folder's summary.json is read
(made by ./testbed report FOLDER).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from analysis.judge.sidebyside import fmt, interval_text
from analysis.stats import ratio_interval

AGREE, DIFFER, NO_INTERVAL = "agree", "differ", "no interval"


def read_summary(folder: Path) -> dict:
    path = Path(folder) / "summary.json"
    if not path.is_file():
        raise SystemExit(f"{path}: missing; make it with ./testbed report {folder}")
    return json.loads(path.read_text(encoding="utf-8"))


def verdict(a: float | None, a_iv, b: float | None, b_iv, symmetric: bool) -> str:
    if a is None or b is None or not a_iv or not b_iv:
        return NO_INTERVAL
    if symmetric:
        h = math.hypot((a_iv[1] - a_iv[0]) / 2, (b_iv[1] - b_iv[0]) / 2)
        return AGREE if abs(a - b) <= h else DIFFER
    a_hi = math.inf if a_iv[1] is None else a_iv[1]
    b_hi = math.inf if b_iv[1] is None else b_iv[1]
    return AGREE if a_iv[0] <= b_hi and b_iv[0] <= a_hi else DIFFER


def _figures(summary: dict) -> dict[str, tuple[float | None, list | None, bool]]:
    """figure -> (value, interval, symmetric) of a segments, clones or classic summary."""
    out: dict = {}
    paths = {p["path"]: p for p in summary.get("paths", [])}
    for k, p in paths.items():
        out[f"T(1..{k})"] = (p["max_throughput"], p.get("interval"), True)
    ref = paths.get(1)
    for k, p in paths.items():        # normalized by T(1..1): what a machine's speed cancels in
        if k > 1 and ref and ref["max_throughput"] and p["max_throughput"] is not None:
            iv = ratio_interval(tuple(p["interval"]) if p.get("interval") else None,
                                tuple(ref["interval"]) if ref.get("interval") else None)
            out[f"T(1..{k}) / T(1..1)"] = (p["max_throughput"] / ref["max_throughput"], iv, False)
    for g in summary.get("segments", []):
        if g["segment"] > 1:
            x = g["throughput"] if g["throughput"] is not None else g.get("derived")
            out[f"T({g['segment']})"] = (x, g.get("interval"), False)
    for r in summary.get("runs", []):
        if not r.get("client_mode"):
            continue
        name = r["id"].rsplit("-r", 1)[0]
        out[f"{name} max"] = (r["max_throughput"], r.get("max_interval"), True)
        if r.get("scaled_tier") not in (None, "baseline") and r.get("speedup") is not None:
            out[f"{name} speed-up"] = (r["speedup"], r.get("speedup_interval"), False)
        if r.get("vs_singleton") is not None:
            out[f"{name} vs singleton"] = (r["vs_singleton"], r.get("vs_singleton_interval"), False)
    return out


def compare(classic: dict, *full: dict) -> list[dict]:
    """Rows {figure, classic, classic_interval, full, full_interval, verdict} for every figure
    the classic summary and one of the full ones both have."""
    mine, theirs = _figures(classic), {}
    for s in full:
        theirs.update(_figures(s))
    rows = []
    for name, (a, a_iv, sym) in mine.items():
        if name not in theirs:
            continue
        b, b_iv, _ = theirs[name]
        rows.append({"figure": name, "classic": a, "classic_interval": a_iv, "full": b, "full_interval": b_iv,
                     "verdict": verdict(a, a_iv, b, b_iv, sym)})
    return rows


def markdown(rows: list[dict]) -> str:
    def cell(x, iv):
        return "—" if x is None else f"{fmt(x)} {interval_text(iv)}".strip()
    out = ["| figure | classic [95 %] | full [95 %] | |", "|---|---|---|---|"]
    out += [f"| {r['figure']} | {cell(r['classic'], r['classic_interval'])} | "
            f"{cell(r['full'], r['full_interval'])} | {r['verdict']} |" for r in rows]
    agree = sum(r["verdict"] == AGREE for r in rows)
    out.append(f"\n{agree} of {len(rows)} figures agree within their intervals.")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("classic", type=Path, help="result folder of ./testbed run classic")
    p.add_argument("full", type=Path, nargs="+", help="result folders of the full segments and clones runs")
    p.add_argument("-o", "--output", type=Path, help="write the table here (markdown) instead of stdout")
    a = p.parse_args(argv)
    text = markdown(compare(read_summary(a.classic), *(read_summary(f) for f in a.full)))
    if a.output:
        a.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
