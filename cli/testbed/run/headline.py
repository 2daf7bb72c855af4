"""The few lines printed when an experiment ends: its headline figures, from summary.json."""
from __future__ import annotations


def _num(x, digits: int = 0) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def lines(summary: dict) -> list[str]:
    from analysis.judge.findings import Finding, text_lines
    from analysis.judge.regime import scaling_lines
    kind = summary["experiment"]["kind"]
    found = [Finding.from_json(f) for f in summary.get("findings", [])]
    out = scaling_lines(summary)
    title = summary.get("findings_title") or "the classic results, checked on this run"
    out += ([f"findings ({title}):", *text_lines(found), "details:"]
            if found else [])
    for r in summary["runs"]:
        cpu = ", ".join(f"{t} {v:.0f}%" for t, v in sorted((r.get("cpu_at_plateau") or {}).items()))
        iv = r.get("max_interval")
        ci = f" [{iv[0]:.0f}–{iv[1]:.0f}]" if iv else ""
        out.append(f"  {r['id']:28s} max {_num(r['max_throughput'])}/s{ci} at {_num(r['critical_users'])} users"
                   f" [{r['bottleneck']['kind']}]" + (f"  CPU at max: {cpu}" if cpu else "")
                   + (f"  ({r['excluded_steps']} step(s) excluded)" if r.get("excluded_steps") else ""))
    if kind in ("segments", "calibration", "classic"):
        for g in summary.get("segments", []):
            t = _num(g["throughput"]) + "/s" if g["throughput"] is not None else "not measurable"
            out.append(f"  segment {g['name']:4s} [{g['series']}] T = {t}" + (f"  ({g['reason']})" if g.get("reason") else ""))
    if kind == "calibration":
        for c in summary.get("calibration", []):
            out.append(f"  calibration [{c['series']}]: {c['verdict']}")
            for g in c["segments"]:
                if g["expected"] is not None and g["segment"] > 1:
                    err = "-" if g["error"] is None else f"{g['error']:+.1%}"
                    out.append(f"    T({g['segment']}) expected {_num(g['expected'], 1)}/s derived "
                               f"{_num(g['derived'], 1)}/s error {err}")
    if kind in ("clones", "classic"):
        for r in summary["runs"]:
            bits = []
            if r.get("speedup") is not None and r.get("scaled_tier") not in (None, "baseline"):
                bits.append(f"{r['scaling']} ×{r['replicas']}: speed-up {r['speedup']:.2f}")
            if r.get("vs_singleton") is not None:
                bits.append(f"{r['client_mode']} vs singleton: {r['vs_singleton']:.2f}×")
            if bits:
                out.append(f"  {r['id']:28s} " + "; ".join(bits))
    if kind == "classic":
        from analysis.judge.sidebyside import text_lines as side_lines
        from analysis.judge.sidebyside import emulation_lines
        out += ["the classic report beside this run (95 % intervals; normalized: each side by its own reference):",
                *side_lines(summary.get("side_by_side", [])), *emulation_lines(summary)]
    if summary.get("excluded_steps"):
        out.append(f"  {len(summary['excluded_steps'])} step(s) excluded from maxima (see the report)")
    return out
