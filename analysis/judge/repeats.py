"""Several classic runs held against the classic report: every finding's verdict in each run,
and every normalized figure of "the classic report beside this run" — each run's value, their
median, and whether it lands within ±tolerance of the published normalized value (or, failing
that, whether the run's own 95 % interval reaches it).

    python -m analysis.judge.repeats results/classic-A results/classic-B results/classic-C [-o out.md]
                               [--tolerance 0.2]

Each folder's summary.json is read (made by ./testbed report FOLDER, or at the end of the run).
The wall time of each run (experiment.json started/ended) and its scaling sentence are listed
too, so one file holds what a repeated reproduction measured.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from analysis.judge.agreement import read_summary
from analysis.judge.sidebyside import fmt

WITHIN, REACHES, OFF = "within", "interval reaches it", "off"


def judge(value: float | None, interval, published: float, tolerance: float) -> str | None:
    """within / interval reaches it / off, for one normalized figure; None without a value or an
    interval. A figure with no value but an interval (a segment within the noise band: T(k) is
    at least the interval's low end, with no upper one) is judged by its interval alone."""
    if published is None or (value is None and not interval):
        return None
    if value is not None and abs(value / published - 1) <= tolerance:
        return WITHIN
    if interval and interval[0] is not None and interval[0] <= published and (
            interval[1] is None or published <= interval[1]):
        return REACHES
    return OFF


def table(summaries: list[dict], tolerance: float = 0.2) -> dict:
    """{runs: [{name, minutes, scaling, verdicts}], figures: [{figure, published, values, median,
    verdicts, median_verdict}]} over the classic summaries."""
    runs = []
    for s in summaries:
        e = s["experiment"]
        minutes = (e["ended"] - e["started"]) / 60 if None not in (e.get("ended"), e.get("started")) else None
        runs.append({"name": e.get("name"), "minutes": minutes, "status": e.get("status"),
                     "scaling": (e.get("scaling") or {}).get("sentence"),
                     "profile": (e.get("profile") or {}).get("name") if isinstance(e.get("profile"), dict) else None,
                     "verdicts": {f["key"]: f["verdict"] for f in s.get("findings", [])}})
    figures = []
    names = [r["figure"] for r in summaries[0].get("side_by_side", [])] if summaries else []
    for name in names:
        rows = [next((r for r in s.get("side_by_side", []) if r["figure"] == name), None) for s in summaries]
        pub = next((r["published_normalized"] for r in rows if r), None)
        if pub is None or rows[0].get("note") == "reference":
            continue
        values = [r["normalized"] if r else None for r in rows]
        have = [v for v in values if v is not None]
        med = statistics.median(have) if have else None
        figures.append({"figure": name, "published": pub, "values": values, "median": med,
                        "verdicts": [judge(r["normalized"], r.get("normalized_interval"), pub, tolerance)
                                     if r else None for r in rows],
                        "median_verdict": judge(med, None, pub, tolerance)})
    return {"tolerance": tolerance, "runs": runs, "figures": figures}


def markdown(t: dict, folders: list[str]) -> str:
    out = [f"# {len(folders)} classic run(s)", ""]
    for f, r in zip(folders, t["runs"]):
        wall = f"{r['minutes']:.1f} min" if r["minutes"] is not None else "?"
        out.append(f"- `{f}`: {r['status']}, {wall}" + (f", profile {r['profile']}" if r["profile"] else "")
                   + (f"; {r['scaling']}" if r["scaling"] else ""))
    keys = list(dict.fromkeys(k for r in t["runs"] for k in r["verdicts"]))
    out += ["", "| finding | " + " | ".join(f"run {i + 1}" for i in range(len(folders))) + " |",
            "|---|" + "---|" * len(folders)]
    out += [f"| {k} | " + " | ".join(r["verdicts"].get(k, "—") for r in t["runs"]) + " |" for k in keys]
    out += ["", f"Normalized figures (each side by its own reference); within ±{t['tolerance']:.0%} of the "
            "published one, else whether the run's 95 % interval reaches it:", "",
            "| figure | published | " + " | ".join(f"run {i + 1}" for i in range(len(folders))) + " | median |",
            "|---|---|" + "---|" * (len(folders) + 1)]
    for f in t["figures"]:
        cells = [f"{fmt(v)} ({j})" if v is not None else (f"— ({j})" if j else "—")
                 for v, j in zip(f["values"], f["verdicts"])]
        med = f"{fmt(f['median'])} ({f['median_verdict']})" if f["median"] is not None else "—"
        out.append(f"| {f['figure']} | {fmt(f['published'])} | " + " | ".join(cells) + f" | {med} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m analysis.judge.repeats", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+", help="result folders of classic runs")
    p.add_argument("-o", "--output", help="write the markdown here (default: print it)")
    p.add_argument("--tolerance", type=float, default=0.2, help="relative band around the published figure")
    args = p.parse_args(argv)
    summaries = [read_summary(Path(f)) for f in args.folders]
    bad = [f for f, s in zip(args.folders, summaries) if s["experiment"]["kind"] != "classic"]
    if bad:
        p.error(f"not classic result folders: {', '.join(bad)}")
    text = markdown(table(summaries, args.tolerance), args.folders)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
