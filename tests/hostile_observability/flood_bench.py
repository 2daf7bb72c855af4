"""The flood: sampled requests with 8 KB paths through HAProxy to a stack started with tracing
on (Zipkin, every tier exporting), on loopback, bounded in count and time. What it measures
per process -- Zipkin, HAProxy's processes (master, worker, span relay), each tier's replica --
is its peak RSS (VmHWM, the kernel's high-water mark, read every half second) against the bound
stated below, and whether it is alive at the end; Zipkin's collector counts (spans accepted,
dropped), the tiers' own counts from their logs (spans dropped, sampled requests over the rate
cap), and the largest span Zipkin stored per service.

    .venv/bin/python tests/hostile_observability/flood_bench.py [--seconds 120] [--max-requests N]
        [--connections 32] [--max-per-s R] [-o results/flood-STAMP]

wrk sends them (two threads, keep-alive connections), three 8 KB targets in turn, each request
with a new sampled traceparent: /seg/5 with an 8 KB path parameter (;pad=ppp..., which Tomcat
maps to /seg/5, so the whole path runs -- through gSOAP, then Axis2 -- and the front's span name
and http.path tag carry the raw 8 KB URI), and an 8 KB path under /seg/5/ (answered 404 by the
front, after its span). Writes figures.json into the output folder.

Stated bounds of RSS (MiB): a Java tier its heap (JVM_HEAP, 512m by default) + 384 for what is
not heap (metaspace, code, thread stacks, buffers); Zipkin its heap (640m) + 384; gSOAP 256 (its
span queue is a fixed-size record per request, at most ~5 MB); each HAProxy process 256."""
from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS.parent / "cli")]

PAD = 8000                              # bytes of path beyond /seg/5: with the headers, under Tomcat's 8 KB
JAVA_HEAP_MIB, ZIPKIN_HEAP_MIB, NON_HEAP_MIB = 512, 640, 384
BOUND_MIB = {"front": JAVA_HEAP_MIB + NON_HEAP_MIB, "clone": JAVA_HEAP_MIB + NON_HEAP_MIB,
             "axis": JAVA_HEAP_MIB + NON_HEAP_MIB, "gsoap": 256, "zipkin": ZIPKIN_HEAP_MIB + NON_HEAP_MIB,
             "haproxy": 256}
SPAN_MAX = 2048                         # each producer's bound of one span (java-common SpanBounds)


def targets() -> list[str]:
    pad = "p" * PAD
    return [f"/seg/5;pad={pad}?backend=gsoap&op=ping&n=0", f"/seg/5;pad={pad}?backend=axis&op=ping&n=0",
            f"/seg/5/{pad}"]


