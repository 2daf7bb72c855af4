"""Make the running stack match a run: its replica counts and its knobs (client mode, pool size,
demand knobs), with the Stack's own verbs — scale (new replicas join HAProxy once healthy,
removed ones are drained first), switch (a new client lifecycle in the running clones) and restart
(rolling, one replica at a time, new knobs).

Order, cheapest first and never a caller before its callee: scale down what shrinks (frees
CPU), switch the client tier's lifecycle where that is all that changes for it and the stack can
(Stack.switch_lifecycle: its JVMs keep what they compiled, where a restart would throw away minutes
of a per-request clone's compiling), restart the tiers whose environment changes (callees first:
axis, gsoap, clone, front), then scale up what grows (new replicas start with the new knobs)."""
from __future__ import annotations

import time

from testbed import tiers as tiermod
from testbed.experiment.definition import KNOB_DEFAULTS
from testbed.stack import LIFECYCLE_KNOBS, Stack


def knob(knobs: dict[str, str], key: str) -> str | None:
    return knobs.get(key, KNOB_DEFAULTS.get(key))


def _process_env(tier: str, knobs: dict[str, str]) -> dict[str, str]:
    return tiermod.process_env(tiermod.TIERS[tier], 0, knobs)


def plan(counts_now: dict[str, int], knobs_now: dict[str, str], counts: dict[str, int],
         knobs: dict[str, str], tier_config=_process_env, switches: bool = False) -> dict:
    """What apply() would do: {"down": {tier: n}, "switch": [tier], "restart": [tier], "up": {tier: n},
    "knobs": {k: v}}. tier_config(tier, knobs): what a tier is started with (Stack.tier_config); a
    tier whose configuration changes is restarted — or, where the stack switches lifecycles live
    (`switches`), the client tier switched when only its lifecycle knobs change and replicas of it
    run before and after."""
    changed = {k: v for k, v in knobs.items() if knob(knobs_now, k) != v}
    after = {**knobs_now, **changed}
    restart = [t for t in tiermod.START_ORDER if tier_config(t, knobs_now) != tier_config(t, after)]
    lifecycle_now = {k: v for k in LIFECYCLE_KNOBS if (v := knob(knobs_now, k)) is not None}
    switch = [t for t in restart if switches and t == "clone" and counts_now.get(t, 0) > 0 and counts.get(t, 0) > 0
              and tier_config(t, {**after, **lifecycle_now}) == tier_config(t, {**knobs_now, **lifecycle_now})]
    down = {t: n for t, n in counts.items() if n < counts_now.get(t, 0)}
    up = {t: counts[t] for t in tiermod.START_ORDER if counts.get(t, 0) > counts_now.get(t, 0)}
    return {"down": down, "switch": switch, "restart": [t for t in restart if t not in switch], "up": up,
            "knobs": changed}


def apply(stack: Stack, counts: dict[str, int], knobs: dict[str, str], log=print) -> list[str]:
    """Reconfigure; returns what was done, one line each (empty: the stack already matched)."""
    counts_now, knobs_now = stack.current()
    p = plan(counts_now, knobs_now, counts, knobs, stack.tier_config, stack.switches_lifecycle)
    done: list[str] = []

    def step(what: str, fn) -> None:
        t0 = time.monotonic()
        log(f"  stack: {what} ...")
        fn()
        done.append(f"{what} ({time.monotonic() - t0:.1f} s)")

    for t, n in p["down"].items():
        step(f"scale {t} {counts_now[t]} -> {n}", lambda t=t, n=n: stack.scale(t, n))
    for t in p["switch"]:
        lifecycle = {k: v for k, v in p["knobs"].items() if k in LIFECYCLE_KNOBS}
        step(f"switch {t} to " + ", ".join(f"{k}={v}" for k, v in sorted(lifecycle.items())) + " (no restart)",
             lambda t=t: stack.switch_lifecycle(t, lifecycle))
    for t in p["restart"]:
        relevant = {k: v for k, v in p["knobs"].items()
                    if stack.tier_config(t, {**knobs_now, k: v}) != stack.tier_config(t, knobs_now)}
        what = f"restart {t} with " + ", ".join(f"{k}={v}" for k, v in sorted(relevant.items()))
        if counts_now.get(t, 0) == 0 or counts.get(t, 0) == 0 and t in p["down"]:
            what = f"set for {t}: " + ", ".join(f"{k}={v}" for k, v in sorted(relevant.items()))
        step(what, lambda t=t: stack.restart(t, p["knobs"]))
    for t, n in p["up"].items():
        now = stack.current()[0].get(t, 0)
        step(f"scale {t} {now} -> {n}", lambda t=t, n=n: stack.scale(t, n))
    return done

