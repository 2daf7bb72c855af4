"""build_probe.json: what a per-request client's build costs each tier, measured on the
baseline's stack before any held-out run (docs/predict.md, "A client per request").

A client per request fetches and parses the WSDL and creates its stub on every call; a singleton
baseline never does, so the prediction model cannot see that cost in it. When an experiment
plans a per-request run, the runner — right after the baseline, before it writes the prediction,
or before the run under load below — asks a clone to build clients the way per-request mode
does, without calling the service (`POST /probe/build` of client-clones' BuildProbeServlet), and
reads every tier's CPU around it: an idle window first (each tier's CPU without load), then
rounds of builds until the CPU per build settles — two rounds in a row within SETTLED of each
other, not before MIN_ROUNDS, the build path's JIT done (a fresh clone compiled for 15-20 s:
results/clones-20261128-223608, 1.83 ms of clone CPU a build after a fixed 10 s warm-up, 1.0 ms
of it on the building threads) — the last round being the measurement. Per build and tier: (CPU
during the round − idle rate × its duration) / builds; "unattributed" is the host's busy CPU
that no sampled process used, corrected the same way. A probe that cannot be made (no clone URL,
the clone refuses, nothing built) is written with its reason: the prediction then lists the
per-request client as not predicted.

The first call (`first_call`): a per-request call then sends once on its fresh client, which costs
the clone more than a call on a reused client (the singleton baseline's) — on the compose stack
0.17-0.23 ms of clone CPU a first call against 0.02-0.14 ms a second one, most of it off the
calling thread (its own CPU 0.10-0.11 against 0.09-0.10 ms: docs/predict.md, "The first call on a
fresh client"). After the build rounds the clone builds in turns with no call, one and two pings on
each client (`calls=0|1|2`), TURNS times; per turn the first call's extra is
(c1 − c0) − (c2 − c1) of the clone's CPU per build, the median over the turns its figure. A turn
whose rounds built too few clients to read their CPU apart from the clone's idle CPU (each call
waits the service's wait) has no figure, with its reason (`unresolved`); nor has crowding's.
Every round, the turns' too, also keeps the clone's garbage collections during it and their time
per build (`gc_rounds`: the probe's answer, client-clones GcTime) — the collector's part of the
clone's CPU at each thread count, beside the run's own per step (analysis/predict/clonegc.py).

Crowding (`crowding`): a build with its first call costs the clone more when many are built at
once (2 threads 1.03 ms, 64 threads 1.17 ms on the local stack, 4 turns each; compose +5-20 % at
32-64: docs/predict.md, "Crowding") — and a per-request clone at its plateau holds 37-60 requests.
Each turn above ends with a round at CROWD_THREADS, one call on each client; its ratio to the
turn's one-call round at THREADS (`turns`: that round measured once for both figures), the median
over the turns, is the figure the model scales the clone's build and first call by
(analysis/predict/model.py, "Crowding").

Under load (`under_load`): built alone, a client costs the other tiers nothing, but a clone that
builds clients while the stack serves makes every tier's requests dearer (measured here: the
front's CPU per /seg/5 request 0.50 ms alone, 0.56-0.65 ms while one clone built clients beside
it — results/regime2-20261129-034822). So where the runner ran a cost probe (the stack
without the service wait, warm), it measures the build alone first (its rounds compile the build
path on an idle host: under load a cold one took 40 s and more, 3-4 ms of clone CPU a build
against 1.7 warm, results/perreq-20261201-221445), then runs the same load once more while the
clone builds clients — LOADED_PLAN, the cost probe's own stack, no reconfiguration — and keeps
every probe call's start, end and count in that run's PROBE_CALLS. The clone builds without pause
while that run primes by the steady-state rule (docs/warm.md: the build path's JIT under load, the
throughput and CPU per request with builds beside them settled; at most WARM_S), then in calls of
ON_S with pauses of OFF_S through its steps (`alternate_from` in PROBE_CALLS, `warm` the prime's
verdict): the analysis (analysis/predict/buildcost.py, side_by_side)
charges to the builds what each tier's CPU grows by between the windows without builds and those
with them, both measured in the same run on the same warm JVMs. (When the clone built without
pause and the reference was the cost probe measured a minute earlier, whose JVMs were still
getting cheaper, the build read 1.09-4.09 ms over seven folders: docs/log/2026-11-28-prediction-client-build.md.)
"""
from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path

