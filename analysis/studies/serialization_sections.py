"""The serialization report's tables, after the findings (analysis/studies/serialization.py):
the rows each table shows, picked and derived from the summary; the page itself is
analysis/render/templates/studies/serialization.html.j2.
Table ids: sizes, times, buffer, floatdouble, share, writers, transmit, mtom."""
from __future__ import annotations

from analysis.studies import serialization_findings as F
from analysis.studies.serialization_data import find

IMPL_NAME = {"gsoap": "gSOAP", "gsoap-tuned": "gSOAP tuned", "axis": "Axis2"}
ITEM = {"sendBytes": 1, "sendInts": 4, "sendFloats": 4, "sendDoubles": 8}
IMPLS = tuple(IMPL_NAME)   # gSOAP's generated serializers, the tuned ones built into the gSOAP service, Axis2/ADB


def view(summary: dict) -> dict:
    rows = summary["messages"]
    return {"impl_name": IMPL_NAME,
            "sizes_head": [f"{IMPL_NAME[i]} {c}" for i in IMPLS for c in ("XML (B)", "HTTP (B)", "overhead")],
            "times_head": [f"{IMPL_NAME[i]} {c}" for i in IMPLS for c in ("ser (ms)", "deser (ms)", "ser/deser")],
            "sizes": _sizes(rows), "times": _times(rows), "buffer": _buffer(rows),
            "published_1e6_ms": {k: v / 1000 for k, v in F.PUBLISHED_1E6_US.items()},
            "floatdouble": _floatdouble(rows), "share": _share(rows), "writers": _writers(summary["writers"]),
            "transmit": _transmit(summary["transmit"]), "mtom": sorted(summary["mtom"], key=lambda x: (x["impl"], x["n"], x["form"])),
            "mtom_advice": " ".join(
                f"{IMPL_NAME[a['impl']]}, {a['n']:,} ints: MTOM sends {a['bytes_ratio']:.0%} of base64's bytes in "
                f"{a['time_ratio']:.0%} of its time — pick {a['pick']}." for a in summary["mtom_advice"])}


def _ratio(a, b) -> float | None:
    return a / b if a and b else None


def _classic(rows: list[dict]) -> list[tuple[int, str]]:
    return sorted({(r["raw_size"], r["op"]) for r in rows if "classic" in r["groups"]},
                  key=lambda k: (k[0], list(ITEM).index(k[1])))


def _by_impl(rows: list[dict], op: str, n: int) -> list[dict]:
    return [find(rows, impl=impl, op=op, n=n) or {} for impl in IMPLS]


def _sizes(rows: list[dict]) -> list[dict]:
    """Per classic (raw size, type): each library's XML and HTTP bytes and overhead, the classic's."""
    return [{"raw": F.size_text(raw), "type": F.TYPE_NAME[op], "impls": _by_impl(rows, op, raw // ITEM[op]),
             "published": F.PUBLISHED_BYTES[op][F.RAW_SIZES.index(raw)] if raw in F.RAW_SIZES else None,
             "published_overhead": F.published_overhead(op, raw)} for raw, op in _classic(rows)]


def _times(rows: list[dict]) -> list[dict]:
    """Per classic (raw size, type): each library's times; the classic's at 9 MiB only."""
    return [{"raw": F.size_text(raw), "type": F.TYPE_NAME[op], "impls": _by_impl(rows, op, raw // ITEM[op]),
             "write": F.PUBLISHED_WRITE_9MIB_MS[op] if raw == 9 << 20 else None,
             "read": F.PUBLISHED_READ_9MIB_MS[op] if raw == 9 << 20 else None} for raw, op in _classic(rows)]


def _buffer(rows: list[dict]) -> list[dict]:
    """Int array (a) vs int buffer (b) per count and library; the classic's sizes for gSOAP."""
    out = []
    for n in sorted({r["n"] for r in rows if "buffer" in r["groups"]}):
        for impl in IMPLS:
            a, b = find(rows, impl=impl, op="sendInts", n=n), find(rows, impl=impl, op="sendIntBuffer", n=n)
            if a or b:
                a, b = a or {}, b or {}
                out.append({"n": n, "impl": impl, "a": a, "b": b, "ratio": _ratio(a.get("xml_bytes"), b.get("xml_bytes")),
                            "published": F.PUBLISHED_ARRAY_VS_BUFFER.get(n) if impl == "gsoap" else None})
    return out


def _floatdouble(rows: list[dict]) -> list[dict]:
    """Floats (f) vs doubles (d) per count and library: sizes and times, double over float."""
    out = []
    for n in sorted({r["n"] for r in rows if "fd" in r["groups"]}):
        for impl in IMPLS:
            f, d = find(rows, impl=impl, op="sendFloats", n=n), find(rows, impl=impl, op="sendDoubles", n=n)
            if f or d:
                f, d = f or {}, d or {}
                med = lambda x, k: x.get(k, {}).get("median")   # noqa: E731
                out.append({"n": n, "impl": impl, "f": f, "d": d, "size": _ratio(d.get("xml_bytes"), f.get("xml_bytes")),
                            "ser": _ratio(med(d, "ser_ms"), med(f, "ser_ms")),
                            "deser": _ratio(med(d, "deser_ms"), med(f, "deser_ms"))})
    return out


def _share(rows: list[dict]) -> list[dict]:
    return [{**r, "type": F.TYPE_NAME.get(r["op"], r["op"])} for r in rows if r["write_ms"]["median"] is not None]


def _writers(writers: list[dict]) -> list[dict]:
    return [{"impl": w["impl"], "technique": name, "n": w["n"], **t}
            for w in writers for name, t in w["techniques"].items()]


def _transmit(rows: list[dict]) -> list[dict]:
    """Each transmit option beside gSOAP's default (length) at the same size and with the same
    serializers (client and service): relative call time."""
    out = []
    impl = lambda x: x.get("impl", "gsoap")  # noqa: E731
    for r in sorted(rows, key=lambda x: (x["raw_size"], IMPLS.index(impl(x)), x["option"])):
        base = next((x for x in rows if x["raw_size"] == r["raw_size"] and impl(x) == impl(r)
                     and x["option"] == "length"), None)
        rel = (r["call_ms"]["median"] / base["call_ms"]["median"] - 1) if base and base["call_ms"]["median"] \
            and r["call_ms"]["median"] else None
        out.append({**r, "impl": impl(r), "raw": F.size_text(r["raw_size"]), "vs_default": rel})
    return out
