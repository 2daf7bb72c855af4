"""An experiment fitted to this host before its runs, by the runner: the service wait of the
scaled runs (fit/scaling.py, from the costs of fit/costs.py) and the classic-system profile
(fit/profile.py, from its cost probes: fit/probes.py), and the profile's settings retuned during
the run — chosen again (profile.next_*) from what its quotas gave: path ①'s front CPU and T(①),
and profile probes of the configurations (retune_before and the retune_* steps it calls). Each
step rewrites the experiment's runs in place (fit/rewrite.py) and returns what experiment.json
records about it ("scaling", "profile") and the lines to print.

run_one(spec, root) is the runner's way to run one Locust run into root/<spec.id>/ (the cost and
profile probes); failed is the runner's list of failed runs, from which the probes' own failures
are taken back (they cost the experiment its scaling, not its status)."""
from __future__ import annotations

from pathlib import Path

from testbed.fit import costs
from testbed.fit import probes
from testbed.fit import profile
from testbed.fit import rewrite
from testbed.fit import scaling
from testbed.fit.costs import measure as measure_costs
from testbed.experiment.scale import SCALED_POINT

SEGMENT_PLATEAU = 0.9          # a path's steps at this share of its best or above: its plateau, the front at its quota
# a first pass that moves its segment's demand by more than this is run again with the new demand
# and the demand chosen once more from it: a µs of spin taken out of path ③ lowered its front CPU
# a request by 1.06-1.55 µs in five runs (the rule assumes 1; T(③) read 2.30 and 2.34 against
# 1.85 where it was largest), so each pass leaves (1 − slope) of the error; one pass's noise is
# about ±30 µs (path ④'s first passes against their paths), below which a second pass would
# only add its own
SECOND_PASS_US = 30


class FitError(RuntimeError):
    """The experiment cannot be fitted (the profile's cost probes failed); the text says why."""


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
    exp.runs[i:] = rewrite.with_wait(exp.runs[i:], choice.wait_us)
    lines.append(choice.sentence())
    return {**choice.to_json(), "sentence": choice.sentence(),
            "runs": [r.id for r in exp.runs[i:] if r.auto_wait]}, lines


def fit_profile(exp, folder: Path, failed: list[str], run_one, host_cores: float) -> tuple[dict, dict, list[str]]:
    """classic-system: measure this stack's own costs, design the emulated demands, quotas, wait
    and pool for this host and put them into every run; ("profile", "scaling", lines)."""
    before = len(failed)
    m, why = probes.measure_own_costs(exp, exp.runs[0], folder, run_one, host_cores)
    errors = failed[before:]
    del failed[before:]
    if m is None:
        raise FitError(f"profile {exp.profile}: {'; '.join(errors) or why}")
    p = profile.design(m, exp.scale.share)
    exp.runs[:] = rewrite.apply(exp.runs, p, exp.quick)
    sentence = (f"scaled to this host: service wait {p.wait_us / 1000:g} ms because the {exp.profile} profile "
                f"puts the singleton at {p.singleton:.1f}/s, 7.4/812 of T(①) {p.t1:,.0f}/s, which {p.binding} "
                f"allows at {p.share:.0%} of the host")
    chosen = {"wait_us": p.wait_us, "scaled": True, "share": p.share, "profile": exp.profile,
              "runs": [r.id for r in exp.runs if r.path == 5], "sentence": sentence,
              "rule": "fit/profile.py: T(①) from the share of the host the heaviest configuration may need; "
                      "the singleton 7.4/812 of it; wait = 1/singleton − the singleton's own round trip"}
    return p.to_json(), chosen, [p.sentence(), sentence] + [f"  profile: {n}" for n in p.notes]


