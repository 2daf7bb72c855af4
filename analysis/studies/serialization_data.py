"""The serialization study's samples as rows, one per point (analysis/studies/
serialization.py turns them into tables, figures and findings).

A measurement's time is the median of its runs (the program's JSON); a point's time is
the median over its measurements (repeats), with their spread (analysis/stats.py). Sizes
are exact: every measurement of a point must report the same bytes, else the row says so
(`sizes_stable`).
"""
from __future__ import annotations

from analysis.stats import describe, ratio

MS = 1e6   # ns per ms


def _ok(samples: list[dict]) -> dict[str, list[dict]]:
    by: dict[str, list[dict]] = {}
    for s in samples:
        if s.get("status") == "ok" and isinstance(s.get("data"), dict):
            by.setdefault(s["point"], []).append(s)
    return by


def _times(runs: list[dict], key: str) -> dict:
    """Per-measurement medians of data[key] (ns) -> describe() in ms."""
    return describe([r["data"][key]["median"] / MS for r in runs if (r["data"].get(key) or {}).get("median")])


def _same(runs: list[dict], key: str):
    values = {r["data"].get(key) for r in runs}
    return (values.pop() if len(values) == 1 else None), len(values) <= 1


def message_rows(samples: list[dict]) -> list[dict]:
    rows = []
    for point, runs in _ok(samples).items():
        q = runs[0]["params"]
        if q.get("kind") != "message":
            continue
        xml, stable_x = _same(runs, "xml_bytes")
        http, stable_h = _same(runs, "http_bytes")
        raw = runs[0]["data"]["raw_bytes"]
        n = q["n"]
        row = {"point": point, "impl": q["impl"], "op": q["op"], "n": n, "groups": q["groups"],
               "raw_size": q.get("raw_size"), "raw_bytes": raw, "xml_bytes": xml, "http_bytes": http,
               "sizes_stable": stable_x and stable_h, "measurements": len(runs),
               "overhead_pct": (xml - raw) / raw * 100 if xml is not None and raw else None,
               "http_overhead_pct": (http - raw) / raw * 100 if http is not None and raw else None,
               "ser_ms": _times(runs, "ser_ns"), "deser_ms": _times(runs, "deser_ns"),
               "write_ms": _times(runs, "write_ns"), "read_ms": _times(runs, "read_ns")}
        row["ser_over_deser"] = ratio(row["ser_ms"]["median"], row["deser_ms"]["median"])
        row["ser_ns_per_item"] = row["ser_ms"]["median"] * MS / n if row["ser_ms"]["median"] and n else None
        row["deser_ns_per_item"] = row["deser_ms"]["median"] * MS / n if row["deser_ms"]["median"] and n else None
        row["ser_share_of_write"] = ratio(row["ser_ms"]["median"], row["write_ms"]["median"])
        row["deser_share_of_read"] = ratio(row["deser_ms"]["median"], row["read_ms"]["median"])
        rows.append(row)
    return sorted(rows, key=lambda r: (r["impl"], r["op"], r["n"]))


def find(rows: list[dict], **match) -> dict | None:
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def writer_rows(samples: list[dict]) -> list[dict]:
    rows = []
    for point, runs in _ok(samples).items():
        q = runs[0]["params"]
        if q.get("kind") != "writers":
            continue
        names = list(runs[0]["data"]["ns"])
        tech = {}
        for name in names:
            t = describe([r["data"]["ns"][name]["median"] / MS for r in runs])
            over = describe([r["data"]["ns"][name]["over_itoa"] for r in runs])
            tech[name] = {"ms": t, "over_itoa": over["median"]}
        rows.append({"impl": q["impl"], "n": q["n"], "bytes": runs[0]["data"]["bytes"],
                     "itoa_bytes": runs[0]["data"]["itoa_bytes"], "measurements": len(runs),
                     "techniques": tech})
    return sorted(rows, key=lambda r: r["impl"])


def call_rows(samples: list[dict], kind: str) -> list[dict]:
    """transmit and mtom points: request bytes and the call time."""
    rows = []
    for point, runs in _ok(samples).items():
        q = runs[0]["params"]
        if q.get("kind") != kind:
            continue
        sent, stable = _same(runs, "request_bytes")
        d = runs[0]["data"]
        rows.append({**{k: v for k, v in q.items() if k != "kind"}, "point": point,
                     "request_bytes": sent, "sizes_stable": stable, "raw_bytes": d.get("raw_bytes"),
                     "call_ms": _times(runs, "call_ns"), "measurements": len(runs),
                     "checksum": d.get("expected_checksum"), "int_array_checksum": d.get("int_array_checksum")})
    return rows
