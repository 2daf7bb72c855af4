"""Compare result folders of one experiment: did B change against A, where, and is it a regression?
(`./testbed compare A B [C ...]`, docs/compare.md). Each later folder is compared with the first.

Matching: runs by their id without the repeat (`singleton-c1-a1-r0` and `-r1` are one run; the
first repeat of each is used), valid steps by their users (the first step at 4 users with the first,
the second with the second). A run or step in one folder only is listed as
such. Runs whose configuration differs (tiers, lifecycle, demands) are compared and say so; where it
differs in what the model places (replicas, lifecycle, pool size), the model fitted to A's baseline
predicts B/A at each matched step, beside the measured B/A (it agrees within 10 points).

Per matched step (both valid):
  throughput   B/A of the step's throughput; its 95 % interval from the two steps' intervals
               ([B_lo/A_hi, B_hi/A_lo]); Mann–Whitney's two-sided test (scipy) over the two steps'
               per-second throughputs — the samples the steps' own intervals rest on;
  latency      p50 and p99 of every request (latency.hlog) with their distribution-free 95 %
               intervals: a change is significant when the two intervals do not overlap;
  where        each tier's CPU per request (ms, cpu.csv over the step) B − A; the tier whose CPU a
               request grew most is where the change is, when the change is significant; where
               both steps were traced, also the tier whose own time (spans) grew most.
Per matched run: the thread dumps at its plateau, A → B (the bottleneck's kind, each tier's threads
BLOCKED on a monitor), when both runs had them.
A step is a **regression** when its throughput fell by more than the threshold (default 5 %) with the
test's p below ALPHA and the ratio's whole interval below 1, or its p99 rose by more than the
latency threshold (default 10 %) with the two p99 intervals apart. An **improvement** is the mirror.
A run regressed when **every** one of its matched steps did: a change of the system shows at each
of its load levels, while one step's change alone is what two runs of the same configuration showed
here (10 pairs of `classic --quick`, docs/compare.md: a single step's p99 moved by up to 61 % between
identical runs, never every step of a run the same way). With segments (paths /seg/1 .. /seg/5),
each segment's throughput T(k) by the segment law is set side by side, and the segment that lost most
is named.

Bad input (exit 2, CompareError): fewer than two folders, a folder without experiment.json or runs,
a folder whose experiment did not complete (interrupted, failed, still running), folders of different
experiments (name or kind), no run in common.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

ALPHA = 0.05
THRESHOLD = 0.05          # throughput: a fall beyond 5 % ...
LATENCY_THRESHOLD = 0.10  # ... or a p99 rise beyond 10 %
REPEAT = re.compile(r"-r\d+$")


class CompareError(ValueError):
    """The folders cannot be compared; the text says why in one line."""


def _experiment(folder: Path) -> dict:
    path = Path(folder) / "experiment.json"
    if not Path(folder).is_dir():
        raise CompareError(f"{folder}: no such folder")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{folder}: not a result folder (no experiment.json)") from None
    except ValueError as e:
        raise CompareError(f"{folder}: experiment.json is not readable JSON ({e})") from None
    status = meta.get("status")
    if status != "complete":
        raise CompareError(f"{folder}: its experiment did not complete (status {status!r}): compare complete "
                           "folders, or run it again")
    return meta


def load(folders: list[str | Path]) -> list:
    """The analyses of the folders (analysis.summary.Analysis), checked to be comparable."""
    from analysis.load.folder import load as load_folder
    from analysis.summary import analyse
    if len(folders) < 2:
        raise CompareError("compare needs two result folders or more: A (the baseline) and B ...")
    metas = [_experiment(Path(f)) for f in folders]
    first = metas[0]
    for f, m in zip(folders[1:], metas[1:]):
        if (m.get("name"), m.get("kind")) != (first.get("name"), first.get("kind")):
            raise CompareError(f"{f}: a different experiment ({m.get('name')}, {m.get('kind')}) from "
                               f"{folders[0]} ({first.get('name')}, {first.get('kind')}): compare folders of one experiment")
    out = []
    for f in folders:
        try:
            result = load_folder(f)
        except (OSError, ValueError, KeyError) as e:
            raise CompareError(f"{f}: cannot be read ({type(e).__name__}: {e})") from None
        if not result.runs:
            raise CompareError(f"{f}: no run in it")
        out.append(analyse(result, simulate=False))
    return out


def _key(run_id: str) -> str:
    return REPEAT.sub("", run_id)


def _runs(an) -> dict[str, object]:
    """run key -> the run's first repeat (its Run), of one analysis."""
    out: dict[str, object] = {}
    for run in sorted(an.result.runs, key=lambda r: r.id):
        out.setdefault(_key(run.id), run)
    return out


