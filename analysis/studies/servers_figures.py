"""Figures of the socket server models study, from the sweeps of analysis/studies/servers.py:

clients  messages/s vs clients, one line per model, one panel per per-message work (M differs
         between client counts, so completion times are not comparable across them)
pools    completion time vs pool size (pooled) against thread-per-connection's band and the
         poller; below it the pool's busy workers (peak and mean) against the pool size
lengths  completion time vs message length, one line per model
threads  the model's peak threads and the server's peak RSS vs clients (no work)
"""
from __future__ import annotations

from matplotlib.figure import Figure

from analysis.studies import servers_findings as sf

COLOURS = {"thread": "C0", "poller": "C1", "pooled": "C2"}
LABELS = {"thread": "thread per connection", "poller": "single-thread poller", "pooled": "poller + pool"}


def _med(r):
    return r["completion"]["median"] if r and r["completion"]["median"] is not None else None


def _errs(rows):
    lo = [_med(r) - r["completion"]["min"] for r in rows]
    hi = [r["completion"]["max"] - _med(r) for r in rows]
    return [lo, hi]


def _title(work: str) -> str:
    return "no per-message work" if work == "none" else f"per-message work {work}"


def _by_model(ax, table: dict, xlabel: str, logx: bool, rate: bool) -> None:
    for model in LABELS:
        pts = [(x, m[model]) for x, m in table.items() if _med(m.get(model))]
        if not pts:
            continue
        rows = [r for _, r in pts]
        if rate:
            ax.plot([x for x, _ in pts], [r["messages_per_s"] for r in rows], "o-", color=COLOURS[model],
                    label=LABELS[model])
        else:
            ax.errorbar([x for x, _ in pts], [_med(r) for r in rows], yerr=_errs(rows), fmt="o-", capsize=3,
                        color=COLOURS[model], label=LABELS[model])
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("messages/s (median)" if rate else "completion time (s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if ax.lines:
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, "no valid runs", transform=ax.transAxes, ha="center")


def _panels(sw: dict, key: str, xlabel: str, logx: bool, rate: bool = False) -> Figure:
    works = list(sw)
    fig = Figure(figsize=(5.2 * len(works), 4.2), layout="constrained")
    for i, work in enumerate(works):
        ax = fig.add_subplot(1, len(works), i + 1)
        _by_model(ax, sw[work][key], xlabel, logx, rate)
        ax.set_title(_title(work))
    return fig


def pools(sw: dict, base: dict) -> Figure:
    works = list(sw)
    fig = Figure(figsize=(5.2 * len(works), 7.5), layout="constrained")
    for i, work in enumerate(works):
        s = sw[work]
        ax = fig.add_subplot(2, len(works), i + 1)
        rows = [r for r in s["pools"] if _med(r)]
        thread = s["thread"] if _med(s["thread"]) else None
        if thread:
            c = thread["completion"]
            x, _ = sf.tolerance([thread] + rows)
            ax.axhspan(c["min"], c["max"], color=COLOURS["thread"], alpha=0.15)
            ax.axhline(c["median"], color=COLOURS["thread"], ls="--", label="thread per connection")
            ax.axhline(c["median"] * (1 + x), color=COLOURS["thread"], ls=":", label=f"thread × (1 + X), X = {x:.0%}")
        poller = s["default"].get("poller")
        if _med(poller):
            ax.axhline(_med(poller), color=COLOURS["poller"], ls="-.", label="single-thread poller")
        if rows:
            ax.errorbar([r["pool"] for r in rows], [_med(r) for r in rows], yerr=_errs(rows), fmt="o-", capsize=3,
                        color=COLOURS["pooled"], label="poller + pool")
        ax.set_xscale("log")
        ax.set_xlabel("worker pool size")
        ax.set_ylabel("completion time (s)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{_title(work)}, {base['base_clients']} clients")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="x-small")
        ax2 = fig.add_subplot(2, len(works), len(works) + i + 1)
        busy = [r for r in rows if r.get("busy_peak") is not None]
        if busy:
            ks = [r["pool"] for r in busy]
            ax2.plot(ks, ks, "--", color="gray", label="the whole pool")
            ax2.plot(ks, [r["busy_peak"] for r in busy], "o-", color=COLOURS["pooled"], label="busy workers, peak")
            ax2.plot(ks, [r["busy_mean"] for r in busy], "s:", color=COLOURS["pooled"], label="busy workers, mean")
            ax2.set_xscale("log")
            ax2.set_yscale("log")
            ax2.legend(fontsize="x-small")
        ax2.set_xlabel("worker pool size")
        ax2.set_ylabel("workers")
        ax2.set_title("how much of its pool the pooled model uses")
        ax2.grid(alpha=0.3)
    return fig


def threads(sw: dict) -> Figure | None:
    s = sw.get("none") or next(iter(sw.values()), None)
    if not s:
        return None
    fig = Figure(figsize=(10, 4), layout="constrained")
    for i, (key, ylabel) in enumerate((("threads_peak", "model's threads, peak"),
                                       ("rss_peak_mib", "server RSS, peak (MiB)"))):
        ax = fig.add_subplot(1, 2, i + 1)
        for model in LABELS:
            pts = [(n, m[model][key]) for n, m in s["clients"].items() if m.get(model) and m[model][key] is not None]
            if pts:
                ax.plot(*zip(*pts), "o-", color=COLOURS[model], label=LABELS[model])
        ax.set_xscale("log")
        if key == "threads_peak":
            ax.set_yscale("log")
        ax.set_xlabel("clients")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if ax.lines:
            ax.legend(fontsize="small")
    return fig


def all_figures(sw: dict, base: dict) -> dict:
    if not sw:
        return {}
    figs = {"clients": _panels(sw, "clients", "clients (connections)", True, rate=True),
            "pools": pools(sw, base),
            "lengths": _panels(sw, "lengths", "message length (bytes)", True)}
    t = threads(sw)
    if t is not None:
        figs["threads"] = t
    return figs