def status_kib(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def processes(st) -> dict[str, tuple[int, str]]:
    """name -> (pid, kind of bound) of every process the flood should leave alive and bounded."""
    state = st.load()
    out = {"zipkin": (state["tracing"]["zipkin"].pid, "zipkin")}
    hp = state["haproxy"].pid
    out["haproxy-master"] = (hp, "haproxy")
    for i, c in enumerate(children(hp)):
        out[f"haproxy-child-{i + 1}"] = (c, "haproxy")       # the worker and the span relay
    for name, reps in state["replicas"].items():
        for r in reps:
            out[f"{name}-{r['index']}"] = (r["proc"].pid, name)
    return out


class Watch:
    """Peak RSS of each process, read every half second (VmHWM: the kernel's own peak)."""

    def __init__(self, procs: dict[str, tuple[int, str]]):
        self.procs, self.peak = procs, {n: 0 for n in procs}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            self.sample()

    def sample(self) -> None:
        for name, (pid, _) in self.procs.items():
            kib = status_kib(pid, "VmHWM") or status_kib(pid, "VmRSS") or 0
            self.peak[name] = max(self.peak[name], kib)

    def end(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sample()


# wrk's script: each request a new sampled traceparent, the three targets in turn; each of its
# two threads stops after its share of --max-requests
SCRIPT = """-- flood (tests/hostile_observability/flood_bench.py)
local per_thread = {per_thread}
local paths = {{{paths}}}
local n, i = 0, 0
local threads = 0
local function hex(words)
  local s = ""
  for _ = 1, words do s = s .. string.format("%04x", math.random(0, 65535)) end
  return s
end
function setup(thread)
  threads = threads + 1
  thread:set("seed", threads)
end
function init(args)
  math.randomseed(os.time() * 1000 + seed * 7919)
  i = seed
end
function request()
  i = i + 1
  local tp = "00-1" .. hex(8):sub(2) .. "-1" .. hex(4):sub(2) .. "-01"
  return wrk.format("GET", paths[i % #paths + 1], {{["traceparent"] = tp}})
end
function response(status, headers, body)
  n = n + 1
  if n >= per_thread then wrk.thread:stop() end
end
"""


def flood(url: str, seconds: int, max_requests: int, connections: int, workdir: Path) -> dict:
    """wrk: sampled requests with 8 KB paths on `connections` keep-alive connections, until
    either bound (seconds, max_requests); its figures (requests, rps, non_2xx, socket_errors)."""
    from testbed.bench.wrk import wrk
    script = workdir / "flood.lua"
    script.write_text(SCRIPT.format(per_thread=max(1, -(-max_requests // 2)),
                                    paths=", ".join(f'"{p}"' for p in targets())))
    return wrk(url, connections, seconds, script)


def get(url: str, timeout: float = 30) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def zipkin_counts(base: str) -> dict[str, float]:
    """Zipkin's collector counters (its Prometheus endpoint): spans accepted, dropped, ..."""
    out: dict[str, float] = {}
    try:
        text = get(f"{base}/prometheus").decode()
    except OSError as e:
        return {"error": str(e)}
    for line in text.splitlines():
        m = re.match(r"^(zipkin_collector_[a-z_]+)(\{[^}]*\})?\s+([0-9.eE+-]+)$", line)
        if m and m.group(1).endswith("_total") and 'transport="http"' in (m.group(2) or 'transport="http"'):
            out[m.group(1)] = out.get(m.group(1), 0) + float(m.group(3))
    return out


def largest_spans(base: str) -> dict[str, int]:
    """The largest span Zipkin stored, per service, in bytes of JSON (of up to 200 recent traces)."""
    out: dict[str, int] = {}
    try:
        traces = json.loads(get(f"{base}/api/v2/traces?limit=200&lookback=3600000"))
    except (OSError, ValueError):
        return out
    for trace in traces:
        for s in trace:
            svc = s.get("localEndpoint", {}).get("serviceName", "?")
            out[svc] = max(out.get(svc, 0), len(json.dumps(s, separators=(",", ":"), ensure_ascii=False).encode()))
    return out


LOG_COUNTS = {          # the tiers' own counters, as their exporters log them
    "dropped": [re.compile(r"span\(s\) dropped .*?, (\d+) in all"), re.compile(r", (\d+) dropped,")],
    "capped": [re.compile(r"over the cap .*?, (\d+) in all"), re.compile(r"dropped, (\d+) over the cap")],
}


def log_counts(path: str) -> dict[str, int]:
    """The counts of the process's last start (a stack's logs are appended to across starts)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return {}
    text = text[text.rfind("tracing on"):]
    out = {}
    for key, patterns in LOG_COUNTS.items():
        found = [int(v) for p in patterns for v in p.findall(text)]
        out[key] = max(found) if found else 0
    return out


def run(st, seconds: int, max_requests: int, connections: int) -> dict:
    """The flood against a running stack with tracing on; the figures."""
    procs_ = processes(st)
    watch = Watch(procs_)
    load = flood(st.web_url(), seconds, max_requests, connections, st.dir)
    time.sleep(3)                       # the exporters' next flush (every second)
    watch.end()
    zipkin = st.tracing_url()
    rows = {}
    for name, (pid, kind) in procs_.items():
        peak = round(watch.peak[name] / 1024, 1)
        rows[name] = {"pid": pid, "peak_rss_mib": peak, "bound_mib": BOUND_MIB[kind],
                      "within": peak <= BOUND_MIB[kind], "alive": Path(f"/proc/{pid}").exists()}
    for name, reps in st.load()["replicas"].items():
        for r in reps:
            rows[f"{name}-{r['index']}"].update(log_counts(r["proc"].log))
    return {"load": load, "processes": rows, "zipkin_collector": zipkin_counts(zipkin),
            "largest_span_bytes": largest_spans(zipkin), "span_bound_bytes": SPAN_MAX,
            "all_alive": all(r["alive"] for r in rows.values()),
            "all_within": all(r["within"] for r in rows.values())}


def start_stack(name: str = "flood", knobs: dict[str, str] | None = None):
    from stacks import make_stack_config
    from testbed.stacks.local import LocalStack
    st = LocalStack(make_stack_config(name), log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1, "axis": 1, "gsoap": 1}, {"CLIENT_MODE": "pool", **(knobs or {})}, tracing=True)
    except BaseException:
        st.down()
        raise
    return st


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--max-requests", type=int, default=500_000)
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--max-per-s", default=None, help="TRACING_MAX_PER_S of the stack (default: the tiers' own)")
    ap.add_argument("-o", "--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if not 0 < args.seconds <= 900 or not 0 < args.max_requests or not 0 < args.connections <= 256:
        ap.error("--seconds 0..900, --max-requests > 0, --connections 1..256")
    from testbed import ROOT
    out = args.out or ROOT / "results" / f"flood-{datetime.now(timezone.utc):%Y%m%d-%H%M%S}"
    st = start_stack(knobs={"TRACING_MAX_PER_S": args.max_per_s} if args.max_per_s else None)
    try:
        figures = run(st, args.seconds, args.max_requests, args.connections)
    finally:
        st.down()
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(json.dumps(figures, indent=1))
    print(f"flood: figures in {out / 'figures.json'}")
    return 0 if figures["all_alive"] and figures["all_within"] else 1


if __name__ == "__main__":
    sys.exit(main())
