"""What the classic serialization study's proposals are worth when they are built into the
gSOAP service: the tuned serializers built into it (services/gsoap/custom, impl "gsoap-tuned")
beside gSOAP's generated ones ("gsoap") and Axis2/ADB ("axis"), each finding judged from this
run's rows by the rule in its `why` (docs/method.md, "Serialization cost"). The figures they
improve on come from this project's earlier run with the generated serializers, kept with the
published ones in analysis/judge/published.toml ("serialization.earlier_run").

The classic study proposed a hand-written writer instead of printf-style formatting, and
found number formatting to dominate; the tuned serializers write items straight into gSOAP's
buffer (no printf, shortest round-trip floats) and scan them from its receive buffer (no
per-item tag machinery).
"""
from __future__ import annotations

from analysis.judge import published
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURABLE, Finding, missing
from analysis.judge.method import SERIALIZATION
from analysis.studies.serialization_data import find

TUNED = "gsoap-tuned"
ITEM = {"sendBytes": 1, "sendInts": 4, "sendFloats": 4, "sendDoubles": 8}
NAME = {"sendBytes": "bytes", "sendInts": "ints", "sendFloats": "floats", "sendDoubles": "doubles"}
WRITER_GOAL = 2.0          # the goal of the tuned serializers: their writer within 2x of a raw itoa loop
PUB = published.serialization()
EARLIER_GENERATED_OVER_ITOA = PUB.earlier["generated_writer_over_itoa"]   # generated writer / itoa, earlier run


def _size(raw: int) -> str:
    return f"{raw >> 20} MiB" if raw >= 1 << 20 else f"{raw >> 10} KiB"


def _ms(r: dict | None, key: str) -> float | None:
    return ((r or {}).get(key) or {}).get("median")


def writer_goal(writers: list[dict]) -> Finding:
    claim = f"gSOAP's tuned writer within {WRITER_GOAL:g}× of a raw itoa loop (the tuned serializers' goal)"
    pub = PUB.earlier_writer_text()
    g = next((w for w in writers if w["impl"] == "gsoap"), None)
    if not g or "tuned" not in g["techniques"]:
        return missing(claim, pub, "the gSOAP writers point (with its tuned writer) was not measured",
                       "writer-goal", method=SERIALIZATION)
    t = g["techniques"]
    over = t["tuned"]["over_itoa"]
    measured = (f"{g['n']:,} ints: tuned {t['tuned']['ms']['median']:.1f} ms = {over:.2f}× itoa "
                f"({t['itoa']['ms']['median']:.1f} ms); generated {t['gsoap']['over_itoa']:.1f}×, "
                f"printf {t['printf']['over_itoa']:.1f}×, hand-written {t['hand']['over_itoa']:.2f}×")
    verdict = NOT_MEASURABLE if over is None else HOLDS if over <= WRITER_GOAL else DOES_NOT_HOLD
    return Finding(claim, measured, pub, verdict,
                   f"holds when the median of the tuned writer (the request's serializer on a context "
                   f"with the tuned serializers) is at most {WRITER_GOAL:g}× the median of digits-only "
                   "itoa into a buffer; all writers' bytes are checked equal", "writer-goal", method=SERIALIZATION)


def tuned_vs_generated(rows: list[dict]) -> Finding:
    claim = "The proposals built in (no printf, no per-item tag machinery) beat gSOAP's generated serializers"
    pub = "proposed by the classic study: a hand-written writer; formatting dominates serialization"
    got = []
    for r in rows:
        if r["impl"] != TUNED or "classic" not in r["groups"]:
            continue
        g = find(rows, impl="gsoap", op=r["op"], n=r["n"])
        pairs = [(_ms(g, k), _ms(r, k)) for k in ("ser_ms", "deser_ms")]
        if all(a and b for a, b in pairs):
            got.append((r["raw_size"], r["op"], pairs[0][0] / pairs[0][1], pairs[1][0] / pairs[1][1]))
    if not got:
        return missing(claim, pub, "no classic size measured with both gSOAP serializers", "tuned-vs-generated",
                       method=SERIALIZATION)
    got.sort(key=lambda x: (x[0], list(ITEM).index(x[1])))
    ok = all(s > 1 and d > 1 for _, _, s, d in got)
    top = max(x[0] for x in got)
    measured = f"generated ÷ tuned time at {_size(top)}: " + ", ".join(
        f"{NAME[op]} ser {s:.1f}×, deser {d:.1f}×" for raw, op, s, d in got if raw == top)
    lo = min(min(s, d) for _, _, s, d in got)
    measured += f"; smallest over all classic sizes: {lo:.1f}×"
    return Finding(claim, measured, pub, HOLDS if ok else DOES_NOT_HOLD,
                   "holds when the tuned serializers take less time than the generated ones to serialize "
                   "and to deserialize every type at every classic size measured (medians, in-process)",
                   "tuned-vs-generated", method=SERIALIZATION)


