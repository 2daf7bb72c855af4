"""The serialization report's tables, after the findings (analysis/studies/serialization.py).
Table ids: sizes, times, buffer, floatdouble, share, writers, transmit, mtom."""
from __future__ import annotations

from analysis import html as h
from analysis.studies import serialization_findings as F
from analysis.studies.serialization_data import find

IMPL_NAME = {"gsoap": "gSOAP", "gsoap-tuned": "gSOAP tuned", "axis": "Axis2"}
IMPLS = tuple(IMPL_NAME)   # gSOAP's generated serializers, its tuned ones (issue 23), Axis2/ADB
ITEM = {"sendBytes": 1, "sendInts": 4, "sendFloats": 4, "sendDoubles": 8}


def _b(v) -> str:
    return "#" + (h.esc(f"{v:,}") if isinstance(v, int) else h.num(v))


def _ms(t: dict | None) -> str:
    """median ms, with the spread of the repeats when there are several."""
    if not t or t.get("median") is None:
        return '#<span class="na">—</span>'
    spread = f" ±{t['spread'] / 2:.0%}" if t.get("n", 0) > 1 and t.get("spread") is not None else ""
    return "#" + h.esc(f"{t['median']:,.3g}{spread}")


def _x(v) -> str:
    return "#" + (h.esc(f"{v:.2f}×") if v is not None else '<span class="na">—</span>')


def _pct(v) -> str:
    return "#" + (h.esc(f"{v:,.0f} %") if v is not None else '<span class="na">—</span>')


def _share(v) -> str:
    return "#" + (h.esc(f"{v:.0%}") if v is not None else '<span class="na">—</span>')


def sections(summary: dict, images: dict[str, str]) -> list[str]:
    rows = summary["messages"]
    out = ["<h2>1. Sizes and overhead</h2>", _sizes(rows), images.get("overhead", ""),
           "<h2>2. Serialization and deserialization in-process</h2>", _times(rows),
           images.get("time_per_item", ""), "<h3>Int array vs int buffer (base64)</h3>", _buffer(rows),
           "<h3>Floats vs doubles</h3>", _floatdouble(rows),
           "<h3>Share of a whole write / read over a loopback socket</h3>", _share_table(rows),
           "<h2>3. Transmit options (gSOAP client and service, each serializer)</h2>", _transmit(summary["transmit"]),
           images.get("transmit", ""), "<h2>4. Writer technique</h2>", _writers(summary["writers"]),
           images.get("writers", ""), "<h2>5. Base64 in the body vs MTOM/XOP attachment</h2>",
           _mtom(summary["mtom"], summary["mtom_advice"])]
    if summary["unstable_sizes"]:
        out.append("<p class=\"flag\">Sizes differed between measurements of: "
                   + h.esc(", ".join(summary["unstable_sizes"])) + " (they must not: the payload is seeded).</p>")
    return out


def _classic(rows):
    return sorted({(r["raw_size"], r["op"]) for r in rows if "classic" in r["groups"]},
                  key=lambda k: (k[0], list(ITEM).index(k[1])))


