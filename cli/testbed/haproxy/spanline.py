"""One of HAProxy's log lines -> one Zipkin span, every field checked (docs/tracing.md).

A line is the log-format of a traced request (testbed/observe/tracing.py, LOG_FORMAT):

    tp <trace> <parent> <span> <accept s.ms> <Th> <Ti> <TR> <Tw> <Tc> <Tr> <Ta> <status>
       <frontend> <backend> <server> <method> "<uri>"

Nothing in it is trusted: parse() takes bytes as they came off the socket and returns None for
anything that is not exactly such a line -- not ASCII, longer than HAProxy sends, a field
missing or extra, an id that is not lower-case hex or is all zeros, a time that is not a
whole number of milliseconds within 2000..2100, a timing beyond a day, a quote or a control
character in the URI. No float is ever made of a field, so no value can be infinite or NaN.
span() builds the span within the byte bounds every producer of the testbed keeps (tracing.clip,
java-common's SpanBounds: a name of 128 bytes, tag keys of 64, values of 256 as JSON, 2048 bytes of
JSON a span), and
encode() is the last gate before a batch: a span Zipkin would refuse, or one over the bound, is
never sent (None).
"""
from __future__ import annotations

import json
import re

from testbed.observe.tracing import KEY_MAX, LOG_LINE_MAX, MARK, NAME_MAX, SPAN_MAX_BYTES, VALUE_MAX, clip

FIELDS = ("tag", "trace", "parent", "span", "accept", "th", "ti", "tr_hdr", "tw", "tc", "tr", "ta", "status",
          "frontend", "backend", "server", "method", "uri")
TIMINGS = ("th", "ti", "tr_hdr", "tw", "tc", "tr", "ta")
LINE_MAX = LOG_LINE_MAX                  # HAProxy's `log ... len 2048` (tracing.FRONTEND_LINES)
EPOCH_MIN_S, EPOCH_MAX_S = 946_684_800, 4_102_444_800      # 2000-01-01 .. 2100-01-01, UTC
TIMING_MAX_MS = 86_400_000               # a day: HAProxy's timeouts end any phase far sooner
LONG_MAX = 2 ** 63 - 1                   # Zipkin reads times as Java longs

_ACCEPT = re.compile(r"([0-9]{9,10})\.([0-9]{3})")
_TIMING = re.compile(r"-1|[0-9]{1,9}")
_STATUS = re.compile(r"-1|[0-9]{1,3}")
_NAME = re.compile(r"[A-Za-z0-9_.:<>-]{1,64}")                # proxy and server names; <NOSRV>
_METHOD = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}")     # an HTTP token
_URI = re.compile(r"[\x21\x23-\x7e]+")                       # printable ASCII but the quote: HAProxy
#                                                              logs every other byte as #XX
_HEX16, _HEX32 = re.compile(r"[0-9a-f]{16}"), re.compile(r"[0-9a-f]{32}")


def _id(value: str, pattern: re.Pattern) -> bool:
    return bool(pattern.fullmatch(value)) and value.strip("0") != ""


