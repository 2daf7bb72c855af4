"""What the span relay sends Zipkin (haproxy/spans.py): a batch Zipkin refuses (HTTP 400) is split
and sent again without the span it refuses, never dropped whole; and every span the relay's last
gate lets through (spanline.encode), Zipkin accepts. First against a stand-in that refuses one
marked span, then against Zipkin itself (its jar, built by `./testbed build`)."""
from __future__ import annotations

import json
import math
import urllib.request

import pytest

from testbed import procs
from testbed.haproxy import spanline, spans
from testbed.observe import tracing
from testbed.tiers import ZIPKIN_JAR

from polling import until

from hostile_observability.tracehaproxy import FakeZipkin

LINE = ('tp {trace} b7ad6b7169203331 {span} 1795580886.259 0 2 0 1 3 6 15 '
        '200 web front front1 GET "{uri}"\n')


def line(i: int, uri: str = "/seg/5") -> str:
    return LINE.format(trace=f"{i + 1:032x}", span=f"{i + 1:016x}", uri=uri)


def test_a_refused_batch_is_sent_again_without_the_span_zipkin_refuses():
    """Ten lines, one of whose spans the stand-in refuses: the nine others arrive, the one is
    counted as refused, and the halving takes a handful of posts, not one per span."""
    zipkin = FakeZipkin(refuse=lambda s: s["tags"]["http.path"] == "/refuse-me")
    try:
        relay = spans.Relay(zipkin.url, say=lambda text: None)
        for i in range(10):
            relay.add(line(i, "/refuse-me" if i == 6 else "/seg/5"))
        relay.flush()
        got = sorted(s["id"] for s in zipkin.received())
        assert got == [f"{i + 1:016x}" for i in range(10) if i != 6]
        assert (relay.counts["sent"], relay.counts["refused"], relay.counts["dropped"]) == (9, 1, 0)
        assert zipkin.posts[0] == 400 and len(zipkin.posts) <= 2 * math.ceil(math.log2(10)) + 1
    finally:
        zipkin.stop()


def test_a_zipkin_that_refuses_everything_costs_a_bounded_number_of_posts():
    zipkin = FakeZipkin(refuse=lambda s: True)
    try:
        relay = spans.Relay(zipkin.url, say=lambda text: None)
        for i in range(spans.BATCH):
            relay.add(line(i))
        relay.flush()
        assert relay.counts["refused"] + relay.counts["dropped"] == spans.BATCH and relay.counts["sent"] == 0
        assert len(zipkin.posts) == spans.POSTS_A_BATCH
    finally:
        zipkin.stop()


@pytest.fixture(scope="module")
def zipkin(tmp_path_factory):
    if not ZIPKIN_JAR.exists():
        pytest.skip(f"{ZIPKIN_JAR} not built: ./testbed build")
    port = procs.free_port()
    proc = procs.start("zipkin", ["java", *tracing.ZIPKIN_JVM_FLAGS, "-jar", str(ZIPKIN_JAR),
                                  *tracing.zipkin_args(port, "127.0.0.1")],
                       tmp_path_factory.mktemp("zipkin") / "zipkin.log", env={"STORAGE_TYPE": "mem"}, port=port)
    try:
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}/health", 300)
        yield f"http://127.0.0.1:{port}"
    finally:
        procs.stop(proc, timeout=20)


def _edge_lines() -> list[str]:
    """Lines at every bound parse() accepts: the earliest and latest times, the longest timings,
    the longest URI HAProxy logs, names of the longest, HAProxy's <NOSRV>, no status."""
    parts = line(100).split(" ")
    out = []
    for field, value in (("accept", f"{spanline.EPOCH_MIN_S}.000"), ("accept", f"{spanline.EPOCH_MAX_S}.999"),
                         ("ta", str(spanline.TIMING_MAX_MS)), ("tr", str(spanline.TIMING_MAX_MS)),
                         ("tc", "-1"), ("status", "-1"), ("server", "<NOSRV>"), ("frontend", "f" * 64),
                         ("backend", "b" * 64), ("method", "M" * 32), ("trace", "0" * 31 + "1"), ("span", "f" * 16)):
        p = list(parts)
        p[spanline.FIELDS.index(field)] = value
        out.append(" ".join(p))
    out.append(line(101, "/" + "u%23" * 255 + "uuu"))           # the 1024 bytes of URI HAProxy logs at most
    return out


@pytest.mark.stack
@pytest.mark.own_stack
def test_zipkin_takes_every_span_the_relay_lets_through(zipkin):
    for i, text in enumerate(_edge_lines()):
        body = spanline.encode(spanline.span(spanline.parse(text)))
        assert body is not None, text
        req = urllib.request.Request(f"{zipkin}/api/v2/spans", data=b"[" + body + b"]", method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 202, text


@pytest.mark.stack
@pytest.mark.own_stack
def test_zipkin_refuses_a_batch_with_an_all_zero_trace_id_and_the_relay_keeps_the_others(zipkin):
    """The issue's case: a trace id of zeros in a batch made Zipkin refuse the batch and lose the
    others. Such a span is put in the relay's queue by hand (its gate keeps it out), with nine
    good ones: Zipkin refuses the batch, and the nine are in Zipkin after the split."""
    relay = spans.Relay(zipkin, say=lambda text: None)
    good = [f"{0xabc000 + i:032x}" for i in range(9)]
    for i, trace in enumerate(good):
        relay.add(LINE.format(trace=trace, span=f"{i + 1:016x}", uri="/seg/5"))
    bad = spanline.span(spanline.parse(line(7)))
    bad["traceId"] = "0" * 32
    assert spanline.encode(bad) is None
    body = json.dumps(bad, separators=(",", ":")).encode()
    relay.queue.insert(4, body)
    relay.queued_bytes += len(body)
    relay.flush()
    assert (relay.counts["sent"], relay.counts["refused"]) == (9, 1)
    until("the nine good spans in Zipkin", lambda: all(tracing.trace(zipkin, t) for t in good), 30)