from analysis.load.probes import LOADED_PROBE_RUN, PROBES_DIR
from analysis.predict.buildcost import FILE, PROBE_CALLS  # noqa: F401  (the files the analysis reads)
from testbed.cpu.clock import CpuClock, host_cpu_seconds
from testbed.experiment.plan import PRIME_RELEASE, LoadPlan

FORMAT = 1
CALLS_FORMAT = 2             # PROBE_CALLS; 2: calls alternate with pauses (alternate_from)
THREADS = 2
IDLE_S, ROUND_S, MAX_ROUNDS = 3, 5, 8
QUICK_IDLE_S, QUICK_ROUND_S, QUICK_MAX_ROUNDS = 1, 2, 3
SETTLED = 0.10               # two rounds' CPU per build (all tiers) within 10 %: warm
# ... but not before this many rounds: a compiler tier can pause for two rounds on the way (clone
# CPU a build 6.03, 3.13, 2.75, 2.75 ms in classic-20261204-162119, settled there and predicted the
# client per request 17 % low; the other two runs of that day went on to 1.08-1.16 ms by round 7-8)
MIN_ROUNDS = 5
MAX_BUILDS = 5000            # BuildProbeServlet.MAX_BUILDS
CROWD_THREADS = 64           # BuildProbeServlet.MAX_THREADS: a per-request clone's plateau holds 37-60
TURNS, QUICK_TURNS = 4, 1    # turns of rounds with 0, 1 and 2 calls a client at THREADS, 1 at CROWD_THREADS
# a turn's rounds compared only where each built this many (`unresolved`): `clones` probes on its
# cost probe's stack, without the service wait (3,111-4,672 a round with calls in 5 s,
# results/clones-20261205-164532); the quick test probes after its run, each call held by the
# service's wait — at 100 ms (a busy host) 2 threads × 2 s / 200 ms = 20 with 2 calls
MIN_TURN_BUILDS = 100
# under load: the cost probe's load on its warm JVMs, primed by the rule (RunSpec.cold: the clone
# building clients changes what they run) while the clone builds in calls of CALL_S — the build
# path's C2 compiler under load, which worked for up to ~3 minutes here (docs/log/2026-11-28-
# prediction-client-build.md, "the per-request clone's compiler, timed"; a fixed warm-up of 18 s
# measured the build mid-climb, 2.46 ms of clone CPU a build against ~1.4 at the per-request run's
# plateau), at most WARM_S — then ALTERNATE_STEPS steps in which it alternates calls of ON_S with
# pauses of OFF_S, about five of each
WARM_S = 180.0
WARM_MIN_S = 30.0
ALTERNATE_STEPS = 7
LOADED_PLAN = LoadPlan(users=(16,) * ALTERNATE_STEPS, step_seconds=10.0, warmup_seconds=3.0, warm="steady",
                       warm_min_seconds=WARM_MIN_S, warm_max_seconds=WARM_S)
CALL_S = 4
ON_S, OFF_S = 6, 6
LOCUST_START_S = 10.0        # Locust's start before the prime's (the ceiling counts from the prime)


def due(configs: list[dict]) -> bool:
    """A run of the experiment uses a client per request."""
    return any(c.get("kind") in (None, "clones") and c.get("client_mode") == "request" for c in configs)


def _plan(quick: bool) -> tuple[int, int, int]:
    return (QUICK_IDLE_S, QUICK_ROUND_S, QUICK_MAX_ROUNDS) if quick else (IDLE_S, ROUND_S, MAX_ROUNDS)


def seconds(quick: bool, under_load: bool = False) -> float:
    """The longest the probe takes (for the experiment's estimate), with its run under load
    (after a cost probe; never --quick) and that run's Locust start."""
    idle, round_s, rounds = _plan(quick)
    n = QUICK_TURNS if quick else TURNS
    return (idle + round_s * (rounds + 4 * n)
            + (LOADED_PLAN.seconds() + 5.0 if under_load and not quick else 0.0))


def _clone_url(stack) -> tuple[str, str, dict[str, str]]:
    """(the first clone's address, its replica name, the header of the stack's admin token that
    its probe wants: testbed/tiers.py); ProbeError if none."""
    clones = [r for r in stack.status().get("replicas", []) if r.get("tier") == "clone" and r.get("url")]
    if not clones:
        raise ProbeError("no clone replica with an address to ask")
    return clones[0]["url"], str(clones[0].get("replica")), stack.admin_headers()


