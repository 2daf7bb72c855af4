"""An experiment fitted to this host before its runs, by the runner: the service wait of the
scaled runs (run/scaling.py, from the costs of run/costs.py) and the classic-system profile
(run/profile.py). Each step rewrites the experiment's runs in place and returns what
experiment.json records about it ("scaling", "profile") and the lines to print.

run_one(spec, root) is the runner's way to run one Locust run into root/<spec.id>/ (the
calibration runs); failed is the runner's list of failed runs, from which the calibration's own
failures are taken back (they cost the experiment its scaling, not its status)."""
from __future__ import annotations

from pathlib import Path

from testbed.run import profile, scaling
from testbed.run.costs import measure as measure_costs


class FitError(RuntimeError):
    """The experiment cannot be fitted (a profile's calibration failed); the text says why."""


def scale(exp, i: int, folder: Path, failed: list[str], run_one, host_cores: float,
          stack_cpus=None, loadgen_cpus=None, scale_from: Path | None = None) -> tuple[dict, list[str]]:
    """Choose the wait of the "auto" runs from exp.runs[i] on and put it into them."""
    lines = []
    if not exp.scaling:
        choice = scaling.unscaled(exp.scale, "--no-scale: the file's scale.unscaled_wait_us")
    else:
        costs, why = measure_costs(exp, i, folder, failed, run_one, scale_from)
        if costs is None:
            choice = scaling.unscaled(exp.scale, f"no cost measured ({why}): scale.unscaled_wait_us")
        else:
            cap = scaling.Capacity(host_cores, float(len(stack_cpus)) if stack_cpus else None,
                                   float(len(loadgen_cpus)) if loadgen_cpus else None)
            choice = scaling.choose_wait(costs, cap, scaling.locked_runs(exp.runs[i:]), exp.scale)
    exp.runs[i:] = scaling.with_wait(exp.runs[i:], choice.wait_us)
    lines.append(choice.sentence())
    return {**choice.to_json(), "sentence": choice.sentence(),
            "runs": [r.id for r in exp.runs[i:] if r.auto_wait]}, lines


def fit_profile(exp, folder: Path, failed: list[str], run_one, host_cores: float) -> tuple[dict, dict, list[str]]:
    """classic-system: measure this stack's own costs, design the emulated demands, quotas, wait
    and pool for this host and put them into every run; ("profile", "scaling", lines)."""
    before = len(failed)
    m, why = profile.measure(exp, exp.runs[0], folder, run_one, host_cores)
    errors = failed[before:]
    del failed[before:]
    if m is None:
        raise FitError(f"profile {exp.profile}: {'; '.join(errors) or why}")
    p = profile.design(m, exp.scale.share)
    exp.runs[:] = profile.apply(exp.runs, p, exp.quick)
    sentence = (f"scaled to this host: service wait {p.wait_us / 1000:g} ms because the {exp.profile} profile "
                f"puts the singleton at {p.singleton:.1f}/s, 7.4/812 of T(①) {p.t1:,.0f}/s, which {p.binding} "
                f"allows at {p.share:.0%} of the host")
    chosen = {"wait_us": p.wait_us, "scaled": True, "share": p.share, "profile": exp.profile,
              "runs": [r.id for r in exp.runs if r.path == 5], "sentence": sentence,
              "rule": "run/profile.py: T(①) from the share of the host the heaviest configuration may need; "
                      "the singleton 7.4/812 of it; wait = 1/singleton − the singleton's own round trip"}
    return p.to_json(), chosen, [p.sentence(), sentence] + [f"  profile: {n}" for n in p.notes]
