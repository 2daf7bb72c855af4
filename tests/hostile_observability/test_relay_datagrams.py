"""The span relay against crafted datagrams (haproxy/spanline.py, haproxy/spans.py): each one is
counted and dropped, none ends the relay, and a good line sent after all of them still becomes a
span in Zipkin. The relay runs as HAProxy runs it, a process of its own on its Unix socket."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from testbed import ROOT
from testbed.haproxy import spanline, spans

from polling import until

from hostile_observability.tracehaproxy import FakeZipkin

GOOD = ('tp 0af7651916cd43dd8448eb211c80319c b7ad6b7169203331 17abe49213124b2d 1795580886.259 0 2 0 1 3 6 15 '
        '200 web front front1 GET "/seg/5?backend=axis&op=ping&n=0"\n')


def _with(field: str, value: str) -> bytes:
    parts = GOOD.split(" ")
    parts[spanline.FIELDS.index(field)] = value
    return " ".join(parts).encode()


CRAFTED: list[tuple[str, bytes]] = [
    ("accept time inf", _with("accept", "inf")),
    ("accept time nan", _with("accept", "nan")),
    ("accept time -inf", _with("accept", "-inf")),
    ("accept time 1e308", _with("accept", "1e308")),
    ("accept time negative", _with("accept", "-1795580886.259")),
    ("accept time before 2000", _with("accept", "100000000.000")),
    ("accept time after 2100", _with("accept", "9999999999.999")),
    ("accept time without milliseconds", _with("accept", "1795580886")),
    ("accept time with a digit too many", _with("accept", "1795580886.2590")),
    ("negative duration", _with("ta", "-15")),
    ("huge duration", _with("ta", "99999999999999999999")),
    ("duration beyond a day", _with("ta", "86400001")),
    ("timing not a number", _with("tw", "1e3")),
    ("status of 4 digits", _with("status", "2000")),
    ("trace id all zeros", _with("trace", "0" * 32)),
    ("span id all zeros", _with("span", "0" * 16)),
    ("parent id all zeros", _with("parent", "0" * 16)),
    ("upper-case trace id", _with("trace", "0AF7651916CD43DD8448EB211C80319C")),
    ("trace id 31 digits", _with("trace", "0" * 30 + "1")),
    ("frontend name of 100 bytes", _with("frontend", "w" * 100)),
    ("frontend name with a quote", _with("frontend", 'we"b')),
    ("method of 100 bytes", _with("method", "G" * 100)),
    ("bad UTF-8", GOOD.encode().replace(b"/seg/5", b"/seg/\xff\xfe")),
    ("non-ASCII UTF-8 in the URI", GOOD.replace("/seg/5", "/s\u00e9g").encode()),
    ("overlong URI (64 KB datagram)", GOOD.replace("/seg/5", "/" + "a" * 65000).encode()),
    ("URI without its closing quote", GOOD.replace('n=0"', "n=0").encode()),
    ("carriage return before the newline", GOOD.replace('"\n', '"\r\n').encode()),
    ("quote inside the URI", GOOD.replace("/seg/5", '/seg"5').encode()),
    ("newline inside the URI", GOOD.replace("/seg/5", "/seg\n5").encode()),
    ("two lines in one datagram", (GOOD + GOOD).encode()),
    ("NUL byte", GOOD.replace("front1", "fr\x00nt1").encode()),
    ("a field missing", GOOD.replace(" front1", "").encode()),
    ("a field extra", GOOD.replace(" front1", " front1 extra").encode()),
    ("tabs for spaces", GOOD.replace(" ", "\t").encode()),
    ("no URI", GOOD.split(' "')[0].encode()),
    ("empty URI", GOOD.replace('"/seg/5?backend=axis&op=ping&n=0"', '""').encode()),
    ("empty datagram", b""),
    ("not our tag", GOOD.replace("tp ", "xx ", 1).encode()),
    ("only spaces", b" " * 300),
]


@pytest.mark.parametrize("label,data", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_a_crafted_datagram_is_counted_and_dropped(label, data):
    relay = spans.Relay("http://127.0.0.1:9", say=lambda text: None)
    relay.add(data)
    assert relay.counts["ignored"] == 1 and not relay.queue, label


def test_the_good_line_makes_one_span_within_the_byte_bound():
    relay = spans.Relay("http://127.0.0.1:9", say=lambda text: None)
    relay.add(GOOD.encode())
    (body,) = relay.queue
    assert len(body) <= spanline.SPAN_MAX_BYTES and relay.counts["ignored"] == 0


def test_a_long_uri_is_clipped_to_the_tag_bound_not_refused():
    """HAProxy logs up to 1024 bytes of a URI (then the closing quote): the span keeps its path
    clipped to 256 bytes, ending with the mark."""
    line = GOOD.replace("/seg/5?backend=axis&op=ping&n=0", "/" + "p" * 1023)
    s = spanline.span(spanline.parse(line))
    assert s["tags"]["http.path"].endswith(spanline.MARK) and len(s["tags"]["http.path"].encode()) == 256
    assert len(spanline.encode(s)) <= spanline.SPAN_MAX_BYTES


def test_the_relay_process_outlives_every_crafted_datagram_and_still_relays(tmp_path):
    zipkin = FakeZipkin()
    path = tmp_path / "r" / "spans.sock"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "cli"), os.environ.get("PYTHONPATH", "")])}
    relay = subprocess.Popen([sys.executable, "-m", "testbed.haproxy.spans", "--socket", str(path),
                              "--zipkin", zipkin.url], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        until("the relay's socket", lambda: path.exists() or relay.poll() is not None, 60)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as haproxy:
            haproxy.settimeout(30)          # blocks while the relay's queue is full (it holds a few)
            for _, data in CRAFTED:
                haproxy.sendto(data, str(path))
            assert relay.poll() is None, "a crafted datagram ended the relay"
            haproxy.sendto(GOOD.encode(), str(path))
        until("the good line's span in Zipkin", lambda: zipkin.received(), 60)
        assert [s["id"] for s in zipkin.received()] == ["17abe49213124b2d"]
        assert relay.poll() is None
    finally:
        relay.terminate()
        relay.wait(30)
        zipkin.stop()
    assert relay.returncode == 0, relay.stderr.read().decode(errors="replace")[-2000:]