def _sizes(rows: list[dict]) -> str:
    body = []
    for raw, op in _classic(rows):
        cells = [h.esc(F.size_text(raw)), h.esc(F.TYPE_NAME[op])]
        for impl in IMPLS:
            r = find(rows, impl=impl, op=op, n=raw // ITEM[op]) or {}
            cells += [_b(r.get("xml_bytes")), _b(r.get("http_bytes")), _pct(r.get("overhead_pct"))]
        pub = F.PUBLISHED_BYTES[op][F.RAW_SIZES.index(raw)] if raw in F.RAW_SIZES else None
        cells += [_b(pub), _pct(F.published_overhead(op, raw))]
        body.append(cells)
    head = [f"{IMPL_NAME[i]} {c}" for i in IMPLS for c in ("XML (B)", "HTTP (B)", "overhead")]
    return h.table("sizes", ["raw", "items", *head, "classic (B)", "classic overhead (recomputed)"], body,
                   "no classic size measured")


def _times(rows: list[dict]) -> str:
    body = []
    for raw, op in _classic(rows):
        cells = [h.esc(F.size_text(raw)), h.esc(F.TYPE_NAME[op])]
        for impl in IMPLS:
            r = find(rows, impl=impl, op=op, n=raw // ITEM[op]) or {}
            cells += [_ms(r.get("ser_ms")), _ms(r.get("deser_ms")), _x(r.get("ser_over_deser"))]
        nine = raw == 9 << 20
        cells += [_b(F.PUBLISHED_WRITE_9MIB_MS[op] if nine else None), _b(F.PUBLISHED_READ_9MIB_MS[op] if nine else None)]
        body.append(cells)
    head = [f"{IMPL_NAME[i]} {c}" for i in IMPLS for c in ("ser (ms)", "deser (ms)", "ser/deser")]
    return h.table("times", ["raw", "items", *head, "classic writing (ms)", "classic reading (ms)"], body,
                   "nothing timed") + \
        "<p>Medians of the measurements (± half their spread). Classic figures: 9 MiB only, writing and " \
        "reading time as published (2007-era i686).</p>"


def _buffer(rows: list[dict]) -> str:
    ns = sorted({r["n"] for r in rows if "buffer" in r["groups"]})
    body = []
    for n in ns:
        for impl in IMPLS:
            a, b = find(rows, impl=impl, op="sendInts", n=n), find(rows, impl=impl, op="sendIntBuffer", n=n)
            if not (a or b):
                continue
            a, b = a or {}, b or {}
            ratio = a["xml_bytes"] / b["xml_bytes"] if a.get("xml_bytes") and b.get("xml_bytes") else None
            pub = F.PUBLISHED_ARRAY_VS_BUFFER.get(n) if impl == "gsoap" else None
            body.append([_b(n), h.esc(IMPL_NAME[impl]), _b(a.get("xml_bytes")), _b(b.get("xml_bytes")), _x(ratio),
                         _ms(a.get("ser_ms")), _ms(b.get("ser_ms")), _ms(a.get("deser_ms")), _ms(b.get("deser_ms")),
                         h.esc(f"{pub[0]:,} / {pub[1]:,} ({pub[0] / pub[1]:.2f}×)") if pub else "—"])
    pub = F.PUBLISHED_1E6_US
    note = (f"<p>Classic, 10⁶ ints: serialization {pub['ser_array'] / 1000:,.0f} ms (array) vs "
            f"{pub['ser_buffer'] / 1000:,.0f} ms (buffer), deserialization {pub['deser_array'] / 1000:,.0f} vs "
            f"{pub['deser_buffer'] / 1000:,.0f} ms.</p>")
    return h.table("buffer", ["ints", "library", "array (B)", "buffer (B)", "array/buffer", "ser array (ms)",
                              "ser buffer (ms)", "deser array (ms)", "deser buffer (ms)",
                              "classic array / buffer (B)"], body, "no buffer point measured") + note


def _floatdouble(rows: list[dict]) -> str:
    ns = sorted({r["n"] for r in rows if "fd" in r["groups"]})
    body = []
    for n in ns:
        for impl in IMPLS:
            f, d = find(rows, impl=impl, op="sendFloats", n=n), find(rows, impl=impl, op="sendDoubles", n=n)
            if not (f or d):
                continue
            f, d = f or {}, d or {}
            size = d["xml_bytes"] / f["xml_bytes"] if d.get("xml_bytes") and f.get("xml_bytes") else None
            ts = [x.get("ser_ms", {}).get("median") for x in (f, d)]
            td = [x.get("deser_ms", {}).get("median") for x in (f, d)]
            body.append([_b(n), h.esc(IMPL_NAME[impl]), _b(f.get("xml_bytes")), _b(d.get("xml_bytes")), _x(size),
                         _ms(f.get("ser_ms")), _ms(d.get("ser_ms")), _x(ts[1] / ts[0] if all(ts) else None),
                         _ms(f.get("deser_ms")), _ms(d.get("deser_ms")), _x(td[1] / td[0] if all(td) else None)])
    return h.table("floatdouble", ["items", "library", "float (B)", "double (B)", "double/float size",
                                   "ser float (ms)", "ser double (ms)", "double/float ser", "deser float (ms)",
                                   "deser double (ms)", "double/float deser"], body,
                   "no float/double point measured") + \
        "<p>Classic: double/float message size 1.11× at 10 elements, 1.30× from 10⁴.</p>"


def _share_table(rows: list[dict]) -> str:
    body = []
    for r in rows:
        if r["write_ms"]["median"] is None:
            continue
        body.append([h.esc(IMPL_NAME[r["impl"]]), h.esc(F.TYPE_NAME.get(r["op"], r["op"])), _b(r["n"]),
                     _ms(r["ser_ms"]), _ms(r["write_ms"]), _share(r["ser_share_of_write"]),
                     _ms(r["deser_ms"]), _ms(r["read_ms"]), _share(r["deser_share_of_read"])])
    return h.table("share", ["client", "items", "n", "ser in memory (ms)", "whole write (ms)", "ser share",
                             "deser in memory (ms)", "whole read (ms)", "deser share"], body,
                   "no socket measurement") + \
        "<p>gSOAP's whole write is its default send: a counting pass and the real pass, so up to two " \
        "serializations; Axis2's is the stub's whole call to a sink answering at once.</p>"


def _writers(writers: list[dict]) -> str:
    body = []
    for w in writers:
        for name, t in w["techniques"].items():
            body.append([h.esc(IMPL_NAME[w["impl"]]), h.esc(name), _b(w["n"]), _ms(t["ms"]), _x(t["over_itoa"])])
    return h.table("writers", ["language / library", "technique", "ints", "time (ms)", "× raw itoa"], body,
                   "writers not measured") + \
        "<p>printf: snprintf (C++) or java.util.Formatter (Java) of each item with its tags; gsoap / adb: the " \
        "library's own serializer (gSOAP: the request's, as generated by soapcpp2); tuned: the gSOAP service's " \
        "tuned serializer of the same request (services/gsoap/custom: items formatted straight into gSOAP's " \
        "buffer); hand: tags copied, digits two at a time from a table; itoa: the digits alone, the lower " \
        "bound. All but itoa are checked to write the same bytes.</p>"


def _transmit(rows: list[dict]) -> str:
    body = []
    impl_of = lambda x: x.get("impl", "gsoap")  # noqa: E731
    for r in sorted(rows, key=lambda x: (x["raw_size"], IMPLS.index(impl_of(x)), x["option"])):
        base = next((x for x in rows if x["raw_size"] == r["raw_size"] and impl_of(x) == impl_of(r)
                     and x["option"] == "length"), None)
        rel = (r["call_ms"]["median"] / base["call_ms"]["median"] - 1) if base and base["call_ms"]["median"] \
            and r["call_ms"]["median"] else None
        body.append([h.esc(F.size_text(r["raw_size"])), h.esc(IMPL_NAME[impl_of(r)]), h.esc(r["option"]),
                     _b(r["request_bytes"]), _ms(r["call_ms"]), "#" + (h.esc(f"{rel:+.0%}") if rel is not None else "—")])
    return h.table("transmit", ["raw", "client and service", "option", "request (B)", "call (ms)",
                                "vs default (length)"], body, "transmit not measured") + \
        "<p>length: gSOAP's default (a counting pass over the message, then the HTTP headers with " \
        "Content-Length and the real pass); store: the message kept in memory, then sent with its length; " \
        "chunk: HTTP/1.1 chunked, one pass; close: a new TCP connection per call; kernel-buffers: " \
        "SO_SNDBUF/SO_RCVBUF left to the kernel's autotuning instead of gSOAP's fixed 64 KiB; 4m-buffers: " \
        "4 MiB each.</p>"


def _mtom(rows: list[dict], advice: list[dict]) -> str:
    body = []
    for r in sorted(rows, key=lambda x: (x["impl"], x["n"], x["form"])):
        body.append([h.esc(IMPL_NAME[r["impl"]]), _b(r["n"]), h.esc(r["form"]), _b(r["raw_bytes"]),
                     _b(r["request_bytes"]), _ms(r["call_ms"])])
    text = " ".join(
        f"{IMPL_NAME[a['impl']]}, {a['n']:,} ints: MTOM sends {a['bytes_ratio']:.0%} of base64's bytes in "
        f"{a['time_ratio']:.0%} of its time — pick {a['pick']}." for a in advice)
    return h.table("mtom", ["client → its service", "ints", "form", "raw (B)", "request (B)", "call (ms)"], body,
                   "MTOM not measured") + (f"<p><b>Which to pick.</b> {h.esc(text)} Both forms decode to the "
                                           "same ints as the array (the services' checksums are checked every "
                                           "call).</p>" if text else "")
