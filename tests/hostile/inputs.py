"""The hostile SOAP inputs of docs/hostile-input.md -- one catalogue for the tests
(tests/test_hostile.py: both services, directly and through HAProxy) and the benchmark
(tests/hostile/hostile_bench.py).

Each input is a raw HTTP request to one SOAP endpoint, built for a Target: its head, and
its body as pieces that are streamed (the 100 MB bodies are never held in memory). What
every one must get: a 4xx, or HTTP 500 with a SOAP Client fault -- never a 200, a hang, a
reset or a crash (`verdict`). Also here: a listener that proves an external entity was
never fetched, and the service process's memory from /proc.
"""
from __future__ import annotations

import itertools
import socket
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from soapwire import Reply
from testbed import contract

MiB = 1 << 20
BIG_BODY_BYTES = 100 * MiB      # "a 100 MB body"
PIECE = 64 * 1024               # bytes per write of a streamed body
# The settings of the services the tests and the benchmark start (the rest: defaults).
# MAX_XML_OCCURS is lowered so that an array over it is 2.2 MB, not 220; the message
# limit is the default, spelled out because the test stacks lower it (tests/stacks.py).
OCCURS = 100_000
SERVICE_LIMITS = {"MAX_XML_OCCURS": str(OCCURS), "MAX_MESSAGE_BYTES": str(64 * MiB)}


@dataclass(frozen=True)
class Target:
    """Where a hostile request goes, and the settings of the service there it depends on."""
    host: str
    port: int
    path: str                   # /axis or /gsoap
    max_xml_occurs: int         # the service's MAX_XML_OCCURS
    fetch_url: str = "http://127.0.0.1:9/never-fetched"   # NoFetchListener.url


@dataclass
class Request:
    head: bytes
    body: Iterable[bytes]


@dataclass(frozen=True)
class Hostile:
    name: str
    what: str                                   # one line, for reports
    build: Callable[[Target], Request]
    big: bool = False                           # streams ~100 MB


# ------------------------------------------------------------------------------ builders
def envelope(inner: str, prolog: str = '<?xml version="1.0" encoding="UTF-8"?>') -> bytes:
    return (f'{prolog}<soap:Envelope xmlns:soap="{contract.SOAP_ENV}" xmlns:tb="{contract.NAMESPACE}">'
            f"<soap:Body>{inner}</soap:Body></soap:Envelope>").encode()


def head(t: Target, op: str | None, length: int | None, extra: str = "", action: str | None = None) -> bytes:
    """Request line and headers; length None means chunked. SOAPAction: the op's own
    (urn:op) unless action says otherwise."""
    lines = [f"POST {t.path} HTTP/1.1", f"Host: {t.host}:{t.port}", "Content-Type: text/xml; charset=utf-8",
             f'SOAPAction: "{action if action is not None else ("urn:" + op if op else "")}"',
             "Connection: close"]
    lines.append("Transfer-Encoding: chunked" if length is None else f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode()


def plain(t: Target, op: str | None, body: bytes, **kw) -> Request:
    return Request(head(t, op, len(body), **kw), [body])


def chunked(pieces: Iterable[bytes]) -> Iterator[bytes]:
    for p in pieces:
        yield b"%x\r\n" % len(p) + p + b"\r\n"
    yield b"0\r\n\r\n"


def big_int_buffer(total: int) -> tuple[int, Iterator[bytes]]:
    """A sendIntBuffer of `total` bytes whose base64 data is all 'A' (zero ints): its exact
    length and its pieces, made as they are sent."""
    start = envelope("<tb:sendIntBuffer><tb:data>").split(b"</soap:Body>")[0]
    end = b"</tb:data></tb:sendIntBuffer></soap:Body></soap:Envelope>"
    fill = total - len(start) - len(end)
    fill -= fill % 4

    def pieces() -> Iterator[bytes]:
        yield start
        block, left = b"A" * PIECE, fill
        while left > 0:
            yield block[:min(PIECE, left)]
            left -= PIECE
        yield end
    return len(start) + fill + len(end), pieces()


def laughs() -> str:
    ents = "".join(f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1) if i > 1 else "lol") * 10}">' for i in range(1, 10))
    return f'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">{ents}]>'


def _attribute_flood(t: Target) -> Request:
    return plain(t, "ping", envelope("<tb:ping " + " ".join(f'a{i}="x"' for i in range(50_000)) + "/>"))


def _big(framing: str) -> Callable[[Target], Request]:
    def build(t: Target) -> Request:
        length, pieces = big_int_buffer(BIG_BODY_BYTES)
        if framing == "chunked":
            return Request(head(t, "sendIntBuffer", None), chunked(pieces))
        return Request(head(t, "sendIntBuffer", length), pieces)
    return build


def _array_over_occurs(t: Target) -> Request:
    item = b"<tb:items>7</tb:items>"
    start, end = envelope("<tb:sendBytes>|</tb:sendBytes>").split(b"|")
    n = t.max_xml_occurs + 1
    length = len(start) + n * len(item) + len(end)
    per_piece = PIECE // len(item)
    pieces = itertools.chain([start], (item * min(per_piece, n - i) for i in range(0, n, per_piece)), [end])
    return Request(head(t, "sendBytes", length), pieces)


