"""Make the running stack match a run: its replica counts and its knobs (client mode, pool size,
demand knobs), with the Stack's own verbs — scale (new replicas join HAProxy once healthy,
removed ones are drained first) and restart (rolling, one replica at a time, new knobs).

Order, cheapest first and never a caller before its callee: scale down what shrinks (frees
CPU), restart the tiers whose environment changes (callees first: axis, gsoap, clone, front),
then scale up what grows (new replicas start with the new knobs)."""
from __future__ import annotations

import time

from testbed import tiers as tiermod
from testbed.local import Stack
from testbed.run.definition import KNOB_DEFAULTS


def current(stack: Stack) -> tuple[dict[str, int], dict[str, str]]:
    """(replica counts, knobs in effect) of the running stack."""
    state = stack.load()              # also applies the stack's saved overrides to cfg.knobs
    counts = {t: len(state["replicas"].get(t, [])) for t in tiermod.TIERS}
    return counts, dict(stack.cfg.knobs)


def knob(knobs: dict[str, str], key: str) -> str | None:
    return knobs.get(key, KNOB_DEFAULTS.get(key))


def plan(counts_now: dict[str, int], knobs_now: dict[str, str], counts: dict[str, int],
         knobs: dict[str, str]) -> dict:
    """What apply() would do: {"down": {tier: n}, "restart": [tier], "up": {tier: n}, "knobs": {k: v}}."""
    changed = {k: v for k, v in knobs.items() if knob(knobs_now, k) != v}
    after = {**knobs_now, **changed}
    restart = [t for t in tiermod.START_ORDER
               if tiermod.process_env(tiermod.TIERS[t], 0, knobs_now) != tiermod.process_env(tiermod.TIERS[t], 0, after)]
    down = {t: n for t, n in counts.items() if n < counts_now.get(t, 0)}
    up = {t: counts[t] for t in tiermod.START_ORDER if counts.get(t, 0) > counts_now.get(t, 0)}
    return {"down": down, "restart": restart, "up": up, "knobs": changed}


def apply(stack: Stack, counts: dict[str, int], knobs: dict[str, str], log=print) -> list[str]:
    """Reconfigure; returns what was done, one line each (empty: the stack already matched)."""
    counts_now, knobs_now = current(stack)
    p = plan(counts_now, knobs_now, counts, knobs)
    done: list[str] = []

    def step(what: str, fn) -> None:
        t0 = time.monotonic()
        log(f"  stack: {what} ...")
        fn()
        done.append(f"{what} ({time.monotonic() - t0:.1f} s)")

    for t, n in p["down"].items():
        step(f"scale {t} {counts_now[t]} -> {n}", lambda t=t, n=n: stack.scale(t, n))
    for t in p["restart"]:
        relevant = {k: v for k, v in p["knobs"].items()
                    if k in tiermod.process_env(tiermod.TIERS[t], 0, {k: v}) or _renamed(t, k)}
        what = f"restart {t} with " + ", ".join(f"{k}={v}" for k, v in sorted(relevant.items()))
        if counts_now.get(t, 0) == 0 or counts.get(t, 0) == 0 and t in p["down"]:
            what = f"set for {t}: " + ", ".join(f"{k}={v}" for k, v in sorted(relevant.items()))
        step(what, lambda t=t: stack.restart(t, p["knobs"]))
    for t, n in p["up"].items():
        now = current(stack)[0].get(t, 0)
        step(f"scale {t} {now} -> {n}", lambda t=t, n=n: stack.scale(t, n))
    return done


def _renamed(tier: str, key: str) -> bool:
    t = tiermod.TIERS[tier]
    return key.startswith(t.prefix) and key[len(t.prefix):].startswith(t.renamed)
