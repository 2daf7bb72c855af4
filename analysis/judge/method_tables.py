"""The tables of docs/method.md's section "The classic figures", printed from the published
figures (published.py, published.toml): the page's copy of them, never typed by hand.

    python -m analysis.judge.method_tables --markdown            # print them
    python -m analysis.judge.method_tables --update docs/method.md   # write them between its markers

A test holds the page equal to what is printed (tests/analysis/test_published.py).
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from analysis.judge import published

BEGIN = "<!-- The tables below are printed by `python -m analysis.judge.method_tables --markdown` from analysis/judge/published.toml: edit that file, then run `--update docs/method.md`. -->"
END = "<!-- End of the printed tables. -->"
CIRCLED = "①②③④⑤"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
            + ["| " + " | ".join(r) + " |" for r in rows])


def _wrap(text: str, bullet: bool = False) -> list[str]:
    """Prose as lines of at most 100 characters (a list item's continuation indented)."""
    return textwrap.wrap(text, 100, break_long_words=False, break_on_hyphens=False,
                         subsequent_indent="  " if bullet else "")


def _source_lines(study: str) -> list[str]:
    """What is known of a study's source, as a Markdown list."""
    s = published.source(study)
    if study == "prediction":
        items = [f"Sources: {s.known_as}."]
    elif s.title:
        items = [f"Source: {s.cite()}.",
                 f"Where in it: {s.where or 'not known here (its section, table and figure numbers are not given)'}."]
        items += [f"Identified by: {s.identified_by}."] if s.identified_by else []
    else:
        items = [f"Source: the title of the published study is not given; it is known as {s.known_as}.",
                 "Where in it: not known here."]
    items += [f"Note: {s.note}."] if s.note else []
    items += [f"Measured on: {s.setting}."] if s.setting else []
    return [ln for item in items for ln in _wrap("- " + item, bullet=True)]


def markdown() -> str:
    """The tables of docs/method.md's "The classic figures", one subsection per study."""
    out: list[str] = [BEGIN, ""]
    c = published.classic()
    out += ["### The WAS/Axis diagnosis (segments and clone scaling)", "", *(_source_lines("classic")), ""]
    rows = [[f"path maximum T({CIRCLED[0]}" + (f"-{CIRCLED[k - 1]}" if k > 1 else "") + ")", f"{published.num(v)} tps"]
            for k, v in c.paths.items()]
    for k, v in c.segments.items():
        note = {2: " (within the noise of paths ① and ①-②)",
                4: f" (the report prints {published.num(c.slips['segment_4'])}, an arithmetic slip)"}.get(k, "")
        rows.append([f"segment throughput T({CIRCLED[k - 1]}) by the segment law", f"{published.num(v)} tps{note}"])
    rows.append(["capacity example, N = N* + X·Z", c.capacity_text()])
    rows += [[f"singleton client, {n} clone{'s' if n > 1 else ''}", f"{published.num(v)} tps"] for n, v in c.singleton.items()]
    rows.append(["the SOAP service tier cloned (singleton on 1 clone)", c.service_tier])
    rows += [[f"client per request, {n} clone{'s' if n > 1 else ''}", f"{published.num(v)} tps"] for n, v in c.request.items()]
    rows.append(["the eventual fix", f"about {published.num(c.fix)} tps"])
    out += _table(["figure", "published"], rows) + [""]

    s = published.serialization()
    names = {v: k for k, v in published.TYPE_OPS.items()}
    sizes = [_size(r) for r in s.raw_sizes]
    out += ["### The gSOAP serialization study", "", *(_source_lines("serialization")), ""]
    out += _table(["message bytes (overhead, recomputed)", *sizes],
                  [[names[op], *(f"{published.num(b)} ({s.overhead_pct(op, raw):,.0f} %)" for b, raw in zip(bs, s.raw_sizes))]
                   for op, bs in s.message_bytes.items()]) + [""]
    u = s.ints_1e6_us
    rows = [[f"int array vs int buffer (base64), {published.num(n)} ints", f"{published.num(a)} vs {published.num(b)} bytes ({a / b:.2f}×)"]
            for n, (a, b) in s.int_array_vs_buffer.items()]
    rows.append(["double / float message size", " → ".join(f"{v:.2f} ({published.num(n)} elements)"
                                                            for n, v in s.double_over_float_bytes.items())
                 + " and above"])
    rows += [[f"{what} time of 9 MiB raw, ms", ", ".join(f"{names[op]} {published.num(v)}" for op, v in t.items())]
             for what, t in (("writing", s.write_9mib_ms), ("reading", s.read_9mib_ms))]
    rows.append(["10⁶ ints, serialization (array vs buffer)", f"{published.num(u['ser_array'])} vs {published.num(u['ser_buffer'])} µs"])
    rows.append(["10⁶ ints, deserialization (array vs buffer)", f"{published.num(u['deser_array'])} vs {published.num(u['deser_buffer'])} µs"])
    rows.append(["serialization / deserialization, int arrays", f"{published.span(s.ser_over_deser_int_arrays)}, falling with size"])
    rows.append(["serialization time over int's, 10⁵ elements",
                 ", ".join(f"{names[op]} {published.num(v)}×" for op, v in s.ser_vs_int_1e5.items())])
    rows.append(["proposed for the transmit side", "; ".join(s.proposals)])
    out += _table(["figure", "published"], rows) + [""]
    e = s.earlier
    out += _wrap(f"Beside them, not published: {e['source']}: gSOAP's generated writer "
                 f"{published.num(e['generated_writer_over_itoa'])}× a raw itoa loop; 1 MiB serialized, floats "
                 f"{published.num(e['ser_1mib_ms']['gsoap_floats'])} ms (Axis2 {published.num(e['ser_1mib_ms']['axis_floats'])} ms), doubles "
                 f"{published.num(e['ser_1mib_ms']['gsoap_doubles'])} ms (Axis2 {published.num(e['ser_1mib_ms']['axis_doubles'])} ms).") + [""]

    r = published.rpc()
    out += ["### The RPC study over a user-level transport", "", *(_source_lines("rpc")), ""]
    raw = r.raw_half_rtt_us
    out += _table(["figure", "published"], [
        ["raw 4-byte latency, half a round trip", f"TCP over Fast Ethernet {published.num(raw['tcp'])} µs, socket-over-VIA "
                                                  f"{published.num(raw['socket_over_via'])} µs, native VIA {published.num(raw['native_via'])} µs"],
        ["null RPC", f"{published.num(r.null_rpc_us['tcp'])} µs over TCP, {published.num(r.null_rpc_us['user_level'])} µs over the user-level "
                     "transport"],
        ["null RPC over the user-level transport, split",
         ", ".join(f"{k} {published.num(v)} µs" for k, v in r.null_split_us.items())],
        ["a null ONC RPC's bytes", r.bytes_text()],
        ["speed-up of the user-level transport", r.speedup_text()]]) + [""]

    i = published.ipc()
    out += ["### The IPC throughput study", "", *(_source_lines("ipc")), ""]
    out += _table(["packet", "Unix socket, real time", "FIFO and message queue, real time"],
                  [[f"{n} B", published.span(t["socket"], "s"), published.span(t["others"], "s")] for n, t in sorted(i.real_s.items())])
    out += ["", *_wrap(f"{i.runs} runs each, {i.transfer_bytes / 1e6:g} MB a transfer. Its conclusion: {i.conclusion}."), ""]

    v = published.servers()
    out += ["### The Java socket server study", "", *(_source_lines("servers")), ""]
    t = v.texts()
    out += _table(["figure", "published"], [
        ["default point", f"{v.clients} clients × {v.messages} messages × {published.num(v.length)} characters, pool {published.num(v.pool)}"],
        ["pooled poller vs thread per connection", t["pool"]],
        ["single-thread poller", t["poller"]],
        ["message length", t["length"]],
        ["at the default point", t["default"]]]) + [""]

    out += ["### Prediction anchors", "", *(_source_lines("prediction")), ""]
    out += _table(["who", "title", "what was predicted", "error"],
                  [[a["who"], f"“{a['title']}”" if a["title"] else "not given", a["what"], a["error"]]
                   for a in published.data()["prediction"]["anchors"]]) + ["", END]
    return "\n".join(out)


def _size(raw: int) -> str:
    return f"{raw >> 20} MiB" if raw >= 1 << 20 else f"{raw >> 10} KiB"


def update(page: Path) -> bool:
    """Write markdown() between the page's markers; True when the page changed."""
    text = page.read_text(encoding="utf-8")
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{page}: the markers of the printed tables are missing")
    new = head + markdown() + tail
    if new != text:
        page.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m analysis.judge.method_tables", description=__doc__.split("\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--markdown", action="store_true", help="print the tables of docs/method.md")
    g.add_argument("--update", metavar="PAGE", type=Path, help="write them into PAGE between its markers")
    a = p.parse_args(argv)
    if a.markdown:
        sys.stdout.write(markdown() + "\n")
    else:
        print(f"{a.update}: " + ("updated" if update(a.update) else "already up to date"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
