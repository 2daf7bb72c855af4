"""Turn testbed results into tables, plots and a report, or apply the segment laws to numbers.

  report FOLDER [-o OUTDIR]          regenerate steps.csv, summary.json, plots/, report.html
                                     from a result folder's raw files (default: into FOLDER)
  analyze segments --path-throughput 1=3000,2=2500,... [--tolerance 0.03] [--target-t5 X]
                   [--think-time Z --critical-users N]
                                     decompose path maxima into segment throughputs
  analyze capacity --throughput X --critical-users N --think-time Z
                                     users served with think time: N = N* + X·Z
  traces FOLDER [--json]             where the time goes, from a traced run's spans: each tier's
                                     own time and each hop per step, segments ③ ④ ⑤ beside the
                                     segment law (docs/tracing.md)
  compare A B [C ...] [-o OUTDIR] [--json] [--threshold 0.05] [--latency-threshold 0.10] [--slo FILE]
                                     each folder against A, run by run and step by step: what changed,
                                     whether it is significant, where; exit 1 on a regression, 2 on bad
                                     input (docs/compare.md)
  predict FOLDER [--clones C] [--axis A] [--client-mode M] [--pool P] [--users 4,16,64]
          [--target 100/s] [--json]  the queueing model fitted to FOLDER's baseline
                                     (analysis/predict, docs/predict.md)
"""
from __future__ import annotations

import argparse
import sys

from analysis.load.folder import NotAResultFolder
from analysis.measure import capacity as capmod
from analysis.measure import segments as segmod

PAIRS_HINT = "expected k=tps pairs like 1=3000,2=2500"


class _Parser(argparse.ArgumentParser):
    """Bad input: one line naming the fix, exit status 2."""

    def error(self, message: str):
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def path_throughputs(text: str) -> dict[int, float]:
    """"1=3000,2=2500" -> {1: 3000.0, 2: 2500.0}; paths 1..K, positive throughputs."""
    out: dict[int, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        k, sep, v = part.partition("=")
        try:
            if not sep:
                raise ValueError
            k_int, value = int(k), float(v)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{PAIRS_HINT} (got {part.strip()!r})") from None
        if not 1 <= k_int <= 99:
            raise argparse.ArgumentTypeError(f"path numbers start at 1 (got {k_int}); {PAIRS_HINT}")
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"throughput of path {k_int} must be > 0 (got {v})")
        if k_int in out:
            raise argparse.ArgumentTypeError(f"path {k_int} given twice; {PAIRS_HINT}")
        out[k_int] = value
    if 1 not in out:
        raise argparse.ArgumentTypeError(f"path 1 is required; {PAIRS_HINT}")
    return out


def _number(minimum: float, name: str, strict: bool = False):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number for {name} (got {text!r})") from None
        if value < minimum or (strict and value == minimum) or value != value or value == float("inf"):
            rel = ">" if strict else ">="
            raise argparse.ArgumentTypeError(f"{name} must be {rel} {minimum:g} (got {text})")
        return value
    return parse


def parser(prog: str = "analysis") -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("predict", help="the queueing model fitted to a result folder's baseline (predict --help)")
    r = sub.add_parser("report", help="regenerate the derived files of a result folder")
    r.add_argument("folder", help="a result folder results/<experiment>-<stamp>/")
    r.add_argument("-o", "--output", help="write derived files here instead of into FOLDER")
    t = sub.add_parser("traces", help="each tier's own time and each hop, from a traced result folder")
    t.add_argument("folder", help="a result folder of a run with tracing on (runs/*/spans.json.gz)")
    t.add_argument("--json", action="store_true", help="summary.json's \"traces\" instead of text")
    c = sub.add_parser("compare", help="result folders of one experiment, each against the first")
    c.add_argument("folders", nargs="+", metavar="FOLDER", help="A (the baseline), then B, C ...")
    c.add_argument("-o", "--output", help="write compare.json and compare.html here (default: "
                                          "results/compare-<time>/)")
    c.add_argument("--json", action="store_true", help="print compare.json instead of the table")
    c.add_argument("--threshold", type=_number(0, "--threshold", strict=True), default=0.05,
                   help="a throughput fall beyond this share is a regression (default 0.05)")
    c.add_argument("--latency-threshold", type=_number(0, "--latency-threshold", strict=True), default=0.10,
                   help="a p99 rise beyond this share is a regression (default 0.10)")
    c.add_argument("--slo", metavar="FILE", help="also judge every folder against these service levels "
                                                 "(slo.toml: docs/compare.md); a miss exits 1")
    a = sub.add_parser("analyze", help="apply the laws to numbers you give")
    asub = a.add_subparsers(dest="what", required=True, parser_class=_Parser)
    s = asub.add_parser("segments", help="decompose path maxima into per-segment throughputs")
    s.add_argument("--path-throughput", required=True, type=path_throughputs,
                   metavar="1=T1,2=T12,...", help="maximum throughput of each cumulative path 1..k")
    s.add_argument("--tolerance", type=_number(0, "--tolerance"), default=segmod.DEFAULT_TOLERANCE,
                   help="relative noise band for 'not measurable' (default %(default)s)")
    s.add_argument("--target-t5", type=_number(0, "--target-t5", strict=True),
                   help="what-if per-segment throughput of segment 5 for the composition")
    s.add_argument("--think-time", type=_number(0, "--think-time"), help="Z in seconds")
    s.add_argument("--critical-users", type=_number(0, "--critical-users"),
                   help="N*: users at the critical point of the longest path")
    c = asub.add_parser("capacity", help="N = N* + X·Z (interactive response-time law)")
    c.add_argument("--throughput", required=True, type=_number(0, "--throughput"), help="X, requests/s")
    c.add_argument("--critical-users", required=True, type=_number(0, "--critical-users"), help="N*")
    c.add_argument("--think-time", required=True, type=_number(0, "--think-time"), help="Z, seconds")
    return p


