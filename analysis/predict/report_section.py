"""The report's "Predicted before measured" section: the demands the model was calibrated on
(with their intervals), the error table (model vs measured, beside the two naive
predictions), and predicted over measured curves. HTML in the report's current style
(analysis/html.py)."""
from __future__ import annotations

from analysis import html as h


def _ms(e: dict | None) -> str:
    if not e:
        return "—"
    iv = f" [{e['low'] * 1e3:.3f}, {e['high'] * 1e3:.3f}]" if e.get("low") is not None else ""
    return f"{e['mean'] * 1e3:.3f}{iv}"


def demand_table(p: dict) -> str:
    d, cal = p["demands"], p["calibration"]
    rows = [[h.esc(f"CPU: {t}"), "#" + h.esc(_ms(e)), "per request, D = U / X"] for t, e in sorted(d["cpu_s"].items())]
    rows += [["lock held (clone timer)", "#" + h.esc(_ms(d["lock_hold_s"])), "per call: the singleton's monitor"],
             ["clone CPU while holding it", "#" + h.esc(_ms(d["lock_cpu_s"])), "its thread's CPU time"],
             ["lock wait", "#" + h.esc(_ms(d["lock_wait_s"])), "per call"],
             ["service wait", "#" + h.num(d["service_wait_s"] * 1e3), "configured (demands.SERVICE.wait_us)"],
             ["residual latency inside the lock", "#" + h.num(cal["residual_latency_s"] * 1e3),
              "fitted: the model's holding time = the measured one (below 0: that much CPU of HAProxy and the "
              "service counted outside the lock instead)"],
             ["residual latency outside the lock", "#" + h.num(cal.get("residual_outside_s", 0.0) * 1e3),
              "fitted: cycle time N/X − lock wait − holding time − CPU outside"],
             ["think time (s)", "#" + h.num(d["think_time_s"]), "experiment settings"],
             ["CPU", h.esc(", ".join(f"{k} {v:g} cores" for k, v in d["pools"].items())), h.esc(d["mode"])],
             ["front threads", "#" + h.num(cal["threads_front"]), "requests admitted at once per front"]]
    return h.table("prediction-demands", ["demand", "ms (mean [95 % interval over the steps])", "source"], rows)


def error_table(p: dict) -> str:
    rows = []
    for c in p["configurations"]:
        agree = c.get("agreement_max_deviation")
        rows.append([h.esc(", ".join(c["runs"])), h.esc(c["text"]) + (" (baseline)" if c["baseline"] else ""),
                     h.esc("the baseline" if c["calibrated_on"] == "baseline" else c["calibrated_on"]),
                     "#" + h.num(c["predicted_max_throughput"]),
                     "#" + h.num(c["measured_max_throughput"]), h.pct(c["error"]), h.pct(c["sweep_mae"]),
                     h.esc(f"{c['knee_predicted']} / {'—' if c['knee_measured'] is None else c['knee_measured']}"),
                     "#" + h.num(c["linear_max_throughput"]), h.pct(c["linear_error"]),
                     "#" + h.num(c["usl_max_throughput"]), h.pct(c["usl_error"]),
                     {True: "yes", False: '<span class="flag">no</span>', None: "—"}[c["beats_naive"]],
                     "—" if agree is None else (h.pct(agree) if c["agree"] else f'<span class="flag">{h.pct(agree)}</span>'),
                     "—" if not c["measured_runs"] or c["baseline"] else ("yes" if c["written_before_runs"] else "no"),
                     h.esc(", ".join(dict.fromkeys(c["bottleneck"])))])
    return h.table("prediction", [
        "runs", "configuration", "calibrated on", "predicted max (/s)", "measured max (/s)", "error",
        "mean |error| over the users", "knee users (predicted / measured)", "linear (/s)", "error",
        "USL (/s)", "error", "model beats both", "model vs simulation (largest deviation)",
        "predicted before it ran", "predicted bottleneck"], rows, "no configuration to predict")


def html(p: dict, png: bytes | None) -> list[str]:
    out = ["<h2>Predicted before measured</h2>"]
    if "error" in p:
        return out + [f"<p>No prediction: {h.esc(p['error'])}</p>"]
    when = (f"written to {h.esc(p['file'])} at {h.when(p['written'])}, after the baseline and before "
            "the next run" if p.get("written") else "made from the baseline when this report was made "
            "(no prediction.json from the runner)")
    summary = ""
    if p.get("median_abs_error") is not None:
        summary = (f" Over the held-out configurations: median |error| of the saturation throughput "
                   f"{p['median_abs_error']:.1%}, largest {p['max_abs_error']:.1%}.")
    out.append(f"<p>The queueing model (docs/predict.md) calibrated on {h.esc(', '.join(p['calibrated_on']))} "
               f"alone, {when}.{summary} Linear: the baseline's curve times the scaled resource's multiple; "
               "USL: p copies of the Universal Scalability Law fitted to the baseline's user sweep. The simulation "
               "column is the model solved a second way (simpy); a point is to be trusted only where they agree "
               "within 2 %.</p>")
    out.append(error_table(p))
    for n in p.get("not_predicted", []):
        out.append(f"<p>Not predicted: {h.esc(n['text'])} ({h.esc(', '.join(n['runs']))}): {h.esc(n['why'])}.</p>")
    if png:
        out.append(h.image(png, "predicted vs measured throughput"))
    out += ["<h3>Demands the model was calibrated on</h3>", demand_table(p)]
    out += [f"<p>Note: {h.esc(n)}</p>" for n in p["calibration"].get("notes", [])]
    return out