def retune_before(exp, i: int, folder: Path, failed: list[str], run_one, prof: dict, chosen: dict, say
                  ) -> tuple[dict, dict, list[str]] | None:
    """classic-system, before exp.runs[i]: the setting the profile retunes there, each once
    whatever it found — before path ② the segments (from path ①'s front CPU), before paths ③
    and ④ (not with --quick) that segment's (from a first pass of its path), before the first
    /seg/5 run the service wait (from T(①) and a singleton probe), before the first client-per-
    request run its build, before the first pool run the Invoker's CPU (each from probes of
    that run). ("profile", "scaling", lines), or None where nothing is chosen before this run."""
    run = exp.runs[i]
    if run.kind == "segments" and run.path == 2 and "paths_retuned" not in prof:
        prof, lines = retune_paths(exp, i, folder, prof)
        prof.setdefault("paths_retuned", None)
    elif (run.kind == "segments" and run.path in probes.SEGMENT_PROBED and not exp.quick
          and str(run.path) not in (prof.get("segments_retuned") or {})):
        say(f"profile: segment {run.path}'s emulated CPU again, from a first pass of path {run.path} under the front's quota ...")
        prof, lines = retune_segment(exp, i, folder, failed, run_one, prof, say)
        prof = {**prof, "segments_retuned": {str(run.path): None, **(prof.get("segments_retuned") or {})}}
    elif run.path == 5 and "retuned" not in prof:
        say("profile: the service wait again, from T(①) and a singleton probe under the quotas ...")
        prof, chosen, lines = retune_wait(exp, i, folder, failed, run_one, prof, chosen)
        prof.setdefault("retuned", None)
    elif run.client_mode == "request" and "request_retuned" not in prof:
        say("profile: a client per request's build again, from probes under the clone's quota ...")
        prof, lines = retune_build(exp, i, folder, failed, run_one, prof)
        prof.setdefault("request_retuned", None)
    elif run.client_mode == "pool" and "pool_retuned" not in prof:
        say("profile: the pool run's Invoker CPU again, from a probe under the front's quota ...")
        prof, lines = retune_invoker(exp, i, folder, failed, run_one, prof)
        prof.setdefault("pool_retuned", None)
    else:
        return None
    return prof, chosen, lines


def retune_wait(exp, i: int, folder: Path, failed: list[str], run_one, prof: dict, chosen: dict
                ) -> tuple[dict, dict, list[str]]:
    """classic-system, before the first /seg/5 run (exp.runs[i]): the wait chosen again from the
    T(①) path ① measured under the profile and a singleton probe with the planned wait
    (profile.next_wait); the runs from i on that have a service wait get it. Returns ("profile", "scaling", lines); where
    either measurement is missing, the planned wait stays and the lines say why."""
    path1, steps = _path(exp, i, folder, 1)
    if path1 is None:
        return prof, chosen, ["profile: no path ① run before /seg/5: the planned service wait stays"]
    t1 = max((s.throughput for s in steps if s.valid and s.throughput), default=None)
    if not t1:
        return prof, chosen, [f"profile: run {path1.id} measured no valid step: the planned service wait stays"]
    probe = _probe(exp, i, folder, failed, run_one)
    if probe is None or not probe.throughput:
        return prof, chosen, ["profile: the singleton probe measured no valid step: the planned service wait stays"]
    new = profile.next_wait(prof, t1, probe.throughput)
    exp.runs[i:] = rewrite.with_wait(exp.runs[i:], new["wait_us"], lambda s: SCALED_POINT in s.demands)
    r = new["retuned"]
    sentence = (f"scaled to this host: service wait {new['wait_us'] / 1000:g} ms because the {exp.profile} profile "
                f"puts the singleton at {new['singleton']:.1f}/s, 7.4/812 of T(①) {t1:,.0f}/s as path ① measured it "
                f"under the front's quota (planned {r['t1_planned']:,.0f}/s), and the singleton's own round trip "
                f"under the quotas is {r['round_trip_s'] * 1e3:.1f} ms (a probe at {r['probe_rate']:.1f}/s with "
                f"{r['probe_wait_us'] / 1000:g} ms)")
    return new, {**chosen, "wait_us": new["wait_us"], "sentence": sentence,
                 "rule": chosen.get("rule", "") + "; retuned before /seg/5 from the measured T(①) and a singleton "
                                                   "probe under the quotas"}, [sentence]


