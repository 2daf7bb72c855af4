"""The stack around one experiment: started for it or reused (refused when unhealthy, or when the
experiment needs a Swarm or tracing the running stack lacks), and afterwards stopped if this
experiment started it, else put back to its replica counts and the knobs the runs touched. Also
what a run asks of the stack beside that: how many Locust workers, and whether the Locust web UI
of `./testbed up` is running a test of its own meanwhile."""
from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Callable

from testbed.fit.costs import cost_probe_spec, needs_cost_probe
from testbed.run import reconfigure
from testbed.experiment.definition import Experiment, RunSpec
from testbed.stack import Stack
from testbed.swarm import placement


class ExperimentError(RuntimeError):
    """The experiment cannot go on (e.g. the stack does not start); the text says why."""


def ensure(exp: Experiment, stack: Stack, say: Callable[[str], None], tracing: bool,
           scale_from: Path | None) -> tuple[dict, dict] | None:
    """Start the stack for the first run if it is down; return the configuration to restore
    at the end (None when this experiment started the stack)."""
    first = exp.runs[0]
    if any(placement.requested(r.stack_knobs()) for r in exp.runs) and stack.mode != "swarm":
        raise ExperimentError("placement / spread put tiers on the nodes of a Swarm, and the stack here is the "
                              f"{stack.mode} one: ./testbed cluster up --nodes 4, then ./testbed up --swarm")
    if stack.running():
        counts, knobs = stack.current()
        st = stack.status()
        dead = [f"{r['tier']}-{r['replica']}" for r in st["replicas"] if not r["alive"]]
        if not st["up"] or dead:
            raise ExperimentError("the running stack is not healthy (" + (", ".join(dead) or "HAProxy down")
                                  + "); ./testbed down, then run again")
        if tracing and not stack.tracing_url():
            raise ExperimentError("--tracing: the running stack has tracing off; ./testbed down, then run "
                                  "again (or ./testbed up --tracing first)")
        say(f"stack: reusing the running {stack.mode} stack (" + ", ".join(
            f"{t}×{n}" for t, n in counts.items() if n) + ")")
        return counts, knobs
    if stack.mode == "local":
        from testbed import build
        build.ensure(sorted({t for r in exp.runs for t, n in r.tiers.items() if n > 0}))
    say(f"stack: starting the {stack.mode} stack with "
        + ", ".join(f"{t}×{n}" for t, n in first.tiers.items() if n))
    t0 = time.monotonic()
    if needs_cost_probe(exp, scale_from) and exp.runs.index(first) == 0:
        first = cost_probe_spec(first, exp.quick)     # what runs first: saves a restart
    stack.up({t: n for t, n in first.tiers.items() if n > 0}, first.stack_knobs(), locust=False,
             tracing=tracing)
    say(f"stack: healthy in {time.monotonic() - t0:.0f} s")
    return None


def wrap_up(exp: Experiment, stack: Stack, say: Callable[[str], None], original: tuple[dict, dict] | None,
            interrupted: bool, *, started: bool, keep: bool, restore: bool, remote_made: bool) -> None:
    """After the experiment: remove the cluster's Locust workers it made (remote_made); stop the
    stack it started (unless keep), or put the one it reused back as `original` had it (restore;
    not after an interruption). Says what went wrong instead of raising."""
    if remote_made:
        try:
            stack.stop_remote_workers()
        except Exception as e:
            say(f"testbed: run: could not remove the cluster's Locust workers: {e}")
    try:
        if started:
            if keep:
                say("stack: left running (--keep-stack); stop it with ./testbed down")
            else:
                say("stack: stopping the stack this experiment started")
                stack.down()
        elif original and restore:
            if interrupted:
                say("stack: left as the interrupted run had it (./testbed status)")
                return
            counts, knobs = original
            touched = {k: reconfigure.knob(knobs, k) for k in touched_knobs(exp)}
            done = reconfigure.apply(stack, counts, {k: v for k, v in touched.items() if v is not None},
                                     log=say)
            if done:
                say("stack: restored to how it was before the experiment")
    except Exception as e:
        say(f"testbed: run: could not put the stack back: {e}; see ./testbed status")


def touched_knobs(exp: Experiment) -> set[str]:
    return {k for r in exp.runs for k in r.stack_knobs()}


def ui_busy(stack: Stack) -> str | None:
    """If the Locust web UI of `./testbed up` is running a test, say so."""
    ui = stack.ui_url()
    if not ui:
        return None
    try:
        req = urllib.request.Request(ui + "stats/requests", headers=stack.cfg.ui_headers())
        with urllib.request.urlopen(req, timeout=2) as r:
            ui_state = json.loads(r.read()).get("state")
    except (OSError, ValueError):
        return None
    if ui_state in ("running", "spawning"):
        return f"the Locust web UI is {ui_state} a test: it adds load to every measurement"
    return None


def locust_workers(spec: RunSpec, override: int | None, stack: Stack) -> int:
    """The Locust workers of a run: --workers (or 0 once the cluster's own run them), else the
    file's count, "auto" meaning the stack's configured count."""
    if override is not None:
        return override
    if spec.load.workers == "auto":
        return stack.cfg.locust_worker_count()
    return int(spec.load.workers)
