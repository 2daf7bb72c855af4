"""Instructions per request of the gSOAP service, by callgrind, for each serializers of the
arrays (GSOAP_SERIALIZERS) and operation: the figures of docs/serialization.md ("the profile
that explains it"). Instruction counts do not move with the load of a shared machine the way
times do, so the before/after comparison holds on a busy host.

For each point the service (iterative model, one connection) runs under
`valgrind --tool=callgrind` twice, serving K1 and then K2 requests of tb-gsoap-client (same
serializers as the service): instructions per request = (Ir(K2) - Ir(K1)) / (K2 - K1), so
start-up and shut-down cancel out. The K2 run's profile is kept, and the functions with the
most instructions of their own (exclusive) are listed per request (start-up included, which
the K2 requests dwarf).

    .venv/bin/python tests/gsoap/serializers_profile.py [-o DIR] [--ops ping,sendInts:1000,...]
        [--before BUILD]   # also an older build's service and client (e.g. main's), as "before"

Writes DIR/profile.json and DIR/profile.md (default results/serializers-profile-<time>); a
few minutes (valgrind runs the service ~50x slower). Needs valgrind (apt-get install valgrind).
Note: callgrind counts a `rep stosb` (glibc's memset of large blocks) once per byte, so the
memset lines overstate what clearing gSOAP's hash tables costs in time.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "cli"), str(ROOT)]

from testbed import procs, tiers  # noqa: E402

DEFAULT_OPS = ("ping,sendBytes:1000,sendInts:1000,sendFloats:1000,sendDoubles:1000,echoInts:1000,"
               "sendInts:100000,sendFloats:100000,sendDoubles:100000")
TOP = 12


def requests_for(n: int) -> tuple[int, int]:
    """(K1, K2): enough requests that the difference is well above the start-up's noise."""
    if n >= 100_000:
        return 2, 8
    if n >= 1000:
        return 20, 120
    return 100, 600


def total_ir(outfile: Path) -> int:
    for line in outfile.read_text(errors="replace").splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {outfile}")


def run_point(serializers: str, op: str, n: int, calls: int, out: Path, before: Path | None = None) -> int:
    """The service under callgrind serving `calls` requests; its total instructions.
    serializers "before": the service and client of the build `before` (no serializers knob)."""
    port = procs.free_port()
    build = before if serializers == "before" else tiers.BUILD_DIR
    knob = {} if serializers == "before" else {"GSOAP_SERIALIZERS": serializers}
    env = tiers.process_env(tiers.TIERS["gsoap"], port, extra={"GSOAP_SERVER_MODEL": "iterative", **knob})
    server, client = (build / "services" / "gsoap" / x for x in ("tb-gsoap-server", "tb-gsoap-client"))
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(server)]
    proc = procs.start(f"callgrind-{serializers}-{op}", argv, out.with_suffix(".log"), env=env, port=port)
    try:
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}/health", 120)
        flag = [] if serializers == "before" else ["--serializers", serializers]
        r = subprocess.run([str(client), "--endpoint", f"http://127.0.0.1:{port}/gsoap", "--op", op,
                            "--n", str(n), "--calls", str(calls), *flag, "--json"],
                           capture_output=True, text=True, timeout=3600)
        result = json.loads(r.stdout)
        if r.returncode != 0 or result["ok"] != calls:
            raise RuntimeError(f"{serializers} {op} n={n}: {result.get('first_fault') or r.stderr}")
    finally:
        procs.stop(proc, timeout=60)
    return total_ir(out)


def top_functions(outfile: Path, per: int, limit: int = TOP) -> list[dict]:
    """The functions with the most exclusive instructions, per request."""
    text = subprocess.run(["callgrind_annotate", str(outfile)], capture_output=True, text=True).stdout
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)", line)
        if m and "PROGRAM TOTALS" not in line:
            name = re.sub(r"\s*\[[^\]]*\]$", "", m.group(2)).split(":", 1)[-1]
            rows.append({"function": name[:110], "ir_per_request": int(m.group(1).replace(",", "")) // per})
    return rows[:limit]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", type=Path, default=None)
    ap.add_argument("--ops", default=DEFAULT_OPS, help=f"operations and item counts (default {DEFAULT_OPS})")
    ap.add_argument("--serializers", default="generated,tuned")
    ap.add_argument("--before", type=Path, default=None,
                    help="the build folder of an older tree (e.g. main's): its service is profiled too, as 'before'")
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("serializers_profile: valgrind not found; install it: sudo apt-get install -y valgrind")
    out = args.output or ROOT / "results" / f"serializers-profile-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    points = []
    for part in args.ops.split(","):
        op, _, n = part.partition(":")
        for serializers in (["before"] if args.before else []) + args.serializers.split(","):
            k1, k2 = requests_for(int(n or 0))
            a = run_point(serializers, op, int(n or 0), k1, out / f"{serializers}-{op}-{n or 0}-{k1}.cg", args.before)
            cg = out / f"{serializers}-{op}-{n or 0}-{k2}.cg"
            b = run_point(serializers, op, int(n or 0), k2, cg, args.before)
            per = (b - a) // (k2 - k1)
            points.append({"serializers": serializers, "op": op, "n": int(n or 0), "ir_per_request": per,
                           "ir_per_item": per / int(n) if n else None, "requests": [k1, k2],
                           "top": top_functions(cg, k2)})
            print(f"serializers_profile: {serializers:9s} {op} n={n or 0}: {per:,} instructions per request",
                  flush=True)
            (out / "profile.json").write_text(json.dumps(points, indent=1))
    def ir(s, op, n):
        p = next((q for q in points if q["serializers"] == s and q["op"] == op and q["n"] == n), None)
        return p["ir_per_request"] if p else None
    cols = (["before"] if args.before else []) + args.serializers.split(",")
    lines = ["| operation | n | " + " | ".join(f"{c} Ir/request" for c in cols) + " | generated / tuned |",
             "|---|---|" + "---|" * (len(cols) + 1)]
    for op, n in dict.fromkeys((p["op"], p["n"]) for p in points):
        g, t = ir("generated", op, n), ir("tuned", op, n)
        lines.append(f"| {op} | {n:,} | " + " | ".join(f"{ir(c, op, n):,}" if ir(c, op, n) else "-" for c in cols)
                     + (f" | {g / t:.2f}× |" if g and t else " | - |"))
    for p in points:
        lines += ["", f"### {p['serializers']} {p['op']} n={p['n']:,}: {p['ir_per_request']:,} Ir/request", "",
                  "| function (exclusive) | Ir/request |", "|---|---|"]
        lines += [f"| `{f['function']}` | {f['ir_per_request']:,} |" for f in p["top"]]
    (out / "profile.md").write_text("# Instructions per request of the gSOAP service (callgrind)\n\n"
                                    + "\n".join(lines) + "\n")
    print(f"serializers_profile: {out / 'profile.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
