"""The pure parts of the tiers' trace rules: the catalogue's JSON export (what JUnit and ctest
read) is the catalogue, and Locust's spans and queue are bounded in bytes."""
from __future__ import annotations

import json
import subprocess
import sys

from testbed import ROOT

from hostile_observability import traceparents


def test_the_json_export_the_tiers_unit_tests_read_is_the_catalogue():
    assert traceparents.JSON_EXPORT.read_text() == traceparents.export(), \
        "stale: run python tests/hostile_observability/traceparents.py"
    cases = json.loads(traceparents.JSON_EXPORT.read_text())
    assert [(c["label"], c["headers"], c["expected"]) for c in cases] == traceparents.CASES
    assert len(cases) >= 40


def locust(code: str) -> dict:
    """Runs code with loadgen's trace_context imported as t, in a process of its own (importing
    Locust monkey-patches the process: gevent); the last line it prints is JSON."""
    r = subprocess.run([sys.executable, "-c", "import json, trace_context as t\n" + code], cwd=ROOT / "loadgen",
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.splitlines()[-1])


def test_locust_clips_a_long_url_and_name_within_the_byte_bounds():
    got = locust("""
tr = t.Tracer("http://127.0.0.1:9", 1.0)
url = "http://127.0.0.1:8080/seg/5/" + "\\u00e9" * 8000
tr.record("a" * 32, "b" * 16, "GET " + "n" * 9000, url, 1.0, 0.01, 200, "x" * 5000)
span, size = tr.queue[0]
print(json.dumps({"span": span, "size": size, "json": len(json.dumps(span, separators=(",", ":"),
                  ensure_ascii=False).encode()), "short": t.clip("GET /seg/5", 128)}))
""")
    span = got["span"]
    assert len(span["name"].encode()) <= 128 and span["name"].endswith("...[truncated]")
    assert len(span["tags"]["http.url"].encode()) <= 256 and span["tags"]["http.url"].startswith("http://127.0.0.1")
    assert "\ufffd" not in span["tags"]["http.url"]           # clipped on a character's boundary
    assert len(span["tags"]["error"].encode()) <= 256
    assert got["json"] <= got["size"] <= 2048
    assert got["short"] == "GET /seg/5"


def test_locust_counts_json_escapes_in_a_spans_bytes():
    got = locust("""
tr = t.Tracer("http://127.0.0.1:9", 1.0)
nasty = '"\\\\\\x01\\u00e9' * 2000
tr.record("a" * 32, "b" * 16, "GET " + nasty, "http://h/" + nasty, 1.0, 0.01, 200, nasty)
span, size = tr.queue[0]
print(json.dumps({"size": size, "json": len(json.dumps(span, separators=(",", ":"), ensure_ascii=False).encode())}))
""")
    assert got["json"] <= got["size"] <= 2048, got


def test_locusts_queue_holds_at_most_its_bytes_and_counts_what_it_drops():
    got = locust("""
tr = t.Tracer("http://127.0.0.1:9", 1.0)
url = "http://127.0.0.1:8080/seg/5/" + "p" * 8000
for i in range(t.QUEUE_MAX):
    tr.record(f"{i + 1:032x}", "b" * 16, "GET /seg/5", url, 1.0, 0.01, 200, None)
print(json.dumps({"bytes": tr.queued_bytes, "queued": len(tr.queue), "counts": tr.counts, "max": t.QUEUE_MAX_BYTES,
                  "real": sum(len(json.dumps(s, separators=(",", ":")).encode()) for s, _ in tr.queue)}))
""")
    assert got["counts"]["dropped"] == 0 or got["bytes"] <= got["max"]
    assert got["real"] <= got["bytes"] <= got["max"]
    assert got["queued"] + got["counts"]["dropped"] == got["counts"]["traced"]