def parse(data: bytes | str) -> dict | None:
    """One datagram -> its fields (ids as text, times as whole numbers), or None."""
    if isinstance(data, bytes):
        if len(data) > LINE_MAX + 1:
            return None
        try:
            data = data.decode("ascii")
        except UnicodeDecodeError:
            return None
    if len(data) > LINE_MAX + 1:
        return None
    line = data[:-1] if data.endswith("\n") else data          # HAProxy ends each line with one
    head, quote, uri = line.partition(' "')
    parts = head.split(" ")
    if not quote or len(parts) != len(FIELDS) - 1 or parts[0] != "tp":
        return None
    if not uri.endswith('"'):                  # HAProxy logs at most 1024 bytes of URI, then the quote
        return None
    rec: dict = dict(zip(FIELDS, parts), uri=uri[:-1])
    accept = _ACCEPT.fullmatch(rec["accept"])
    if not (_URI.fullmatch(rec["uri"]) and accept and _id(rec["trace"], _HEX32) and _id(rec["parent"], _HEX16)
            and _id(rec["span"], _HEX16) and _STATUS.fullmatch(rec["status"]) and _METHOD.fullmatch(rec["method"])
            and all(_NAME.fullmatch(rec[k]) for k in ("frontend", "backend", "server"))
            and all(_TIMING.fullmatch(rec[k]) for k in TIMINGS)):
        return None
    seconds = int(accept.group(1))
    if not EPOCH_MIN_S <= seconds <= EPOCH_MAX_S:
        return None
    rec["accept_ms"] = seconds * 1000 + int(accept.group(2))
    for k in TIMINGS:
        rec[k] = int(rec[k])                   # -1: that phase did not happen (e.g. no connect)
        if rec[k] > TIMING_MAX_MS:
            return None
    return rec


def span(rec: dict) -> dict:
    """The Zipkin v2 span of one parsed line, within the byte bounds."""
    start_ms = rec["accept_ms"] + max(rec["th"], 0) + max(rec["ti"], 0)
    tags = {"haproxy.derived_from": "log line (ms resolution)", "http.method": rec["method"],
            "http.path": rec["uri"].split("?", 1)[0], "http.status_code": rec["status"],
            "haproxy.server": rec["server"],
            **{f"haproxy.T{k}": str(rec[k]) for k in ("tr_hdr", "tw", "tc", "tr", "ta")}}
    if rec["status"].isdigit() and int(rec["status"]) >= 500:
        tags["error"] = rec["status"]
    out = {"traceId": rec["trace"], "parentId": rec["parent"], "id": rec["span"], "kind": "SERVER",
           "name": clip(f"{rec['frontend']} → {rec['backend']}", NAME_MAX), "timestamp": start_ms * 1000,
           "duration": max(1, rec["ta"] * 1000) if rec["ta"] >= 0 else 1,
           "localEndpoint": {"serviceName": "haproxy"},
           "remoteEndpoint": {"serviceName": clip(rec["backend"], NAME_MAX)},
           "tags": {clip(k, KEY_MAX): clip(v, VALUE_MAX) for k, v in tags.items()}}
    marks, at = [], start_ms
    for key, what in (("tr_hdr", "request headers read"), ("tw", "dequeued"), ("tc", "connected"),
                      ("tr", "response headers")):
        if rec[key] >= 0:
            at += rec[key]
            marks.append({"timestamp": at * 1000, "value": what})
    if marks:
        out["annotations"] = marks
    return out


def _time(value) -> bool:
    return type(value) is int and 1 <= value <= LONG_MAX


def acceptable(s: dict) -> bool:
    """Whether Zipkin takes this span: ids lower-case hex of its lengths and not all zeros, times
    positive Java longs, names and tags text (what its JSON reader and Span.Builder check)."""
    try:
        ok = (_id(s["traceId"], _HEX32) or _id(s["traceId"], _HEX16)) and _id(s["id"], _HEX16)
        ok = ok and ("parentId" not in s or _id(s["parentId"], _HEX16))
        ok = ok and _time(s["timestamp"]) and _time(s["duration"]) and isinstance(s.get("name", ""), str)
        ok = ok and all(isinstance(k, str) and isinstance(v, str) for k, v in s.get("tags", {}).items())
        ok = ok and all(_time(a["timestamp"]) and isinstance(a["value"], str) for a in s.get("annotations", []))
        return bool(ok)
    except (KeyError, TypeError, AttributeError):
        return False


def encode(s: dict) -> bytes | None:
    """The span's JSON, or None when Zipkin would refuse it or it exceeds SPAN_MAX_BYTES."""
    if not acceptable(s):
        return None
    data = json.dumps(s, separators=(",", ":"), ensure_ascii=False).encode()
    return data if len(data) <= SPAN_MAX_BYTES else None