def _post(url: str, admin: dict[str, str], backend: str, secs: int, calls: int = 0, threads: int = THREADS) -> dict:
    q = (f"{url}/probe/build?backend={backend}&n={MAX_BUILDS}&threads={threads}&seconds={secs}"
         + (f"&calls={calls}" if calls else ""))
    req = urllib.request.Request(q, data=b"", method="POST", headers=admin)
    try:
        with urllib.request.urlopen(req, timeout=secs + 30) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        raise ProbeError(f"POST /probe/build answered HTTP {e.code}: {e.read()[:200]!r}") from e
    except (OSError, ValueError) as e:
        raise ProbeError(f"POST /probe/build: {type(e).__name__}: {e}") from e


class ProbeError(RuntimeError):
    pass


def _read(clock: CpuClock, targets) -> tuple[float, dict[str, float], float]:
    """(monotonic time, CPU seconds per tier summed over replicas, host busy seconds)."""
    per: dict[str, float] = {}
    for (tier, _), s in clock.read(targets).items():
        per[tier] = per.get(tier, 0.0) + s
    return time.monotonic(), per, host_cpu_seconds()[0]


def per_build(idle: tuple, idle_end: tuple, end: tuple, built: int, start: tuple | None = None) -> dict[str, float]:
    """Seconds of CPU per build of each tier and 'unattributed' from the readings before and after
    the idle window and after the builds (which began at `start`, else right after the idle
    window), each tier's idle rate taken off."""
    (t0, c0, h0), (t1, c1, h1) = idle, idle_end
    ts, cs, hs = start or idle_end
    t2, c2, h2 = end
    idle_dt, dt = max(t1 - t0, 1e-9), max(t2 - ts, 1e-9)
    out: dict[str, float] = {}
    for tier in c2:
        if tier in cs and tier in c1 and tier in c0:
            rate = (c1[tier] - c0[tier]) / idle_dt
            out[tier] = max((c2[tier] - cs[tier]) - rate * dt, 0.0) / built

    def rest(ca, cb, ha, hb):
        return (hb - ha) - sum(cb[t] - ca[t] for t in cb if t in ca)
    rate = rest(c0, c1, h0, h1) / idle_dt
    out["unattributed"] = max(rest(cs, c2, hs, h2) - rate * dt, 0.0) / built
    return out


def warm(history: list[dict[str, float]], quick: bool = False) -> bool:
    """The rounds so far (CPU per build and tier, oldest first) are enough: the last two settled,
    and at least MIN_ROUNDS of them (--quick: any two)."""
    return len(history) >= (2 if quick else MIN_ROUNDS) and settled(history[-2], history[-1])


def settled(previous: dict[str, float] | None, now: dict[str, float]) -> bool:
    """Two rounds' CPU per build, summed over the tiers, within SETTLED of each other."""
    if previous is None:
        return False
    a, b = sum(previous.values()), sum(now.values())
    return b > 0 and abs(a - b) <= SETTLED * b


def unresolved(rounds: list[tuple[float, int]]) -> str | None:
    """Why a turn's rounds — (the clone's CPU per build, clients built) each — cannot be compared,
    or None. Each round's CPU is its reading less the clone's idle rate over its duration, divided
    by its builds: with few builds that quotient is the idle window's noise (a CI run: rounds
    of 40 and 20 builds, each call held 100 ms by the service's wait, read 11.2 and 0.0 ms a build
    against 2.1 ms without calls), and a reading the idle rate swallowed is clamped to 0."""
    fewest = min(b for _, b in rounds)
    if fewest < MIN_TURN_BUILDS:
        return (f"a round built {fewest} clients (fewer than {MIN_TURN_BUILDS}: the service's wait "
                f"holds each call), too few to tell their CPU from the clone's idle CPU")
    if any(c <= 0 for c, _ in rounds):
        return "a round's CPU was within the clone's idle CPU"
    return None


