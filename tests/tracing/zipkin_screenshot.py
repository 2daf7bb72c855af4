"""The screenshot in docs/tracing.md and README.md: one /seg/5 trace in Zipkin's UI.

    .venv/bin/python tests/tracing/zipkin_screenshot.py --zipkin http://127.0.0.1:9411 \
        [--backend gsoap] [-o docs/zipkin-trace.png]

Takes, of the traces through the backend that Locust started, the one with the most spans
(a complete one), and has headless Chromium (Debian's `chromium`) photograph Zipkin's page of
it. A stack with tracing on and some traced load first: `./testbed up --tracing`, then a
Locust run with --trace-sample (the UI's "Trace sample"), e.g. a few seconds of Seg5ViaClonesGsoap.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--zipkin", required=True, help="Zipkin's base URL (its API and UI)")
    p.add_argument("--ui", default=None, help="the UI's base when it differs (HAProxy's zipkin entry)")
    p.add_argument("--backend", default="gsoap", choices=("axis", "gsoap"))
    p.add_argument("-o", "--output", default="docs/zipkin-trace.png")
    a = p.parse_args(argv)
    if not shutil.which("chromium"):
        raise SystemExit("zipkin_screenshot: chromium not found (apt-get install chromium)")
    with urllib.request.urlopen(f"{a.zipkin}/api/v2/traces?serviceName={a.backend}&limit=100", timeout=30) as r:
        traces = json.load(r)
    through = [t for t in traces if any(s["localEndpoint"]["serviceName"] == "locust" for s in t)]
    if not through:
        raise SystemExit(f"zipkin_screenshot: no trace through {a.backend} in {a.zipkin}")
    best = max(through, key=len)
    url = f"{(a.ui or a.zipkin).rstrip('/')}/zipkin/traces/{best[0]['traceId']}"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                        "--window-size=1400,1000", "--virtual-time-budget=8000", f"--screenshot={a.output}", url],
                       check=True, capture_output=True, timeout=120)
    print(f"{a.output}: {url} ({len(best)} spans)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