def _config(run) -> dict:
    return {k: run.meta.get(k) for k in ("path", "backend", "op", "n", "tiers", "client_mode", "pool_size", "demands")}


def _ratio_interval(a, b) -> list[float] | None:
    ia, ib = a.interval, b.interval
    if not ia or not ib or ia[0] <= 0 or ia[1] <= 0:
        return None
    return [ib[0] / ia[1], ib[1] / ia[0]]


def _latency(s, key: str) -> tuple[float | None, list | None]:
    lat = s.latency or {}
    return lat.get(f"{key}_ms"), (lat.get("ci95") or {}).get(key)


def _cpu_per_request(s) -> dict[str, float]:
    from analysis.load import cpu as cpumod
    if not s.throughput:
        return {}
    return {t: v / 100.0 / s.throughput * 1000.0 for t, v in s.cpu.items() if t in cpumod.STACK_TIERS}


def step_change(a, b, threshold: float = THRESHOLD, latency_threshold: float = LATENCY_THRESHOLD,
                traced: tuple[dict | None, dict | None] = (None, None)) -> dict:
    """One matched step A → B (analysis.steps.StepSample each): the figures and the verdict;
    traced: the two steps' rows of summary.json "traces" (each tier's own time), when both were."""
    from scipy.stats import mannwhitneyu
    out: dict = {"users": a.users, "a": a.throughput, "b": b.throughput, "ratio": None, "interval": None,
                 "p": None, "latency": {}, "cpu_ms": {}, "verdict": "no significant change", "why": []}
    if a.throughput and b.throughput:
        out["ratio"] = b.throughput / a.throughput
        out["interval"] = _ratio_interval(a, b)
        if len(a.samples) >= 2 and len(b.samples) >= 2:
            out["p"] = float(mannwhitneyu(a.samples, b.samples, alternative="two-sided").pvalue)
    ca, cb = _cpu_per_request(a), _cpu_per_request(b)
    out["cpu_ms"] = {t: {"a": ca.get(t), "b": cb.get(t), "change": cb[t] - ca[t] if t in ca and t in cb else None}
                     for t in sorted(set(ca) | set(cb))}
    for key in ("p50", "p99"):
        va, ia = _latency(a, key)
        vb, ib = _latency(b, key)
        apart = bool(ia and ib) and (ib[0] > ia[1] or ib[1] < ia[0])
        out["latency"][key] = {"a": va, "b": vb, "ratio": vb / va if va and vb else None, "apart": apart}
    r, iv, p = out["ratio"], out["interval"], out["p"]
    significant = p is not None and p < ALPHA and iv is not None
    if significant and r < 1 - threshold and iv[1] < 1:
        out["verdict"] = "regression"
        out["why"].append(f"throughput {r - 1:+.1%} (95 % interval {iv[0] - 1:+.1%} … {iv[1] - 1:+.1%}, Mann–Whitney p {p:.2g})")
    elif significant and r > 1 + threshold and iv[0] > 1:
        out["verdict"] = "improvement"
        out["why"].append(f"throughput {r - 1:+.1%} (95 % interval {iv[0] - 1:+.1%} … {iv[1] - 1:+.1%}, Mann–Whitney p {p:.2g})")
    p99 = out["latency"]["p99"]
    if p99["ratio"] is not None and p99["apart"]:
        if p99["ratio"] > 1 + latency_threshold:
            out["verdict"] = "regression"
            out["why"].append(f"p99 {p99['a']:.2f} → {p99['b']:.2f} ms ({p99['ratio'] - 1:+.0%}, the 95 % intervals apart)")
        elif p99["ratio"] < 1 - latency_threshold and out["verdict"] != "regression":
            out["verdict"] = "improvement"
            out["why"].append(f"p99 {p99['a']:.2f} → {p99['b']:.2f} ms ({p99['ratio'] - 1:+.0%}, the 95 % intervals apart)")
    ta, tb = ((row or {}).get("tiers") or {} for row in traced)
    if ta and tb:
        out["traced_ms"] = {t: {"a": ta[t], "b": tb[t], "change": tb[t] - ta[t]} for t in sorted(set(ta) & set(tb))
                            if ta[t] is not None and tb[t] is not None}
    grew = {t: c["change"] for t, c in out["cpu_ms"].items() if c["change"] is not None}
    if out["verdict"] != "no significant change" and grew:
        t = max(grew, key=lambda k: abs(grew[k]))
        out["where"] = {"tier": t, "cpu_ms_change": grew[t]}
        own = {k: v["change"] for k, v in (out.get("traced_ms") or {}).items()}
        if own:
            k = max(own, key=lambda x: abs(own[x]))
            out["where"].update(traced_tier=k, traced_ms_change=own[k])
    return out