def turns(build_round, n: int) -> tuple[dict, dict]:
    """(first_call, crowding): build_round(calls, threads) builds a round with that many calls on
    each client on that many threads and gives (the clone's CPU per build, clients built). A turn is
    rounds with 0, 1 and 2 calls at THREADS and one with 1 call at CROWD_THREADS, n times.

    first_call -- the clone's CPU of a fresh client's first call beyond a reused client's call, in
        seconds: per turn (c1 − c0) − (c2 − c1), the median over the turns that have one (None if none);
    crowding -- how much dearer a build with its first call is with CROWD_THREADS at once than
        THREADS: per turn the ratio of the CROWD_THREADS round to the turn's 1-call round at
        THREADS (the same round first_call reads: measured once, not twice), the median over the turns.
    A turn whose rounds are `unresolved` has no figure, with the reason."""
    calls_rows, crowd_rows = [], []
    for _ in range(n):
        got = [build_round(calls, THREADS) for calls in (0, 1, 2)]
        crowd = build_round(1, CROWD_THREADS)
        (c0, _), (c1, _), (c2, _) = got
        why = unresolved(got)
        calls_rows.append({"clone_s_per_build": [c0, c1, c2], "built": [b for _, b in got],
                           "first_call_extra_s": None if why else (c1 - c0) - (c2 - c1), **({"why": why} if why else {})})
        pair = [got[1], crowd]
        why = unresolved(pair)
        crowd_rows.append({"clone_s_per_build": [c1, crowd[0]], "built": [b for _, b in pair],
                           "ratio": None if why else crowd[0] / c1, **({"why": why} if why else {})})
    extras = [r["first_call_extra_s"] for r in calls_rows if r["first_call_extra_s"] is not None]
    ratios = [r["ratio"] for r in crowd_rows if r["ratio"] is not None]
    return ({"turns": calls_rows, "clone_s": statistics.median(extras) if extras else None},
            {"threads": [THREADS, CROWD_THREADS], "calls": 1, "turns": crowd_rows,
             "ratio": statistics.median(ratios) if ratios else None})


def _clone(round_: dict) -> tuple[float, int]:
    """A build round's (clone CPU per build, clients built)."""
    return round_["cpu_s_per_build"].get("clone", 0.0), int(round_["probe"]["built"])


def measure(stack, backend: str, quick: bool, say) -> dict:
    """The probe's figures (written to build_probe.json by the runner); 'error' when it could
    not be made."""
    idle, round_s, max_rounds = _plan(quick)
    out: dict = {"format": FORMAT, "backend": backend, "threads": THREADS, "written": None}
    try:
        url, replica, admin = _clone_url(stack)
        say(f"  client-build probe: clone-{replica} builds {backend} clients as a client per "
            f"request does, in rounds of {round_s} s until their CPU per build settles (at most {max_rounds})")
        targets = stack.cpu_targets()
        clock = CpuClock()
        r0 = _read(clock, targets)
        time.sleep(idle)
        r1 = _read(clock, targets)
        rounds: list[dict] = []
        every: list[dict] = []           # each round's collector (gc_rounds), the turns' too
        steady = False

        def build_round(calls: int = 0, threads: int = THREADS) -> dict:
            a = _read(clock, targets)
            body = _post(url, admin, backend, round_s, calls, threads)
            b = _read(clock, targets)
            built = int(body.get("built") or 0)
            if not built:
                raise ProbeError(f"no client built ({body.get('failed')} failed: {body.get('error')})")
            every.append({"calls": calls, "threads": threads, "built": built,
                          "gc_s_per_build": int(body.get("gc_time_ns") or 0) / 1e9 / built,
                          "gc_collections": int(body.get("gc_collections") or 0)})
            return {"probe": body, "cpu_s_per_build": per_build(r0, r1, b, built, start=a), "wall_s": b[0] - a[0]}
        for _ in range(max_rounds):
            rounds.append(build_round())
            steady = warm([r["cpu_s_per_build"] for r in rounds], quick)
            if steady:
                break
        last = rounds[-1]
        try:
            out["first_call"], out["crowding"] = turns(lambda calls, k: _clone(build_round(calls, k)),
                                                       QUICK_TURNS if quick else TURNS)
            fc, ratio = out["first_call"], out["crowding"]["ratio"]
            extra = (f"a fresh client's first call: clone {fc['clone_s'] * 1e3:+.2f} ms" if fc["clone_s"] is not None
                     else f"the first call not measured ({fc['turns'][-1]['why']})"[:160])
            extra += (f"; {CROWD_THREADS} at once: clone ×{ratio:.2f}" if ratio
                      else f"; crowding not measured ({out['crowding']['turns'][-1].get('why')})"[:160])
        except ProbeError as e:          # the build's figures stand without them
            out["first_call"] = out["crowding"] = {"error": f"{e}"[:300]}
            extra = f"the first call and crowding not measured ({e})"[:160]
        out.update(gc_rounds=every, rounds=rounds, settled=steady, probe=last["probe"], cpu_s_per_build=last["cpu_s_per_build"],
                   wall_s=last["wall_s"],
                   builds_per_s=last["probe"]["built"] / max(last["wall_s"], 1e-9),
                   build_s_median=(last["probe"].get("build_ms_median") or 0) / 1e3)
        shown = ", ".join(f"{t} {v * 1e3:.2f}" for t, v in sorted(last["cpu_s_per_build"].items()) if v > 0)
        say(f"  client-build probe: {len(rounds)} round(s){'' if out['settled'] else ', not settled'}; the last "
            f"{last['probe']['built']} built in {last['wall_s']:.1f} s; CPU ms per build: {shown} (the clone's "
            f"collector {every[len(rounds) - 1]['gc_s_per_build'] * 1e3:.2f}); {extra}")
    except (ProbeError, OSError, KeyError, ValueError) as e:
        out["error"] = f"{type(e).__name__}: {e}"[:300]
        say(f"  client-build probe: none ({out['error']})"[:200])
    out["written"] = time.time()
    return out