def retune_paths(exp, i: int, folder: Path, prof: dict) -> tuple[dict, list[str]]:
    """classic-system, before path ② (exp.runs[i]): the front's CPU per request on path ① as it
    ran under the front's quota, and the segments' emulated CPU again from it
    (profile.next_paths); the runs from i on get it. ("profile", lines)."""
    path1, steps = _path(exp, i, folder, 1)
    c = None if path1 is None else scaling.costs_from_steps(steps, f"run {path1.id}")
    front = _front(c)
    if not front:
        return prof, ["profile: path ① measured no front CPU: the planned segment demands stay"]
    new = profile.next_paths(prof, front)
    exp.runs[i:] = rewrite.with_demands(exp.runs[i:], new["demands_cpu_us"])
    d, r = new["demands_cpu_us"], new["paths_retuned"]
    return new, [f"profile: segment ① cost the front {front * 1e6:.0f} µs a request under its quota (planned "
                 f"{r['f1_planned_s'] * 1e6:.0f}), so paths ②-⑤ are set from it: JSP {d['SEG2']} µs, access bean "
                 f"{d['SEG3']} µs, session bean {d['SEG4']} µs, Invoker {d['INVOKER']} µs"]


def retune_segment(exp, i: int, folder: Path, failed: list[str], run_one, prof: dict, say=lambda text: None
                   ) -> tuple[dict, list[str]]:
    """classic-system, before path ③ or ④ (exp.runs[i], path k): a first pass of it (its steps,
    read at its plateau like the paths) measures the front's CPU per request under its quota with
    the segment's planned demand, and the demand is
    chosen again so that path k costs path k-1 as it ran plus the segment's share of the shape
    (profile.next_segment; paths ① and k-1 read at their plateau). Where that moved the demand
    by more than SECOND_PASS_US, a second pass with the new demand (on a front restarted
    for it) and the demand chosen once more from it, the first pass's figures kept under "first".
    The runs from i on get it; path k, on a front restarted for it, primed as long as a probe.
    ("profile", lines)."""
    k = exp.runs[i].path
    f1, previous = (_front(_plateau(*_path(exp, i, folder, n))) for n in (1, k - 1))
    if not f1 or not previous:
        return prof, [f"profile: path ① or path {k - 1} measured no front CPU: segment {k}'s demand stays"]
    lines, first = [], None
    for n, which in ((1, "first"), (2, "second")):
        spec = _run_probe(exp, i, folder, failed, run_one, f"-{n}" if n > 1 else "")
        probe = _plateau(spec, costs.readable_steps(folder / costs.PROBES_DIR / spec.id, exp.settings))
        front = _front(probe)
        if not front:
            lines.append(f"profile: the {which} pass of path {k} measured no front CPU: "
                         f"segment {k}'s demand stays {prof['demands_cpu_us'].get(f'SEG{k}', 0)} µs")
            break
        new = profile.next_segment(prof, k, f1, previous, front)
        r = new["segments_retuned"][str(k)]
        if first is not None:
            new["segments_retuned"][str(k)] = {**r, "first": first}
        exp.runs[i:] = rewrite.with_demands(exp.runs[i:], new["demands_cpu_us"])
        lines.append(f"profile: segment {k} {r['cpu_us']} µs of emulated CPU (was {r['probe_cpu_us']}), because a "
                     f"{which} pass of path {k} under the front's quota cost it {front * 1e6:.0f} µs "
                     f"a request at its plateau ({probe.throughput:.0f}/s), and the shape asks {r['target_s'] * 1e6:.0f}: "
                     f"path {k - 1} as it ran ({previous * 1e6:.0f} µs) and the segment's share of path ①'s {f1 * 1e6:.0f} µs")
        prof, first = new, r
        if abs(r["cpu_us"] - r["probe_cpu_us"]) <= SECOND_PASS_US:
            break
        if n == 1:
            say(f"profile: segment {k} moved by more than {SECOND_PASS_US} µs: a second pass of path {k} "
                f"with {r['cpu_us']} µs ...")
    exp.runs[i] = rewrite.with_prime(exp.runs[i])        # the front restarts for it, its compiler under the quota
    return prof, lines


def _plateau(run, steps):
    """A path run's costs over its plateau (steps near its best), or None."""
    return None if run is None else scaling.costs_from_steps(steps, f"run {run.id}", SEGMENT_PLATEAU)


def _front(c) -> float | None:
    """The front's CPU per request in costs c, or None."""
    return None if c is None else c.per_request_s.get("front")