def _traced_rows(an) -> dict[tuple[str, int], dict]:
    """(run id, step index) -> its row of summary.json "traces", of the runs that were traced."""
    return {(r["run_id"], st.get("step")): st for r in (an.summary.get("traces") or {}).get("runs", [])
            for st in r.get("steps", []) if st.get("traces")}


def _threads(entry: dict) -> dict[str, dict]:
    """tier -> {"blocked": threads BLOCKED on a monitor (its replicas together), "monitor": the hottest}
    from a run's thread dumps at its plateau (summary.json's bottleneck)."""
    out: dict[str, dict] = {}
    for d in ((entry.get("bottleneck") or {}).get("threaddumps") or []):
        t = out.setdefault(d.get("tier"), {"blocked": 0, "monitor": None})
        t["blocked"] += int(d.get("blocked") or 0)
        t["monitor"] = t["monitor"] or d.get("hottest_monitor")
    return out


def _thread_change(ea: dict, eb: dict) -> dict | None:
    """The bottleneck's kind and each tier's BLOCKED threads, A → B, when both runs had thread dumps."""
    ta, tb = _threads(ea), _threads(eb)
    if not ta or not tb:
        return None
    return {"bottleneck": {"a": (ea.get("bottleneck") or {}).get("kind"), "b": (eb.get("bottleneck") or {}).get("kind")},
            "blocked": {t: {"a": ta[t]["blocked"], "b": tb[t]["blocked"], "monitor": tb[t]["monitor"] or ta[t]["monitor"]}
                        for t in sorted(set(ta) & set(tb))}}


def _by_users(steps) -> dict[tuple[int, int], object]:
    """(users, the how-manieth step at that many users) -> the step, of a run's valid steps: a run
    may hold one user count for several steps (a pause in the second)."""
    out, seen = {}, {}
    for s in sorted(steps, key=lambda s: s.index):
        if s.valid:
            n = seen[s.users] = seen.get(s.users, 0) + 1
            out[(s.users, n)] = s
    return out


def _segments(an) -> dict[str, float]:
    """segment k -> its throughput T(k) by the segment law, of an analysis with paths."""
    return {f"{g.get('series', '')}|{g['segment']}": g.get("throughput")
            for g in an.summary.get("segments") or [] if g.get("throughput")}


PLACED = ("tiers", "client_mode", "pool_size")       # what the model places; the rest it cannot
MODEL_AGREES = 0.10       # the predicted change agrees when within 10 points of the measured one