def loaded_spec(cost_probe):
    """The cost probe's run once more, while a clone builds clients (under_load)."""
    return replace(cost_probe, id=LOADED_PROBE_RUN, entry=LOADED_PROBE_RUN, load=LOADED_PLAN, cold=True,
                   label="client-build probe under load: /seg/5, no service wait, while clone-1 builds clients")


def under_load(stack, cost_probe, run_one, folder: Path, say) -> None:
    """After a complete cost probe in folder/PROBES_DIR/: run loaded_spec(cost_probe)
    there with run_one(spec, root) while one clone builds clients in calls of CALL_S, each call's
    start, end and builds written to PROBE_CALLS in its run folder (with the error, if the clone
    could not be asked)."""
    root = Path(folder) / PROBES_DIR
    try:
        done = json.loads((root / cost_probe.id / "run.json").read_text(encoding="utf-8")).get("status")
    except (OSError, ValueError):
        done = None
    if done != "complete":
        return
    spec, backend = loaded_spec(cost_probe), cost_probe.backend
    calls: list[dict] = []
    out: dict = {"format": CALLS_FORMAT, "backend": backend, "threads": THREADS, "calls": calls,
                 "warm_max_s": WARM_S, "on_s": ON_S, "off_s": OFF_S, "alternate_from": None}
    stop = threading.Event()

    run_dir = root / spec.id

    def primed() -> bool:
        """The run's prime is over: released by the rule, or its ceiling (from Locust's start) passed."""
        return (run_dir / PRIME_RELEASE).exists() or time.monotonic() - began > WARM_S + LOCUST_START_S

    def build() -> None:
        try:
            url, _, admin = _clone_url(stack)
            while not stop.is_set():
                warm = not primed()
                if not warm and out["alternate_from"] is None:
                    out["alternate_from"] = time.time()
                t0 = time.time()
                body = _post(url, admin, backend, CALL_S if warm else ON_S)
                calls.append({"start": t0, "end": time.time(), "built": int(body.get("built") or 0),
                              "failed": int(body.get("failed") or 0)})
                if not warm:
                    stop.wait(OFF_S)
        except (ProbeError, OSError, ValueError) as e:
            out["error"] = f"{type(e).__name__}: {e}"[:300]
    say("  client-build probe under load: the cost probe's load again while clone-1 builds clients, until the "
        f"stack is measurably warm (at most {WARM_S:.0f} s), then {ALTERNATE_STEPS} steps in turns of {ON_S} s with "
        f"and {OFF_S} s without")
    began = time.monotonic()
    worker = threading.Thread(target=build, name="build-probe-under-load", daemon=True)
    worker.start()
    try:
        run_one(spec, root)
    finally:
        stop.set()
        worker.join(max(CALL_S, ON_S) + 35)
        (root / spec.id).mkdir(parents=True, exist_ok=True)
        out["warm"] = _warm_verdict(run_dir)
        (root / spec.id / PROBE_CALLS).write_text(json.dumps(out, indent=1), encoding="utf-8")
    if out.get("error"):
        say(f"  client-build probe under load: {out['error']}"[:200])


def _warm_verdict(run_dir: Path) -> dict | None:
    """The run's prime by the rule, as its run.json notes say it (verdict, seconds, why)."""
    try:
        warm = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["notes"].get("warm") or {}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {k: warm.get(k) for k in ("verdict", "seconds", "why")}