def retune_build(exp, i: int, folder: Path, failed: list[str], run_one, prof: dict) -> tuple[dict, list[str]]:
    """classic-system, before the client-per-request run exp.runs[i]: a probe of it measures the
    clone's CPU per call under its quota, and the emulated build is chosen again from it
    (profile.next_build, a line through the cost probe's point and the probe's); then, but
    not with --quick, a second probe with that build, and the build chosen once more from the
    line through the two probes' points (both under the quota; the second near the run's own
    rate). The request runs from i on get it. ("profile", lines)."""
    lines, first = [], None
    for n in (1,) if exp.quick else (1, 2):
        probe = _probe(exp, i, folder, failed, run_one, f"-{n}" if n > 1 else "")
        clone = None if probe is None else probe.per_request_s.get("clone")
        if not clone:
            lines.append(f"profile: the client-per-request probe {n} measured no clone CPU: the build "
                         f"{prof['request_cpu_us']} µs stays")
            break
        other = None if first is None else (first["probe_rate"], first["own_s"])
        new = profile.next_build(prof, clone, probe.throughput, other)
        r = new["request_retuned"]
        if first is not None:
            new["request_retuned"] = {**r, "first": first}
        lines.append(f"profile: a client per request's build {new['request_cpu_us']} µs of clone CPU (probe {n} with "
                     f"{r['probe_build_us']}), because under the clone's quota of {prof['quotas']['clone']:g} core a call "
                     f"costs {r['per_call_at_target_s'] * 1e3:.2f} ms of it besides at {r['target']:.1f}/s (probe {n}: "
                     f"{r['own_s'] * 1e3:.2f} ms at {r['probe_rate']:.1f}/s), the rate the shape asks, 22/7.4 of the "
                     f"singleton")
        prof, first = new, r
        exp.runs[i:] = rewrite.with_build(exp.runs[i:], prof["request_cpu_us"], exp.quick)
    return prof, lines


def retune_invoker(exp, i: int, folder: Path, failed: list[str], run_one, prof: dict) -> tuple[dict, list[str]]:
    """classic-system, before the pool run exp.runs[i]: a probe of it measures the front's CPU
    per request under its quota, and the Invoker's emulated CPU is chosen again from it
    (profile.next_invoker); the pool runs from i on get it. ("profile", lines)."""
    invoker = (exp.runs[i].demands.get("INVOKER") or {}).get("cpu_us", 0)
    probe = _probe(exp, i, folder, failed, run_one)
    front = _front(probe)
    if not front:
        return prof, ["profile: the pool probe measured no front CPU: the planned Invoker CPU stays"]
    new, cpu = profile.next_invoker(prof, front, invoker)
    exp.runs[i:] = rewrite.with_invoker(exp.runs[i:], cpu, exp.quick)
    r = new["pool_retuned"]
    return new, [f"profile: the pool run's Invoker CPU {cpu} µs (was {invoker}), because under the front's quota of "
                 f"{prof['quotas']['front']:g} core a pooled /seg/5 costs it {r['own_s'] * 1e6:.0f} µs besides (a probe "
                 f"at {probe.throughput:.0f}/s), and the fix the shape asks is {r['target']:.0f}/s, 100/7.4 of the singleton"]


def _path(exp, i: int, folder: Path, k: int) -> tuple:
    """The segment run of path k before exp.runs[i] (its last) and its steps as the analysis
    reads them (none if it left nothing readable); (None, []) if there is no such run."""
    run = next((r for r in reversed(exp.runs[:i]) if r.kind == "segments" and r.path == k), None)
    return (None, []) if run is None else (run, costs.readable_steps(folder / "runs" / run.id, exp.settings))


def _probe(exp, i: int, folder: Path, failed: list[str], run_one, suffix: str = ""):
    """A profile probe of exp.runs[i] into the result folder's probes/; its costs, or None."""
    spec = _run_probe(exp, i, folder, failed, run_one, suffix)
    return costs.of_run(folder / costs.PROBES_DIR / spec.id, exp.settings, f"profile probe {spec.id}")


def _run_probe(exp, i: int, folder: Path, failed: list[str], run_one, suffix: str = ""):
    """Runs exp.runs[i]'s profile probe (probes.profile_probe_spec) into the result folder's
    probes/; its spec."""
    spec = probes.profile_probe_spec(exp.runs[i], exp.quick, suffix)
    before = len(failed)
    run_one(spec, folder / costs.PROBES_DIR)
    del failed[before:]
    return spec
