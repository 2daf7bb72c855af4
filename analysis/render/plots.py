"""Figures: each function takes plain data and returns a matplotlib Figure (Agg backend).

throughput_vs_users -- every run's steps, one colour per path/series; excluded steps hollow
segment_bars        -- per-segment throughput; a not-measurable segment is labelled, not a zero bar
clone_scaling       -- speed-up vs replicas against the ideal line, client and service tier apart
cpu_beside_throughput -- one run: throughput per step beside CPU per tier per step
timeline            -- one run over time, throughput and p95, fault windows shaded
save(fig, folder, name) writes name.png and name.svg.
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

Point = tuple[int, float | None, bool]   # (users, throughput, excluded)


def throughput_vs_users(lines: dict[str, list[Point]], title: str = "Throughput vs users",
                        groups: dict[str, str] | None = None) -> Figure:
    """lines: legend label -> [(users, throughput, excluded)]. Excluded steps are hollow.
    groups: label -> group; lines of one group (repeats of a configuration) share a colour."""
    fig = Figure(figsize=(7.5, 4.5))
    ax = fig.add_subplot()
    order = list(dict.fromkeys((groups or {}).get(label, label) for label in lines))
    for label, points in lines.items():
        colour = f"C{order.index((groups or {}).get(label, label)) % 10}"
        pts = sorted((u, t, x) for u, t, x in points if t is not None)
        if not pts:
            continue
        ax.plot([u for u, _, _ in pts], [t for _, t, _ in pts], "-", color=colour, alpha=0.6,
                label=label)
        ok = [(u, t) for u, t, x in pts if not x]
        bad = [(u, t) for u, t, x in pts if x]
        if ok:
            ax.plot(*zip(*ok), "o", color=colour)
        if bad:
            ax.plot(*zip(*bad), "o", markerfacecolor="none", markeredgecolor=colour)
    ax.set_xlabel("users (think time as configured)")
    ax.set_ylabel("throughput (requests/s)")
    ax.set_title(title + "  (hollow = excluded step)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if lines:
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def segment_bars(rows: list[dict], title: str = "Per-segment throughput T(k)") -> Figure:
    """rows: [{series, segment, throughput|None, reason}]. Log scale; not measurable = label."""
    fig = Figure(figsize=(7.5, 4.5))
    ax = fig.add_subplot()
    series = list(dict.fromkeys(r.get("series", "") for r in rows))
    width = 0.8 / max(len(series), 1)
    values = [r["throughput"] for r in rows if r.get("throughput")]
    floor = min(values) / 3 if values else 1.0
    for i, name in enumerate(series):
        mine = [r for r in rows if r.get("series", "") == name]
        xs = [r["segment"] + (i - (len(series) - 1) / 2) * width for r in mine]
        ok = [(x, r["throughput"]) for x, r in zip(xs, mine) if r.get("throughput")]
        if ok:
            bars = ax.bar([x for x, _ in ok], [v for _, v in ok], width=width * 0.95,
                          color=f"C{i % 10}", label=name or None)
            for b, (_, v) in zip(bars, ok):
                ax.annotate(f"{v:,.0f}" if v >= 100 else f"{v:.3g}", (b.get_x() + b.get_width() / 2, v), ha="center",
                            va="bottom", fontsize="x-small")
        for x, r in zip(xs, mine):
            if not r.get("throughput"):
                ax.annotate("not\nmeasurable", (x, floor), ha="center", va="bottom",
                            fontsize="x-small", color="dimgray", rotation=90)
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor / 2 if values else 0.5, top=(max(values) * 5 if values else 10))
    ax.set_xticks(sorted({r["segment"] for r in rows}))
    ax.set_xticklabels([f"T({k})" for k in sorted({r["segment"] for r in rows})])
    ax.set_ylabel("requests/s (log)")
    ax.set_title(title)
    if any(series):
        ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def clone_scaling(curves: dict[str, list[tuple[int, float, str]]]) -> Figure:
    """curves: "client tier"/"service tier" -> [(replicas, speedup, series)]; ideal = dashed."""
    panels = ["client tier", "service tier"] + sorted(set(curves) - {"client tier", "service tier"})
    fig = Figure(figsize=(4.5 * len(panels), 4.5), layout="constrained")   # long legends: tight_layout gives up
    for i, name in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        points = curves.get(name, [])
        top = max([r for r, _, _ in points] + [4])
        ax.plot([1, top], [1, top], "--", color="gray", label="ideal (linear)")
        for j, label in enumerate(dict.fromkeys(s for _, _, s in points)):
            pts = sorted((r, v) for r, v, s in points if s == label)
            ax.plot(*zip(*pts), "o-", color=f"C{j % 10}", label=label)
        if not points:
            ax.text(0.5, 0.5, "no runs scaled this tier", transform=ax.transAxes, ha="center")
        ax.set_xlabel("replicas")
        ax.set_ylabel("speed-up vs 1 replica")
        ax.set_title(f"{name} scaling")
        ax.set_xlim(0.5, top + 0.5)
        ax.set_ylim(0, top + 0.5)
        ax.grid(alpha=0.3)
        ax.legend(handles=ax.lines, labels=[textwrap.fill(x.get_label(), 38) for x in ax.lines],
                  fontsize="x-small")
    return fig


def cpu_beside_throughput(steps: list[dict], title: str = "") -> Figure:
    """steps: [{users, throughput|None, excluded, cpu: {tier: %}, host_cpu}] of one run."""
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    steps = sorted(steps, key=lambda s: s["users"])
    users = [s["users"] for s in steps]
    ok = [(s["users"], s["throughput"]) for s in steps if s.get("throughput") is not None
          and not s.get("excluded")]
    bad = [(s["users"], s["throughput"]) for s in steps if s.get("throughput") is not None
           and s.get("excluded")]
    if ok:
        ax1.plot(*zip(*ok), "o-", color="C0")
    if bad:
        ax1.plot(*zip(*bad), "o", markerfacecolor="none", markeredgecolor="C0")
    ax1.set_xlabel("users")
    ax1.set_ylabel("throughput (requests/s)")
    ax1.set_ylim(bottom=0)
    ax1.set_title("throughput per step (hollow = excluded)")
    ax1.grid(alpha=0.3)
    tiers = sorted({t for s in steps for t in s.get("cpu", {})})
    for i, tier in enumerate(tiers):
        ax2.plot(users, [s.get("cpu", {}).get(tier) for s in steps], "o-", color=f"C{i % 10}",
                 label=tier)
    if any(s.get("host_cpu") is not None for s in steps):
        ax2.plot(users, [s.get("host_cpu") for s in steps], "k--", label="host (all cores)")
    ax2.set_xlabel("users")
    ax2.set_ylabel("CPU (% of one core, summed over replicas)")
    ax2.set_ylim(bottom=0)
    ax2.set_title("CPU per tier per step")
    ax2.grid(alpha=0.3)
    if tiers:
        ax2.legend(fontsize="x-small")
    else:
        ax2.text(0.5, 0.5, "no CPU samples", transform=ax2.transAxes, ha="center")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def timeline(points: list[dict], windows: list[tuple[float, float, str]], title: str = "") -> Figure:
    """One run over time: throughput (and failures) per second above, p95 latency below; each
    fault window (from_s, to_s, label) shaded on both."""
    fig = Figure(figsize=(7.5, 5.0))
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    t = [p["t"] for p in points]
    ax1.plot(t, [p["throughput"] for p in points], "-", color="C0", label="requests/s")
    ax1.plot(t, [p["failures"] for p in points], "-", color="C3", label="failures/s")
    ax2.plot(t, [math.nan if p["p95_ms"] is None else p["p95_ms"] for p in points], "-", color="C1", label="p95 (ms)")
    for lo, hi, label in windows:
        for ax in (ax1, ax2):
            ax.axvspan(lo, hi, color="0.85", zorder=0)
        ax1.text(lo, 1.0, " " + label, transform=ax1.get_xaxis_transform(), va="top", fontsize="x-small")
    ax1.set_ylabel("per second")
    ax1.legend(fontsize="x-small", loc="lower left")
    ax2.set_ylabel("p95 latency (ms)")
    ax2.set_xlabel("seconds since the run's first stats row (grey: fault window)")
    for ax in (ax1, ax2):
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def save(fig: Figure, folder: Path, name: str) -> tuple[Path, Path]:
    """Write folder/name.png and folder/name.svg; return both paths."""
    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    fig.savefig(png, dpi=100, metadata={"Software": None})
    fig.savefig(svg, metadata={"Date": None})  # no timestamp: regenerating gives the same file
    return png, svg