def tuned_vs_axis(rows: list[dict]) -> Finding:
    claim = "gSOAP (tuned) serializes and deserializes floats and doubles faster than Axis2/ADB"
    pub = PUB.earlier_axis_text()
    got, absent = [], []
    for raw in (1 << 10, 1 << 20):
        for op in ("sendFloats", "sendDoubles"):
            t, a = find(rows, impl=TUNED, op=op, n=raw // ITEM[op]), find(rows, impl="axis", op=op, n=raw // ITEM[op])
            if all((_ms(t, "ser_ms"), _ms(t, "deser_ms"), _ms(a, "ser_ms"), _ms(a, "deser_ms"))):
                got.append((raw, op, _ms(t, "ser_ms"), _ms(a, "ser_ms"), _ms(t, "deser_ms"), _ms(a, "deser_ms")))
            else:
                absent.append(f"{NAME[op]} {_size(raw)}")
    if not got:
        return missing(claim, pub, "floats and doubles of 1 KiB and 1 MiB are needed for gSOAP tuned and Axis2",
                       "tuned-vs-axis", method=SERIALIZATION)
    ok = not absent and all(ts < as_ and td < ad for _, _, ts, as_, td, ad in got)
    measured = "; ".join(f"{NAME[op]} {_size(raw)}: ser {ts:.3g} vs {as_:.3g} ms, deser {td:.3g} vs {ad:.3g} ms"
                         for raw, op, ts, as_, td, ad in got)
    if absent:
        measured += f" (not measured: {', '.join(absent)})"
    return Finding(claim, measured, pub, HOLDS if ok else DOES_NOT_HOLD,
                   "holds when gSOAP's tuned medians are below Axis2/ADB's in both directions for floats and "
                   "doubles at 1 KiB and at 1 MiB (tuned vs Axis2, in-process, same seeded items)", "tuned-vs-axis",
                   method=SERIALIZATION)


def shortest_floats(rows: list[dict]) -> Finding:
    claim = "Shortest round-trip text (instead of %.9G / %.17lG) makes float and double messages smaller"
    pub = "not in the classic study; the same values read back bit for bit either way"
    got = []
    for op in ("sendFloats", "sendDoubles"):
        for r in rows:
            if r["impl"] == TUNED and r["op"] == op and "classic" in r["groups"]:
                g = find(rows, impl="gsoap", op=op, n=r["n"])
                if g and g["xml_bytes"] and r["xml_bytes"]:
                    got.append((r["raw_size"], op, r["xml_bytes"] / g["xml_bytes"]))
    if not got:
        return missing(claim, pub, "no float or double size measured with both gSOAP serializers", "shortest-floats",
                       method=SERIALIZATION)
    ok = all(x < 1 for _, _, x in got)
    top = max(raw for raw, _, _ in got)
    measured = f"tuned ÷ generated XML bytes at {_size(top)}: " + ", ".join(
        f"{NAME[op]} {x:.3f}" for raw, op, x in got if raw == top)
    return Finding(claim, measured, pub, HOLDS if ok else DOES_NOT_HOLD,
                   "holds when the tuned envelope is smaller than the generated one for floats and doubles at "
                   "every classic size measured", "shortest-floats", method=SERIALIZATION)


def proposals(rows: list[dict], writers: list[dict]) -> list[Finding]:
    return [writer_goal(writers), tuned_vs_generated(rows), tuned_vs_axis(rows), shortest_floats(rows)]
