"""A coverage-guided fuzz of the span relay's parser (docs/fuzzing.md): atheris (libFuzzer for
Python) feeds arbitrary bytes, as one datagram, to what the relay's receiving thread runs --
spanline.parse, spanline.span, spanline.encode and Relay.add -- with regular-expression hooks for
guidance. A finding is an exception (the relay would lose the datagram, or before the fix die), or
a span that breaks the gate's promises: over SPAN_MAX_BYTES, not JSON, one Zipkin would refuse,
or not the line's own ids.

    .venv/bin/python tests/hostile_observability/fuzz_relay.py -max_total_time=600 build/fuzz-relay/corpus
    .venv/bin/python tests/hostile_observability/fuzz_relay.py build/fuzz-relay/crash-<sha1>   # replay one

Seeds (the relay's own lines at their bounds) and a dictionary of the format's tokens are written
next to the corpus folder when it is given; libFuzzer's options pass through (-runs=N, -jobs ...)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import atheris

atheris.enabled_hooks.add("RegEx")
with atheris.instrument_imports():
    from testbed.haproxy import spanline, spans

GOOD = ('tp 0af7651916cd43dd8448eb211c80319c b7ad6b7169203331 17abe49213124b2d 1795580886.259 0 2 0 1 3 6 15 '
        '200 web front front1 GET "/seg/5?backend=axis&op=ping&n=0"\n')
SEEDS = [GOOD, GOOD.replace(" 200 ", " 503 "), GOOD.replace(" 1 3 6 15 ", " -1 -1 -1 15 "),
         GOOD.replace("front1", "<NOSRV>"), GOOD.replace("1795580886.259", "946684800.000"),
         GOOD.replace('"/seg/5?backend=axis&op=ping&n=0"\n', '"/' + "a" * 2100)[:spanline.LINE_MAX],
         GOOD.replace("/seg/5", "/seg/%22#22"), GOOD.replace(" 0 2 0 ", " 86400000 0 0 ")]
TOKENS = [b"tp ", b' "', b'"', b"\n", b" -1 ", b".000", b"<NOSRV>", b"0" * 16, b"0" * 32, b"f" * 16, b"inf",
          b"nan", b"1e308", b"\xff", "\u2192".encode(), b"9999999999.999", b"946684799.999", b"86400001"]

relay = spans.Relay("http://127.0.0.1:9", say=lambda text: None)


def one(data: bytes) -> None:
    rec = spanline.parse(data)
    relay.add(data)                              # the receiving thread's path: must not raise
    relay.queue.clear()
    relay.queued_bytes = 0
    if rec is None:
        return
    s = spanline.span(rec)
    body = spanline.encode(s)
    assert body is not None and len(body) <= spanline.SPAN_MAX_BYTES, (data, body)
    back = json.loads(body)
    assert spanline.acceptable(back), back
    assert (back["traceId"], back["parentId"], back["id"]) == (rec["trace"], rec["parent"], rec["span"])
    assert len(back["name"].encode()) <= spanline.NAME_MAX
    assert all(len(k.encode()) <= spanline.KEY_MAX and len(v.encode()) <= spanline.VALUE_MAX
               for k, v in back["tags"].items())


def _escaped(token: bytes) -> str:
    """A token as libFuzzer's dictionary writes it: printable ASCII, anything else as \\xNN."""
    return "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else f"\\x{b:02x}" for b in token)


def prepare(argv: list[str]) -> list[str]:
    """Seeds and the dictionary beside the first corpus folder named on the command line."""
    folders = [Path(a) for a in argv[1:] if not a.startswith("-") and not Path(a).is_file()]
    if not folders:
        return argv
    corpus = folders[0]
    corpus.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(SEEDS):
        (corpus / f"seed-{i}").write_bytes(seed.encode())
    words = corpus.parent / "relay.dict"
    words.write_text("".join(f'"{_escaped(t)}"\n' for t in TOKENS))
    return argv + [f"-dict={words}"]


def main() -> None:
    atheris.Setup(prepare(sys.argv), one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