class _Model:
    """The model fitted to the baseline folder's baseline, asked about a run whose configuration
    differs in what the model places (replicas, lifecycle, pool size): at each matched step's users,
    the predicted B/A beside the measured one. Fitted once, when first asked."""

    def __init__(self, an):
        self.an, self._fit, self.why = an, None, None

    def _fitted(self):
        if self._fit is None and self.why is None:
            from analysis.predict import baseline_demands as dmod
            from analysis.predict.command import fitted_result, request_fit
            try:                  # the baseline folder's analysis, already made: its steps are the model's
                d, fitted = fitted_result(self.an.result, self.an.steps)
                self._fit = (fitted, request_fit(self.an.result, self.an.steps, d, fitted), d.think_time_s)
            except (dmod.NoBaseline, ValueError) as e:
                self.why = f"none fitted to the baseline folder ({e})"
        return self._fit

    def word(self, a, b, steps: list[dict]) -> dict | None:
        """None when the configurations are the same; else {"placed", "why" | "steps", "agrees", "text"}."""
        out = self._word(a, b, steps)
        if out is not None:
            out["text"] = model_text(out)
        return out

    def _word(self, a, b, steps: list[dict]) -> dict | None:
        from analysis.predict.fit import model
        from analysis.predict.forecast import config_of
        from analysis.predict.model import solve_model
        ca, cb = _config(a), _config(b)
        if ca == cb:
            return None
        unplaced = sorted(k for k in ca if k not in PLACED and ca[k] != cb[k])
        if unplaced:
            return {"placed": False, "why": f"it does not place a change of {', '.join(unplaced)}"}
        fit = self._fitted()
        if fit is None:
            return {"placed": False, "why": self.why}
        fitted, request, z = fit
        cfg_a, cfg_b = config_of(a.meta), config_of(b.meta)
        if request is None and "request" in (cfg_a.client_mode, cfg_b.client_mode):
            return {"placed": False, "why": "a client per request needs the baseline folder's client-build probe"}
        ma, mb = (model(fitted, c, think_time=z, request=request) for c in (cfg_a, cfg_b))
        rows = []
        for st in steps:
            if st["ratio"] is None:
                continue
            predicted = solve_model(mb, st["users"]).throughput / solve_model(ma, st["users"]).throughput
            rows.append({"users": st["users"], "predicted": predicted, "measured": st["ratio"],
                         "agrees": abs(predicted - st["ratio"]) <= MODEL_AGREES})
        return {"placed": True, "from": f"{cfg_a.text()} → {cfg_b.text()}", "steps": rows,
                "agrees": bool(rows) and all(r["agrees"] for r in rows)}


def compare(analyses: list, folders: list, threshold: float = THRESHOLD,
            latency_threshold: float = LATENCY_THRESHOLD) -> dict:
    """Every later folder against the first: {"baseline", "experiment", "comparisons": [...]}."""
    base = analyses[0]
    out = {"format": 1, "baseline": str(folders[0]), "experiment": base.result.experiment.get("name"),
           "threshold": threshold, "latency_threshold": latency_threshold, "alpha": ALPHA, "comparisons": []}
    ra = _runs(base)
    the_model = _Model(base)
    traced_a = _traced_rows(base)
    entries_a = {e["id"]: e for e in base.summary.get("runs", [])}
    for f, an in zip(folders[1:], analyses[1:]):
        rb = _runs(an)
        traced_b = _traced_rows(an)
        entries_b = {e["id"]: e for e in an.summary.get("runs", [])}
        common = [k for k in ra if k in rb]
        if not common:
            raise CompareError(f"{f}: no run in common with {folders[0]} (theirs: {', '.join(rb)}; the baseline's: "
                               f"{', '.join(ra)})")
        runs = []
        for k in common:
            a, b = ra[k], rb[k]
            sa, sb = _by_users(base.steps[a.id]), _by_users(an.steps[b.id])
            steps = [step_change(sa[u], sb[u], threshold, latency_threshold,
                                 (traced_a.get((a.id, sa[u].index)), traced_b.get((b.id, sb[u].index))))
                     for u in sorted(set(sa) & set(sb))]
            verdict = ("regression" if steps and all(s["verdict"] == "regression" for s in steps) else
                       "improvement" if steps and all(s["verdict"] == "improvement" for s in steps) else
                       "no significant change")
            worst = min((s for s in steps if s["verdict"] == verdict and verdict != "no significant change"),
                        key=lambda s: s["ratio"] or 1.0, default=None)
            threads = _thread_change(entries_a.get(a.id, {}), entries_b.get(b.id, {}))
            runs.append({"run": k, "a": a.id, "b": b.id, "config_differs": _config(a) != _config(b),
                         "model": the_model.word(a, b, steps), "steps": steps,
                         "threads": threads, "threads_text": threads_text(threads) if threads else None, "verdict": verdict, "where": (worst or {}).get("where"),
                         "only_in_a": [u for u, _ in sorted(set(sa) - set(sb))],
                         "only_in_b": [u for u, _ in sorted(set(sb) - set(sa))]})
        ta, tb = _segments(base), _segments(an)
        segs = [{"segment": k.split("|")[1], "series": k.split("|")[0], "a": ta[k], "b": tb[k], "ratio": tb[k] / ta[k]}
                for k in ta if k in tb]
        lost = min(segs, key=lambda g: g["ratio"], default=None)
        regressed = any(r["verdict"] == "regression" for r in runs)
        out["comparisons"].append({
            "folder": str(f), "runs": runs, "segments": segs,
            "segment": lost["segment"] if lost and regressed and lost["ratio"] < 1 - threshold else None,
            "only_in_a": sorted(set(ra) - set(rb)), "only_in_b": sorted(set(rb) - set(ra)),
            "verdict": "regression" if regressed else
                       "improvement" if any(r["verdict"] == "improvement" for r in runs) else "no significant change"})
    return out