def segments_text(paths: dict[int, float], tolerance: float, target_t5: float | None,
                  think_time: float | None, critical_users: float | None) -> str:
    rows = segmod.decompose(paths, tolerance)
    lines = [f"{'segment':<8} {'T(1..k)':>10}  T(k)",
             *(f"{g.name:<8} {g.path_throughput if g.path_throughput is not None else '-':>10}  "
               f"{g.text()}" for g in rows)]
    last = max(paths)
    if target_t5 is not None:
        if 4 in paths:
            whole = segmod.whole_path(paths[4], target_t5)
            lines.append(f"composition: whole path = 1/(1/T(1..4) + 1/T5) = 1/(1/{paths[4]:g} + "
                         f"1/{target_t5:g}) = {whole:.1f}/s")
        else:
            lines.append("composition: needs T(1..4) (give path 4 in --path-throughput)")
    if think_time is not None:
        c = capmod.capacity(paths[last], critical_users, think_time)
        lines.append(f"capacity of path 1..{last}: {c.sentence()}")
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str = "analysis") -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["predict"]:
        from analysis.predict.command import main as predict   # scipy and simpy only when asked
        return predict(argv[1:], prog=f"{prog} predict")
    p = parser(prog)
    args = p.parse_args(argv)
    if args.command == "report":
        from analysis.render.report import regenerate  # matplotlib is imported only when needed
        try:
            written = regenerate(args.folder, args.output)
        except NotAResultFolder as e:
            p.error(str(e))
        except OSError as e:
            p.error(f"cannot write the report: {e}")
        print(f"wrote {len(written)} files; open {written['report.html']}")
        return 0
    if args.command == "traces":
        return _traces(p, args.folder, args.json)
    if args.command == "compare":
        return _compare(args)
    if args.what == "segments":
        if (args.think_time is None) != (args.critical_users is None):
            p.error("--think-time and --critical-users go together (capacity needs both N* and Z)")
        print(segments_text(args.path_throughput, args.tolerance, args.target_t5,
                            args.think_time, args.critical_users))
        return 0
    print(capmod.capacity(args.throughput, args.critical_users, args.think_time).sentence())
    return 0


def _traces(p, folder: str, as_json: bool) -> int:
    import json

    from analysis.load.folder import load
    from analysis.measure import traces
    from analysis.summary import analyse
    try:
        t = analyse(load(folder)).summary.get("traces")
    except NotAResultFolder as e:
        p.error(str(e))
    if not t:
        p.error(f"{folder}: no run has spans (runs/*/spans.json.gz): run the experiment with tracing on, "
                "e.g. ./testbed run segments --tracing")
    print(json.dumps(t, indent=1, default=str) if as_json else traces.text(t))
    return 0


def _compare(args) -> int:
    """./testbed compare: 0 no significant regression, 1 a regression, 2 bad input (one line)."""
    import json
    import time
    from pathlib import Path

    from analysis import compare, slo
    from analysis.render.pages import render
    try:
        levels = slo.load(args.slo) if args.slo else None
        analyses = compare.load(args.folders)
        result = compare.compare(analyses, args.folders, args.threshold, args.latency_threshold)
    except (compare.CompareError, slo.SloError) as e:
        sys.stderr.write(f"compare: {e}\n")
        return 2
    out = Path(args.output) if args.output else (
        Path(args.folders[0]).resolve().parent / f"compare-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "compare.json").write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
        (out / "compare.html").write_text(render("compare.html.j2", c=result), encoding="utf-8")
    except OSError as e:
        sys.stderr.write(f"compare: cannot write {out}: {e}\n")
        return 2
    suites = [(str(f), slo.judge(an, levels)) for f, an in zip(args.folders, analyses)] if levels else []
    if suites:
        result["slo"] = [{"folder": f, "levels": r} for f, r in suites]
        (out / "compare.json").write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
        slo.write(out, suites)
    print(json.dumps(result, indent=1, default=str) if args.json else
          compare.text(result) + "".join("\n" + slo.text(f, r) for f, r in suites)
          + f"\ncompare: {out / 'compare.html'}" + (f" · {out / slo.FILE_JUNIT}" if suites else ""))
    return max(compare.exit_status(result), 1 if any(slo.missed(r) for _, r in suites) else 0)


if __name__ == "__main__":
    sys.exit(main())
