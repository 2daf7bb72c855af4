"""Analysis of the serialization study (docs/method.md, "Serialization cost"; the runner is
cli/testbed/studies/serialization.py, the contract analysis/render/study_report.py).

summarize -> rows (serialization_data), findings (serialization_findings) and the MTOM
recommendation; figures -> overhead by type and size, time per item, writers, transmit;
view -> the rows of the report's tables (serialization_sections; the page:
analysis/render/templates/studies/serialization.html.j2).
"""
from __future__ import annotations

from matplotlib.figure import Figure

from analysis.studies import serialization_findings as F
from analysis.studies import serialization_proposals as P
from analysis.studies.serialization_data import call_rows, find, message_rows, writer_rows
from analysis.studies.serialization_sections import view  # noqa: F401  (the module contract)

METHOD = """\
Programs: tb-serialization (C++, gSOAP 2.8's code generated from the contract: the request
serializers and deserializers, the proxy class) and serialization-study.jar (Java, Axis2 2.0's
ADB classes and stub generated from the same WSDL, Axiom/Woodstox underneath), one JVM for the
whole run (the JIT warmed on each operation before it is timed). Payloads: the contract's
seeded generator, so every size is exact and the same for a seed.
gSOAP is measured twice: "gSOAP" with the serializers soapcpp2 generates, "gSOAP tuned" with the
gSOAP service's tuned custom serializers of the arrays (services/gsoap/custom, the same program
with --serializers tuned: items written straight into gSOAP's buffer with std::to_chars, floats
and doubles in their shortest round-trip form, plain items scanned from its receive buffer);
the same WSDL and wire format, the same values read back.

Sizes: xml = the SOAP envelope the generated code writes; http = every byte of the HTTP request
the generated client sends (headers, chunk framing, body) as a loopback sink received it;
overhead = (xml - raw) / raw, raw = items x item size (byte 1, int/float 4, double 8).
Times, in-process: serialization = request data -> envelope bytes in memory (gSOAP: its 64 KiB
output buffer flushed to memory; Axis2: the stub's envelope serialized by Axiom into a byte
array); deserialization = envelope bytes in memory -> request objects, parsed the way each
service does (gSOAP: soap_begin_recv ... soap_get; Axis2: Axiom envelope + the generated
Factory.parse), count and checksum checked on every run, objects freed. The whole write
(resp. read) over a loopback socket: the generated client's send to a sink thread (gSOAP:
counting pass + send, connect excluded; Axis2: the stub's whole call, a short fixed answer
included) and the HTTP request read from a loopback socket and deserialized; share =
in-memory time / socket time.
Each measurement = one warm-up run, then runs until >= min_runs and >= min_seconds (messages
above large_bytes: one run, no warm-up run); its figure is the median run. A point's figure is
the median over its `repeat` measurements (spread = (max - min) / median); all actions of a
measurement are interleaved round by round, points in rounds over the whole study.
Writers: the same ints written printf-style (snprintf / java.util.Formatter), by the library
(gSOAP's items serializer; Axis2: ADB's request serialization), by a hand-written digit writer
(tags copied, two digits per step from a table), and by a raw itoa loop (digits only, the
lower bound); the first three must produce identical bytes.
Transmit: gSOAP client (the generated proxy) -> the gSOAP service of this repository, started
for the study on a free loopback port; each option changed alone from gSOAP's client defaults
(a counting pass then Content-Length, keep-alive, SO_SNDBUF/SO_RCVBUF fixed at 64 KiB);
median of the calls after one warm-up call, the service's checksum checked every call.
MTOM: sendIntBuffer as base64 in the body or as an MTOM/XOP attachment, each client against
its own service; bytes = the request as sent, time = the whole call.
"""


def summarize(experiment: dict, samples: list[dict]) -> dict:
    p = experiment.get("params") or {}
    rows = message_rows(samples)
    writers = writer_rows(samples)
    transmit = call_rows(samples, "transmit")
    mtom = call_rows(samples, "mtom")
    findings = [F.bloat(rows), F.array_vs_buffer(rows, p.get("buffer_counts") or []), F.ser_vs_deser(rows),
                F.doubles_vs_floats(rows, p.get("float_counts") or []), F.formatting_dominates(rows)]
    findings += F.improvements(transmit, writers)
    findings += P.proposals(rows, writers)
    return {"messages": rows, "writers": writers, "transmit": transmit, "mtom": mtom,
            "mtom_advice": mtom_advice(mtom),
            "unstable_sizes": [r["point"] for r in rows + transmit + mtom if not r["sizes_stable"]],
            "findings": [f.to_json() for f in findings]}


