"""The IPC study's figures, from its summary (analysis/studies/ipc.py):

times  -- the classic study's three panels, real / user / system time per mechanism, one row
          per classic size; user and system stack the client (solid) and the server (light);
          error bars span the runs' min-max (of the sum, for the stacked panels)
sweep  -- messages/s and MB/s against message size, one line per mechanism (log-log)
"""
from __future__ import annotations

from matplotlib.figure import Figure

from analysis.judge import published
PANELS = (("real", "real time"), ("user", "user time (client + server)"), ("sys", "system time (client + server)"))


def _colour(mechanisms: list[str], m: str) -> str:
    return f"C{mechanisms.index(m) % 10}"


def times(summary: dict, labels: dict[str, str]) -> Figure:
    sizes, mechs = summary["sizes"], summary["mechanisms"]
    rows = {(r["mechanism"], r["size"]): r for r in summary["rows"] if r["group"] == "main"}
    fig = Figure(figsize=(12, 3.6 * max(1, len(sizes))), layout="constrained")
    for i, size in enumerate(sizes or [None]):
        for j, (metric, title) in enumerate(PANELS):
            ax = fig.add_subplot(max(1, len(sizes)), 3, i * 3 + j + 1)
            xs = range(len(mechs))
            for x, m in zip(xs, mechs):
                r = rows.get((m, size))
                if r is None or r["real"]["median"] is None:
                    ax.annotate("no valid run", (x, 0), ha="center", va="bottom", rotation=90,
                                fontsize="x-small", color="dimgray")
                    continue
                colour = _colour(mechs, m)
                if metric == "real":
                    d = r["real"]
                    ax.bar(x, d["median"], color=colour)
                    ax.errorbar(x, d["median"], yerr=[[d["median"] - d["min"]], [d["max"] - d["median"]]],
                                color="black", capsize=3, lw=1)
                    continue
                c, s = r[f"client_{metric}"], r[f"server_{metric}"]
                ax.bar(x, c["median"], color=colour, label="client" if x == 0 else None)
                ax.bar(x, s["median"], bottom=c["median"], color=colour, alpha=0.45,
                       label="server" if x == 0 else None)
                top = c["median"] + s["median"]
                ax.errorbar(x, top, yerr=[[max(0.0, top - c["min"] - s["min"])], [max(0.0, c["max"] + s["max"] - top)]],
                            color="black", capsize=3, lw=1)
            ax.set_xticks(list(xs))
            ax.set_xticklabels([labels.get(m, m) for m in mechs], rotation=35, ha="right", fontsize="small")
            ax.set_ylabel("seconds per 100 MB")
            ax.set_title(f"{title}, {size} B" if size else title, fontsize="medium")
            ax.set_ylim(bottom=0)
            ax.grid(axis="y", alpha=0.3)
            if metric != "real" and i == 0:
                ax.legend(fontsize="x-small", title="solid / light", title_fontsize="x-small")
    return fig


def sweep(summary: dict, labels: dict[str, str]) -> Figure:
    mechs = summary["mechanisms"]
    fig = Figure(figsize=(12, 4.6), layout="constrained")
    axes = [fig.add_subplot(1, 2, k) for k in (1, 2)]
    for m in mechs:
        pts = sorted((r["size"], r["messages_per_s"], r["mb_per_s"]) for r in summary["rows"]
                     if r["mechanism"] == m and r["messages_per_s"]["median"] is not None)
        if not pts:
            continue
        for ax, k in zip(axes, (1, 2)):
            ys = [p[k] for p in pts]
            ax.errorbar([p[0] for p in pts], [d["median"] for d in ys],
                        yerr=[[d["median"] - d["min"] for d in ys], [d["max"] - d["median"] for d in ys]],
                        fmt="o-", color=_colour(mechs, m), label=labels.get(m, m), capsize=2, ms=4, lw=1.2)
    for ax, what in zip(axes, ("messages/s", "MB/s")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(what)
        ax.set_title(f"{what} vs message size (median, min–max)", fontsize="medium")
        ax.grid(alpha=0.3, which="both")
    floor = published.ipc()
    axes[0].axhline(floor.rate_floor, color="gray", ls="--", lw=1)
    axes[0].annotate(f"{floor.floor_text()}/s, the classic floor", (axes[0].get_xlim()[1], floor.rate_floor),
                     fontsize="x-small", color="gray", va="bottom", ha="right")
    axes[1].legend(fontsize="small")
    return fig


def figures(summary: dict, labels: dict[str, str]) -> dict[str, Figure]:
    out = {}
    if any(r["group"] == "main" for r in summary["rows"]):
        out["times"] = times(summary, labels)
    if summary["rows"]:
        out["sweep"] = sweep(summary, labels)
    return out
