"""build_probe.json: what a per-request client's build costs each tier, measured on the
baseline's stack before any held-out run (docs/predict.md, "A client per request").

A client per request fetches and parses the WSDL and creates its stub on every call; a
singleton baseline never does, so the prediction model cannot see that cost in it. When an
experiment plans a per-request run, the runner — right after the baseline, before it writes
the prediction — asks a clone to build clients the way per-request mode does, without calling
the service (`POST /probe/build` of client-clones' BuildProbeServlet), and reads every tier's
CPU around it: a warm-up it does not count (the build path's JIT), an idle window (each
tier's CPU without load), then the measured builds. Per build and tier:
(CPU during the builds − idle rate × their duration) / builds; "unattributed" is the host's busy
CPU that no sampled process used, corrected the same way. A probe that cannot be made (no
clone URL, the clone refuses, nothing built) is written with its reason: the prediction then
lists the per-request client as not predicted, as before.
"""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

from analysis.predict.buildcost import FILE  # noqa: F401  (the file the analysis reads)
from testbed.cpu_clock import CpuClock, host_cpu_seconds

FORMAT = 1
THREADS = 2
WARM_S, IDLE_S, MEASURE_S = 10, 3, 10
QUICK_WARM_S, QUICK_IDLE_S, QUICK_MEASURE_S = 3, 1, 3
MAX_BUILDS = 5000            # BuildProbeServlet.MAX_BUILDS


def due(configs: list[dict]) -> bool:
    """A run of the experiment uses a client per request."""
    return any(c.get("kind") in (None, "clones") and c.get("client_mode") == "request" for c in configs)


def seconds(quick: bool) -> float:
    """How long the probe takes (for the experiment's estimate)."""
    return (QUICK_WARM_S + QUICK_IDLE_S + QUICK_MEASURE_S) if quick else (WARM_S + IDLE_S + MEASURE_S)


def _post(url: str, backend: str, secs: int) -> dict:
    q = f"{url}/probe/build?backend={backend}&n={MAX_BUILDS}&threads={THREADS}&seconds={secs}"
    req = urllib.request.Request(q, data=b"", method="POST")
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


def per_build(idle: tuple, start: tuple, end: tuple, built: int) -> dict[str, float]:
    """Seconds of CPU per build of each tier and 'unattributed' from three readings (before the
    idle window, before the builds, after them), each tier's idle rate taken off."""
    (t0, c0, h0), (t1, c1, h1), (t2, c2, h2) = idle, start, end
    idle_dt, dt = max(t1 - t0, 1e-9), max(t2 - t1, 1e-9)
    out: dict[str, float] = {}
    for tier in c2:
        if tier in c1 and tier in c0:
            rate = (c1[tier] - c0[tier]) / idle_dt
            out[tier] = max((c2[tier] - c1[tier]) - rate * dt, 0.0) / built

    def rest(ca, cb, ha, hb):
        return (hb - ha) - sum(cb[t] - ca[t] for t in cb if t in ca)
    rate = rest(c0, c1, h0, h1) / idle_dt
    out["unattributed"] = max(rest(c1, c2, h1, h2) - rate * dt, 0.0) / built
    return out


def measure(stack, backend: str, quick: bool, say) -> dict:
    """The probe's figures (written to build_probe.json by the runner); 'error' when it could
    not be made."""
    warm, idle, secs = ((QUICK_WARM_S, QUICK_IDLE_S, QUICK_MEASURE_S) if quick else (WARM_S, IDLE_S, MEASURE_S))
    out: dict = {"format": FORMAT, "backend": backend, "threads": THREADS, "written": None}
    try:
        clones = [r for r in stack.status().get("replicas", []) if r.get("tier") == "clone" and r.get("url")]
        if not clones:
            raise ProbeError("no clone replica with an address to ask")
        url = clones[0]["url"]
        say(f"  client-build probe: clone-{clones[0].get('replica')} builds {backend} clients as a client "
            f"per request does, {warm} s warm-up, {idle} s idle, {secs} s measured")
        warmed = _post(url, backend, warm)
        targets = stack.cpu_targets()
        clock = CpuClock()
        r0 = _read(clock, targets)
        time.sleep(idle)
        r1 = _read(clock, targets)
        body = _post(url, backend, secs)
        r2 = _read(clock, targets)
        built = int(body.get("built") or 0)
        if not built:
            raise ProbeError(f"no client built ({body.get('failed')} failed: {body.get('error')})")
        cpu = per_build(r0, r1, r2, built)
        out.update(warm_up=warmed, probe=body, cpu_s_per_build=cpu, wall_s=r2[0] - r1[0],
                   builds_per_s=built / max(r2[0] - r1[0], 1e-9),
                   build_s_median=(body.get("build_ms_median") or 0) / 1e3)
        shown = ", ".join(f"{t} {v * 1e3:.2f}" for t, v in sorted(cpu.items()) if v > 0)
        say(f"  client-build probe: {built} built in {r2[0] - r1[0]:.1f} s; CPU ms per build: {shown}")
    except (ProbeError, OSError, KeyError, ValueError) as e:
        out["error"] = f"{type(e).__name__}: {e}"[:300]
        say(f"  client-build probe: none ({out['error']})"[:200])
    out["written"] = time.time()
    return out