CASES: dict[str, Hostile] = {h.name: h for h in [
    Hostile("attribute_flood", "ping with 50 000 attributes (600 KB)", _attribute_flood),
    Hostile("billion_laughs", "DOCTYPE of nested entities (10^9 'lol')",
            lambda t: plain(t, "echoInts", envelope("<tb:echoInts><tb:items>&lol9;</tb:items></tb:echoInts>",
                                                    prolog=laughs()))),
    Hostile("external_entity_file", "entity SYSTEM file:///etc/passwd",
            lambda t: plain(t, "ping", envelope("<tb:ping><x>&x;</x></tb:ping>",
                                                prolog='<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM '
                                                       '"file:///etc/passwd">]>'))),
    Hostile("external_entity_url", "entity SYSTEM http://127.0.0.1 (a listener)",
            lambda t: plain(t, "ping", envelope("<tb:ping><x>&x;</x></tb:ping>",
                                                prolog=f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM '
                                                       f'"{t.fetch_url}">]>'))),
    Hostile("external_dtd_url", "DOCTYPE SYSTEM and parameter entity by URL",
            lambda t: plain(t, "ping", envelope("<tb:ping/>", prolog=f'<?xml version="1.0"?><!DOCTYPE r SYSTEM '
                                                f'"{t.fetch_url}" [<!ENTITY % p SYSTEM "{t.fetch_url}"> %p;]>'))),
    Hostile("nesting_100k", "100 000 nested elements in ping (700 KB)",
            lambda t: plain(t, "ping", envelope("<tb:ping>" + "<a>" * 100_000 + "</a>" * 100_000 + "</tb:ping>"))),
    Hostile("body_100mb_content_length", "sendIntBuffer of 100 MB, Content-Length", _big("length"), big=True),
    Hostile("body_100mb_chunked", "sendIntBuffer of 100 MB, chunked", _big("chunked"), big=True),
    Hostile("array_over_max_occurs", "sendBytes with MAX_XML_OCCURS + 1 items", _array_over_occurs),
    Hostile("truncated", "sendInts of 100 items cut at 60 %",
            lambda t: plain(t, "sendInts", contract.envelope("sendInts", 100)[:len(contract.envelope("sendInts", 100)) * 3 // 5])),
    Hostile("wrong_namespace", "ping in another namespace",
            lambda t: plain(t, None, envelope('<x:ping xmlns:x="urn:not-the-contract"/>'))),
    Hostile("invalid_utf8", "bytes FF FE C0 80 inside ping",
            lambda t: plain(t, "ping", envelope("<tb:ping><note>caf|</note></tb:ping>")
                            .replace(b"|", b"\xff\xfe\xc0\x80"))),
    Hostile("soapaction_mismatch", 'sendInts body, SOAPAction "urn:ping"',
            lambda t: plain(t, "sendInts", contract.envelope("sendInts", 3), action="urn:ping")),
    Hostile("header_line_100kb", "one header line of 100 KB",
            lambda t: plain(t, "ping", contract.envelope("ping"), extra="X-Big: " + "a" * 100_000 + "\r\n")),
    Hostile("headers_1mb", "10 000 header lines, 1 MB",
            lambda t: plain(t, "ping", contract.envelope("ping"),
                            extra="".join(f"X-H{i}: {'v' * 90}\r\n" for i in range(10_000)))),
    Hostile("no_http_headers", "a DOCTYPE'd ping with no HTTP at all (SOAP over TCP)",
            lambda t: Request(b"", [envelope("<tb:ping/>", prolog='<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "y">]>')])),
    Hostile("unknown_operation", "a body element the contract does not define",
            lambda t: plain(t, None, envelope("<tb:launchMissiles/>"))),
    Hostile("garbage", "binary bytes, not XML", lambda t: plain(t, "ping", bytes(range(256)) * 4)),
    Hostile("empty_body", "an empty POST", lambda t: plain(t, "ping", b"")),
]}


# ------------------------------------------------------------------------------ judging
def verdict(r: Reply) -> str | None:
    """None when the answer is a refusal (4xx, or 500 with a Client fault); else what is wrong."""
    if 400 <= r.status < 500:
        return None
    if r.status != 500:
        return f"HTTP {r.status} for hostile input: {r.text[:300]}"
    if r.fault_code != "Client":
        return f"HTTP 500 with faultcode {r.fault_code!r}, not Client: {r.text[:300]}"
    return None


def leaked(r: Reply) -> str | None:
    """Signs that an entity was expanded or a file was read into the answer."""
    for sign in ("lollollol", "root:x:0:0"):
        if sign in r.text:
            return f"the answer holds {sign!r}: {r.text[:300]}"
    return None


class NoFetchListener:
    """A loopback port that must never be connected to: the URL of the external-entity
    inputs. `connections()` counts the connections that were made (none, if all is well)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/xxe.dtd"
        self.accepted = 0

    def connections(self) -> int:
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return self.accepted
            conn.close()
            self.accepted += 1

    def close(self) -> None:
        self.sock.close()


# ------------------------------------------------------------------------------ memory
def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def rss_mib(pid: int) -> float:
    return _status_kib(pid, "VmRSS") / 1024


def reset_peak(pid: int) -> bool:
    """Starts a new peak-RSS window (VmHWM := VmRSS); False where the kernel does not allow it."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_mib(pid: int) -> float:
    """Peak RSS since reset_peak (or since the start)."""
    return _status_kib(pid, "VmHWM") / 1024