def exit_status(result: dict) -> int:
    """0: no significant regression; 1: a regression beyond the thresholds."""
    return 1 if any(c["verdict"] == "regression" for c in result["comparisons"]) else 0


def text(result: dict) -> str:
    """The one-screen terminal table."""
    lines = [f"compare: {result['experiment']}, each folder against {result['baseline']} (regression: throughput "
             f"-{result['threshold']:.0%} or p99 +{result['latency_threshold']:.0%}, significant at {result['alpha']:g})"]
    for c in result["comparisons"]:
        lines.append(f"{c['folder']}: {c['verdict'].upper()}")
        for r in c["runs"]:
            where = ""
            if r["where"]:
                where = f"; where: {r['where']['tier']} CPU {r['where']['cpu_ms_change']:+.3f} ms a request"
                if r["where"].get("traced_tier"):
                    where += f", traced: {r['where']['traced_tier']} {r['where']['traced_ms_change']:+.2f} ms own time"
            lines.append(f"  {r['run']:28s} {r['verdict']}{' (configuration differs)' if r['config_differs'] else ''}{where}")
            if r.get("model"):
                lines.append(f"    {r['model']['text']}")
            if r.get("threads_text"):
                lines.append(f"    {r['threads_text']}")
            for s in r["steps"]:
                ratio = "—" if s["ratio"] is None else f"{s['ratio'] - 1:+.1%}"
                p = "" if s["p"] is None else f" p {s['p']:.2g}"
                p99 = s["latency"]["p99"]
                lat = "" if p99["ratio"] is None else f", p99 {p99['a']:.1f} → {p99['b']:.1f} ms"
                lines.append(f"    {s['users']:>4} users: {s['a'] or 0:,.1f} → {s['b'] or 0:,.1f}/s ({ratio}{p}){lat}"
                             + (f"  {s['verdict']}" if s["verdict"] != "no significant change" else ""))
        if c.get("segment"):
            lines.append(f"  the segment law: segment {c['segment']} lost most")
        for side, ids in (("only in the baseline", c["only_in_a"]), ("only in this folder", c["only_in_b"])):
            if ids:
                lines.append(f"  {side}: {', '.join(ids)}")
    return "\n".join(lines)


def model_text(m: dict) -> str:
    """The model's word on a run whose configuration differs, in one line."""
    if not m["placed"]:
        return f"the model: {m['why']}"
    shown = ", ".join(f"{r['users']} users {r['predicted'] - 1:+.0%} (measured {r['measured'] - 1:+.0%})"
                      for r in m["steps"])
    return (f"the model fitted to the baseline predicted {m['from']}: {shown}: "
            + ("it predicted the change" if m["agrees"] else f"off by more than {MODEL_AGREES:.0%} at a step"))


def threads_text(t: dict) -> str:
    """Thread dumps at the plateau, A → B, in one line: the tiers with threads BLOCKED on either side."""
    k = t["bottleneck"]

    def monitor(m) -> str:
        return f" on {m.get('class', '?') if isinstance(m, dict) else m}" if m else ""
    parts = [f"{tier} {v['a']} → {v['b']} BLOCKED{monitor(v['monitor'])}" for tier, v in t["blocked"].items()
             if v["a"] or v["b"]]
    return f"thread dumps at the plateau: bottleneck {k['a']} → {k['b']}; " + (", ".join(parts) or "no thread BLOCKED")
