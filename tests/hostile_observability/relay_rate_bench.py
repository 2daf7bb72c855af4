"""How many of HAProxy's lines the span relay takes at a given rate (docs/tracing.md): the relay
as HAProxy runs it (a process on its Unix datagram sockets, a stand-in Zipkin), and lines sent as
HAProxy sends them -- dealt out to the sockets in turn, non-blocking: a line that finds its
socket's queue full is lost (HAProxy counts it in DroppedLogs). A queue holds
net.unix.max_dgram_qlen datagrams (10 by default), so what is lost depends on how promptly the
relay gets the CPU. Prints one JSON line per rate.

    .venv/bin/python tests/hostile_observability/relay_rate_bench.py [--rates 1000,4000] [--seconds 5] [--sockets 4]

A benchmark, not a test: loopback only, bounded by --seconds per rate."""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hostile_observability.tracehaproxy import FakeZipkin  # noqa: E402
from testbed.observe.tracing import RELAY_SOCKETS, relay_paths  # noqa: E402
from polling import until  # noqa: E402

LINE = ('tp {i:032x} b7ad6b7169203331 {i:016x} 1795580886.259 0 2 0 1 3 6 15 '
        '200 web front front1 GET "/seg/5?backend=axis&op=ping&n=0"\n')


def one_rate(rate: int, seconds: float, sockets: int) -> dict:
    zipkin = FakeZipkin()
    path = Path(tempfile.mkdtemp(prefix="relay-bench")) / "r" / "spans.sock"
    paths = [str(p) for p in relay_paths(path, sockets)]
    relay = subprocess.Popen([sys.executable, "-m", "testbed.haproxy.spans", "--socket", str(path),
                              "--sockets", str(sockets), "--zipkin", zipkin.url], stderr=subprocess.DEVNULL)
    try:
        until("the relay's sockets", lambda: all(os.path.exists(p) for p in paths), 60)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.setblocking(False)
        sent = lost = i = 0
        start = time.monotonic()
        while (now := time.monotonic()) - start < seconds:
            while i < int((now - start) * rate):
                i += 1
                try:
                    sock.sendto(LINE.format(i=i).encode(), paths[i % sockets])
                    sent += 1
                except BlockingIOError:
                    lost += 1
            time.sleep(0.0005)
        until("every line taken sent on", lambda: len(zipkin.received()) >= sent, 60)
        return {"rate": rate, "sockets": sockets, "seconds": seconds, "offered": i, "taken": sent,
                "lost_at_socket": lost,
                "lost_share": round(lost / max(1, i), 4), "spans_in_zipkin": len(zipkin.received())}
    finally:
        relay.terminate()
        relay.wait(30)
        zipkin.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rates", default="1000,4000")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--sockets", type=int, default=RELAY_SOCKETS)
    a = p.parse_args()
    print(json.dumps({"max_dgram_qlen": Path("/proc/sys/net/unix/max_dgram_qlen").read_text().strip(),
                      "load_average": os.getloadavg()}))
    for rate in map(int, a.rates.split(",")):
        print(json.dumps(one_rate(rate, a.seconds, a.sockets)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
