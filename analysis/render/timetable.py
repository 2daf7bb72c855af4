"""The report header's "Where the time went": experiment.json "time" (written by the runner's
ledger, cli/testbed/run/ledger.py) as the rows the template shows. An older folder has no
"time": then no table (view returns None).
"""
from __future__ import annotations

LABELS = {
    "start-up": "start-up (the stack started or checked, Locust's workers)",
    "calibration": "calibration (cost, profile and build probes)",
    "reconfiguration": "restarts and scaling before the runs",
    "priming": "priming (cold tiers warmed before the first step)",
    "measuring": "measuring (the steps, their warm-ups included)",
    "hold": "hold (thread dumps at the plateau)",
    "load generator": "load generator (Locust start and stop, the settle before a run, the rest of a run)",
    "prediction": "the model's prediction",
    "analysis": "analysis during the experiment",
}


def warm_text(warm) -> str | None:
    """A run's steady-state evidence of its priming (run.json notes.warm); None: not recorded."""
    if not isinstance(warm, dict):
        return None
    seconds = warm.get("seconds")
    parts = [str(warm.get("verdict") or "?")]
    if isinstance(seconds, (int, float)):
        parts.append(f"({seconds:.0f} s)")
    text = " ".join(parts)
    why = str(warm.get("why") or "")
    if why.startswith(str(warm.get("verdict") or "?")):     # "steady after 42 s: …" says it already
        return why
    return f"{text}: {why}" if why else text


def view(time: dict | None) -> dict | None:
    """{"wall_min", "phases": [(label, minutes, share)], "runs": [...], "report_s"}; None
    without a usable "time"."""
    if not isinstance(time, dict) or not isinstance(time.get("wall_s"), (int, float)) or time["wall_s"] <= 0:
        return None
    wall = float(time["wall_s"])

    def row(label: str, seconds: float) -> tuple[str, float, float]:
        return label, seconds / 60, seconds / wall

    phases = [row(LABELS.get(k, k), float(v)) for k, v in (time.get("phases") or {}).items() if v]
    unaccounted = float(time.get("unaccounted_s") or 0.0)
    phases.append(row("unaccounted (outside every timed phase)", unaccounted))
    runs = [{"id": r.get("id"), "reconfiguration_s": r.get("reconfiguration_s"), "priming_s": r.get("priming_s"),
             "warm": warm_text(r.get("warm")), "measuring_s": r.get("measuring_s"), "hold_s": r.get("hold_s"),
             "locust_s": r.get("locust_s")} for r in time.get("runs") or [] if isinstance(r, dict)]
    return {"wall_min": wall / 60, "unaccounted_share": unaccounted / wall, "phases": phases, "runs": runs,
            "report_s": time.get("report_s"), "brief": brief(time)}


def brief(time: dict) -> str:
    """One line for the header: the largest phases in minutes, and the primes' verdicts, e.g.
    "measuring 5.1, priming 2.4 (2 by measurement: steady), calibration 2.2 min"."""
    phases = sorted(((k, float(v)) for k, v in (time.get("phases") or {}).items() if v), key=lambda kv: -kv[1])
    verdicts = [str((r.get("warm") or {}).get("verdict")) for r in time.get("runs") or []
                if isinstance(r, dict) and (r.get("warm") or {}).get("verdict") in ("steady", "not warm")]
    parts = []
    for k, v in phases[:4]:
        text = f"{k} {v / 60:.1f}"
        if k == "priming" and verdicts:
            cold = verdicts.count("not warm")
            text += (f" ({len(verdicts)} by measurement: "
                     + (f"{cold} not warm" if cold else "all steady") + ")")
        parts.append(text)
    return ", ".join(parts) + " min" if parts else ""
