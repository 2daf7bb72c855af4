"""How much of Zipkin's heap one span takes (docs/tracing.md, "Zipkin's memory"): Zipkin's own jar
(services/zipkin, `./testbed build`) with the JVM flags the testbed gives it, on a free loopback
port, sent N spans of the largest size our producers send (SPAN_MAX_BYTES of JSON, the relay's and
the tiers' bounds), then a full collection and the heap in use read with jcmd. Prints one JSON line
per shape: bytes of heap per span, and the ZIPKIN_MAX_SPANS the heap would hold at that size.

    .venv/bin/python tests/hostile_observability/zipkin_memory_bench.py [--spans 40000] [--jar PATH]

A benchmark, not a test: it starts a JVM and takes a minute or two of CPU."""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

from testbed import procs
from testbed.haproxy.spanline import SPAN_MAX_BYTES
from testbed.observe import tracing
from testbed.tiers import ZIPKIN_JAR


def span(trace: str, i: int, tags: int) -> dict:
    """A span of the largest size a producer sends: a full name, `tags` tags whose values fill the
    rest of SPAN_MAX_BYTES."""
    out = {"traceId": trace, "id": f"{i + 1:016x}", "parentId": f"{i + 2:016x}", "kind": "SERVER",
           "name": ("n" * 100 + uuid.uuid4().hex)[:128], "timestamp": 1_790_000_000_000_000 + i, "duration": 1000,
           "localEndpoint": {"serviceName": "haproxy"}, "remoteEndpoint": {"serviceName": "front"}, "tags": {}}
    room = SPAN_MAX_BYTES - len(json.dumps(out, separators=(",", ":")).encode())
    per_tag = room // tags - len('"":"",') - 12
    for t in range(tags):
        out["tags"][f"tag.{t:02d}"] = (uuid.uuid4().hex * 20)[:max(1, min(256, per_tag))]
    return out


def heap_used_kib(pid: int) -> int:
    subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, check=True, timeout=120)
    out = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    return sum(int(m) for m in re.findall(r"used (\d+)K", out.split("Metaspace")[0])[:2])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spans", type=int, default=40_000)
    p.add_argument("--jar", type=Path, default=ZIPKIN_JAR)
    a = p.parse_args()
    port = procs.free_port()
    env = {**os.environ, "MEM_MAX_SPANS": str(10 * a.spans), "STORAGE_TYPE": "mem"}
    argv = ["java", *tracing.ZIPKIN_JVM_FLAGS, "-jar", str(a.jar), *tracing.zipkin_args(port, "127.0.0.1")]
    java = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while not procs.http_ok(f"{base}/health"):
            if java.poll() is not None or time.monotonic() > deadline:
                print("zipkin did not start", file=sys.stderr)
                return 1
            time.sleep(1)
        for shape, per_trace, tags in (("1 span a trace, 5 tags", 1, 5), ("15 spans a trace, 12 tags", 15, 12)):
            before = heap_used_kib(java.pid)
            sent = 0
            while sent < a.spans:
                batch = []
                for _ in range(200):
                    trace = uuid.uuid4().hex if sent % per_trace == 0 else trace
                    batch.append(span(trace, sent, tags))
                    sent += 1
                tracing.post_spans(f"{base}/api/v2/spans", batch, timeout=60)
            time.sleep(2)
            after = heap_used_kib(java.pid)
            per_span = (after - before) * 1024 / a.spans
            heap = 640 * 1024 * 1024
            print(json.dumps({"shape": shape, "spans": a.spans, "json_bytes_per_span": SPAN_MAX_BYTES,
                              "heap_kib_before": before, "heap_kib_after": after,
                              "heap_bytes_per_span": round(per_span),
                              "spans_in_half_the_heap": int(heap / 2 / per_span)}), flush=True)
    finally:
        java.terminate()
        java.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
