"""Figures of the prediction: one configuration's predicted curves (./testbed predict), and
predicted beside measured throughput for every configuration of an experiment (the report).
Like the report's own plots, each is a matplotlib Figure made without pyplot: saving one picks
the canvas for its file's format, so no backend has to be chosen first."""
from __future__ import annotations

from matplotlib.figure import Figure


def curves(points: list[dict], title: str) -> Figure:
    """Throughput and response time per user count, the bottleneck written at each point."""
    fig = Figure(figsize=(7.5, 4.5))
    ax = fig.add_subplot()
    users = [p["users"] for p in points]
    ax.plot(users, [p["throughput"] for p in points], "o-", color="C0", label="throughput (model)")
    sims = [(p["users"], p["simulation"]["throughput"]) for p in points if p.get("simulation")]
    if sims:
        ax.plot(*zip(*sims), "x", color="k", label="throughput (simulation)")
    for p in points:
        ax.annotate(p["bottleneck"], (p["users"], p["throughput"]), textcoords="offset points",
                    xytext=(0, 6), ha="center", fontsize="x-small")
    ax.set_xlabel("users")
    ax.set_ylabel("throughput (requests/s)")
    ax.set_ylim(0, 1.15 * max(p["throughput"] for p in points))     # room for the bottleneck labels
    ax.grid(alpha=0.3)
    rt = ax.twinx()
    rt.plot(users, [p["response_time"] * 1e3 for p in points], "s--", color="C1", label="response time (model)")
    rt.set_ylabel("response time (ms)")
    rt.set_ylim(bottom=0)
    lines = ax.get_legend_handles_labels()
    more = rt.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize="small", loc="lower right")
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def overlay(rows: list[dict], title: str) -> Figure:
    """rows: [{text, users, predicted: [...], measured: [(users, x)]}]: predicted dashed,
    measured solid, one colour per configuration."""
    fig = Figure(figsize=(8.5, 5))
    ax = fig.add_subplot()
    for i, r in enumerate(rows):
        c = f"C{i % 10}"
        ax.plot(r["users"], r["predicted"], "--", color=c, alpha=0.8)
        if r.get("measured"):
            ax.plot(*zip(*sorted(r["measured"])), "o-", color=c, label=r["text"])
        else:
            ax.plot([], [], "--", color=c, label=r["text"] + " (not measured)")
    ax.set_xlabel("users")
    ax.set_ylabel("throughput (requests/s)")
    ax.set_title(title + "  (dashed: predicted from the baseline; solid: measured)", fontsize="medium")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig
