"""The classic-system profile's measuring runs, planned from the experiment's own runs (kept in
the result folder's probes/, never analysed as runs of the experiment):
- its cost probes (cost_probe_specs): /seg/1 … /seg/5 with the singleton client, then /seg/5
  with a pool and with a client per request, without any demand, wait or quota — this stack's
  own costs, which design() starts from (measure_own_costs reads them into a profile.Measured);
- its profile probes (profile_probe_spec): short runs of a configuration under the profile's
  quotas, demands and wait, before the run they stand for, from which fit/tohost.py chooses a
  setting again (profile.next_*).
profile_probe_specs lists every profile probe an experiment may run, for the runner's estimate."""
from __future__ import annotations

from dataclasses import replace

from testbed.fit import costs
from testbed.fit.costs import COST_PROBE_LOAD_QUICK, COST_PROBE_STEP
from testbed.fit.profile import POOL_SIZE, Measured
from testbed.fit.rewrite import PROBE_PRIME_S, with_prime

SEGMENT_PROBED = (3, 4)        # the segments whose emulated CPU a pass of their path chooses again (next_segment)
REQUEST_PROBE_PRIME_S = 60.0   # a clone building a client per call under its quota kept speeding up for a
                               # minute: a probe 30 s after its restart read 94/s, the run with the same
                               # build and users 139/s at its last step, ~60 s after its own restart
# the probes' run ids begin so (they name the run folders in a result folder's probes/): the cost
# probes cost-probe-path1 ... cost-probe-request, the profile probes profile-probe-<path or lifecycle>
COST_PROBE_PREFIX, PROFILE_PROBE_PREFIX = "cost-probe", "profile-probe"


def profile_probe_spec(run, quick: bool = False, suffix: str = ""):
    """A profile probe before `run` (path ⑤'s singleton, the client per request, the pool): that
    run's configuration (quotas, demands, wait) and its largest user count (a tier's CPU per
    request under a quota moves with the requests in flight), a cost probe's short load after a
    longer prime (longer still for a client per request: see REQUEST_PROBE_PRIME_S). Before paths
    ③ and ④ it is a pass of the path itself: its user steps after a probe's prime, read at its
    plateau like the path it stands for (a one-step probe at the largest load read the front
    cold and at another point: 770/s against the path's 1,120/s in classic-20261204-100321)."""
    if run.kind == "segments" and run.path in SEGMENT_PROBED:        # a pass of a segment path (next_segment)
        name = f"{PROFILE_PROBE_PREFIX}-path{run.path}{suffix}"
        return replace(with_prime(run), id=name, entry=name,
                       label=f"profile probe: a {'second' if suffix == '-2' else 'first'} pass of /seg/{run.path} "
                             "under the profile's quotas and demands")
    what = {"request": "the client per request", "pool": "the pool"}.get(run.client_mode, "the singleton")
    name = f"{PROFILE_PROBE_PREFIX}-{run.client_mode}{suffix}"
    prime = REQUEST_PROBE_PRIME_S if run.client_mode == "request" else PROBE_PRIME_S   # its JVM as old as at the run's max
    return replace(run, id=name, entry=name,
                   label=f"profile probe: /seg/5, {what} under the profile's quotas, demands and wait",
                   load=replace(COST_PROBE_LOAD_QUICK if quick else replace(COST_PROBE_STEP, prime_seconds=prime),
                                users=(max(run.load.users),)))


def profile_probe_specs(runs, quick: bool = False) -> list:
    """The profile probes the retunes may run for these runs (tohost.retune_before): paths ③ and
    ④'s first and second passes (not with --quick), the singleton's before the first /seg/5 run,
    the client per request's two (one with --quick), the pool's."""
    first = lambda pick: next((r for r in runs if pick(r)), None)      # noqa: E731
    paths = [] if quick else [run for k in SEGMENT_PROBED
                              if (run := first(lambda r, k=k: r.kind == "segments" and r.path == k))]
    out = [profile_probe_spec(run) for run in paths] + [profile_probe_spec(run, suffix="-2") for run in paths]
    for run, n in ((first(lambda r: r.path == 5), 1), (first(lambda r: r.client_mode == "request"), 1 if quick else 2),
                   (first(lambda r: r.client_mode == "pool"), 1)):
        out += [profile_probe_spec(run, quick, f"-{k}" if k > 1 else "") for k in range(1, n + 1)] if run else []
    return out


def cost_probe_specs(first, quick: bool = False) -> list:
    """The profile's cost probes, which measure this stack's own costs: /seg/1 … /seg/5 with the
    singleton client, then /seg/5 with a pool and with a client per request; no demand, no wait,
    no quota."""
    load = COST_PROBE_LOAD_QUICK if quick else COST_PROBE_STEP
    knobs = {k: v for k, v in first.knobs.items() if not k.startswith("CPUS_")}
    base = replace(first, demands={}, knobs=knobs, auto_wait=False, load=load, client_mode="singleton",
                   pool_size=None, tiers={**first.tiers, "front": 1, "clone": 1, first.backend: 1})
    out = [replace(base, id=f"{COST_PROBE_PREFIX}-path{k}", entry=f"{COST_PROBE_PREFIX}-path{k}", path=k,
                   label=f"cost probe: /seg/{k}, the stack's own cost") for k in (1, 2, 3, 4, 5)]
    out.append(replace(base, id=f"{COST_PROBE_PREFIX}-pool", entry=f"{COST_PROBE_PREFIX}-pool", path=5, client_mode="pool",
                       pool_size=POOL_SIZE, label="cost probe: /seg/5, a pool of clients"))
    out.append(replace(base, id=f"{COST_PROBE_PREFIX}-request", entry=f"{COST_PROBE_PREFIX}-request", path=5,
                       client_mode="request", label="cost probe: /seg/5, a client per request"))
    return out


def measure_own_costs(exp, first, folder, run_one, host_cores: float) -> tuple[Measured | None, str]:
    """Run the profile's cost probes (run_one(spec, root) as in fit/costs.py) and read what they
    measured; (None, why) where one measured nothing."""
    root = folder / costs.PROBES_DIR
    got = {}
    for spec in cost_probe_specs(first, exp.quick):
        run_one(spec, root)
        c = costs.of_run(root / spec.id, exp.settings, f"cost probe {spec.id}")
        if c is None or "front" not in c.per_request_s:
            return None, f"cost probe {spec.id} measured no valid step with CPU samples"
        got[spec.id] = c
    paths = {k: got[f"{COST_PROBE_PREFIX}-path{k}"] for k in (1, 2, 3, 4, 5)}
    req, pool = got[f"{COST_PROBE_PREFIX}-request"], got[f"{COST_PROBE_PREFIX}-pool"]
    return Measured(front_s={k: c.per_request_s["front"] for k, c in paths.items()},
                    total_s={1: paths[1].total_s, 5: paths[5].total_s},
                    clone_request_s=req.per_request_s.get("clone", 0.0), total_request_s=req.total_s,
                    clone_pool_s=pool.per_request_s.get("clone", 0.0), total_pool_s=pool.total_s,
                    round_trip_s=1.0 / paths[5].throughput, host_cores=host_cores, request_rate=req.throughput,
                    background_cores=sum(c.background_cores for c in got.values()) / len(got)), ""