def mtom_advice(mtom: list[dict]) -> list[dict]:
    """Per client, at its largest count: what MTOM saves in bytes and time over base64."""
    out = []
    for impl in ("gsoap", "axis"):
        ns = sorted({r["n"] for r in mtom if r["impl"] == impl})
        for n in ns[-1:]:
            b = next((r for r in mtom if r["impl"] == impl and r["n"] == n and r["form"] == "base64"), None)
            m = next((r for r in mtom if r["impl"] == impl and r["n"] == n and r["form"] == "mtom"), None)
            if not (b and m and b["request_bytes"] and m["request_bytes"] and b["call_ms"]["median"]
                    and m["call_ms"]["median"]):
                continue
            out.append({"impl": impl, "n": n, "bytes_ratio": m["request_bytes"] / b["request_bytes"],
                        "time_ratio": m["call_ms"]["median"] / b["call_ms"]["median"],
                        "pick": "MTOM" if m["call_ms"]["median"] < b["call_ms"]["median"] else "base64"})
    return out


# ------------------------------------------------------------------------------- figures
LABEL = {"gsoap": "gSOAP", "gsoap-tuned": "gSOAP tuned", "axis": "Axis2"}
STYLES = {"gsoap": "-o", "gsoap-tuned": "-.^", "axis": "--s"}

def figures(summary: dict) -> dict[str, Figure]:
    figs = {}
    rows = summary["messages"]
    classic = [r for r in rows if "classic" in r["groups"] and r["overhead_pct"] is not None]
    if classic:
        figs["overhead"] = _overhead_figure(classic)
    per_item = [r for r in rows if r["op"] in ("sendInts", "sendFloats", "sendDoubles") and r["ser_ns_per_item"]]
    if per_item:
        figs["time_per_item"] = _per_item_figure(per_item)
    if summary["writers"]:
        figs["writers"] = _writers_figure(summary["writers"])
    if summary["transmit"]:
        figs["transmit"] = _transmit_figure(summary["transmit"])
    return figs


def _overhead_figure(rows: list[dict]) -> Figure:
    fig = Figure(figsize=(7.5, 4.2))
    ax = fig.add_subplot()
    for i, op in enumerate(F.TYPE_NAME):
        colour = f"C{i}"
        for impl, style in STYLES.items():
            pts = sorted((r["raw_size"], r["overhead_pct"]) for r in rows if r["op"] == op and r["impl"] == impl)
            if pts:
                ax.plot(*zip(*pts), style, color=colour, label=f"{F.TYPE_NAME[op]} ({LABEL[impl]})")
        pub = [(s, F.published_overhead(op, s)) for s in F.RAW_SIZES]
        ax.plot(*zip(*pub), ":", color=colour, alpha=0.5)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("raw size of the items (bytes)")
    ax.set_ylabel("overhead (xml − raw) / raw, %")
    ax.set_title("Message overhead by item type (dotted: classic study, recomputed)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    return fig


def _per_item_figure(rows: list[dict]) -> Figure:
    fig = Figure(figsize=(7.5, 4.2))
    ax = fig.add_subplot()
    for i, op in enumerate(("sendInts", "sendFloats", "sendDoubles")):
        for impl, style in STYLES.items():
            pts = sorted((r["n"], r["ser_ns_per_item"]) for r in rows if r["op"] == op and r["impl"] == impl)
            if pts:
                ax.plot(*zip(*pts), style, color=f"C{i + 1}", label=f"{F.TYPE_NAME[op]} ({LABEL[impl]})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("items in the message")
    ax.set_ylabel("serialization time per item (ns)")
    ax.set_title("Serialization cost per item")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    return fig


def _writers_figure(writers: list[dict]) -> Figure:
    fig = Figure(figsize=(7.5, 3.2))
    ax = fig.add_subplot()
    labels, values = [], []
    for w in writers:
        for name, t in w["techniques"].items():
            labels.append(f"{'gSOAP/C++' if w['impl'] == 'gsoap' else 'Axis2/Java'}: {name}")  # gsoap: both writers
            values.append(t["ms"]["median"] or 0)
    ax.barh(labels, values, color=["C0" if "C++" in label else "C1" for label in labels])
    ax.set_xscale("log")
    ax.set_xlabel(f"ms to write {writers[0]['n']:,} ints (median)")
    ax.set_title("Writer technique")
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


def _transmit_figure(rows: list[dict]) -> Figure:
    fig = Figure(figsize=(7.5, 3.4 + 0.15 * len(rows)))
    sizes = sorted({r["raw_size"] for r in rows})
    for k, size in enumerate(sizes):
        ax = fig.add_subplot(1, len(sizes), k + 1)
        sel = [r for r in rows if r["raw_size"] == size and r["call_ms"]["median"]]
        impls = [r.get("impl", "gsoap") for r in sel]
        ax.barh([f"{r['option']} ({LABEL[i]})" for r, i in zip(sel, impls)], [r["call_ms"]["median"] for r in sel],
                color=[f"C{list(LABEL).index(i)}" for i in impls])
        ax.set_title(f"sendInts, {F.size_text(size)} raw")
        ax.set_xlabel("call time, ms (median)")
        ax.invert_yaxis()
    fig.tight_layout()
    return fig


__all__ = ["METHOD", "summarize", "figures", "view", "find"]
