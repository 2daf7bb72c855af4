"""Load shapes of the testbed's experiments.

Kept apart from the users so that a run picks its shape explicitly
(`-f loadgen/locustfile.py,loadgen/shapes.py`, or the class picker of the web UI). Its options
all start with `step-` so that they read together in the web UI; the earlier names
(--warmup-seconds, --prime-seconds, --hold-seconds, --hold-release) are still accepted.
"""
from __future__ import annotations

import json
import math
import os
import statistics
import time

from locust import LoadTestShape, events

SPAWN_PER_USER = 10.0      # spawn rate = users × this: every user of a step starts within 0.1 s ...
SPAWN_PER_WORKER = 100.0   # ... but at most this per worker (Locust warns above it)


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--step-users", default="1,2,4,8,16,32",
                        help="StepLoadShape: users of each step, comma-separated")
    parser.add_argument("--step-seconds", type=float, default=20.0,
                        help="StepLoadShape: length of one step, its warm-up included")
    parser.add_argument("--step-warmup-seconds", "--warmup-seconds", dest="step_warmup_seconds",
                        type=float, default=5.0,
                        help="StepLoadShape: first seconds of each step, left out of its sample")
    parser.add_argument("--step-prime-seconds", "--prime-seconds", dest="step_prime_seconds",
                        type=float, default=0.0,
                        help="StepLoadShape: before the first step, the most users this long to warm "
                             "JIT and pools up; not a step")
    parser.add_argument("--step-hold-seconds", "--hold-seconds", dest="step_hold_seconds",
                        type=float, default=0.0,
                        help="StepLoadShape: after the last step, its users this long, e.g. for thread "
                             "dumps at the plateau; not a step")
    parser.add_argument("--step-hold-release", "--hold-release", dest="step_hold_release", default="",
                        include_in_web_ui=False,
                        help="StepLoadShape: end the hold as soon as this file exists (a runner creates "
                             "it once its thread dumps are taken)")
    parser.add_argument("--step-prime-release", default="", include_in_web_ui=False,
                        help="StepLoadShape: end the prime as soon as this file exists (a runner creates "
                             "it once the stack is measurably warm); --step-prime-seconds is then the "
                             "longest the prime lasts")
    parser.add_argument("--step-log", default="", include_in_web_ui=False,
                        help="StepLoadShape: append each step's boundaries (JSON lines) to this file")
    parser.add_argument("--step-target-ci", type=float, default=0.0,
                        help="StepLoadShape: end a step once the 95 %% confidence interval of its "
                             "per-second throughput (after the warm-up) is within ± this fraction of "
                             "its mean, e.g. 0.03; --step-seconds is then the longest a step lasts "
                             "(0 = every step lasts --step-seconds)")
    parser.add_argument("--step-min-seconds", type=float, default=5.0,
                        help="StepLoadShape, with --step-target-ci: measure at least this long after "
                             "the warm-up before the interval may end a step")
    parser.add_argument("--step-plateau-tolerance", type=float, default=0.0,
                        help="StepLoadShape: stop the ramp once --step-plateau-steps steps in a row "
                             "stayed, with their whole 95 %% interval, within this fraction above the "
                             "best earlier step, e.g. 0.05 (0 = run every step)")
    parser.add_argument("--step-plateau-steps", type=int, default=2,
                        help="StepLoadShape: steps in a row without a rise that establish the plateau")

def parse_users(text: str) -> list[int]:
    try:
        users = [int(u) for u in text.replace(" ", "").split(",") if u]
    except ValueError:
        raise ValueError(f"--step-users: expected whole numbers like 1,2,4,8, got {text!r}") from None
    if not users or min(users) < 1:
        raise ValueError(f"--step-users: expected at least one step of >= 1 user, got {text!r}")
    return users


def stages(users: list[int], step_s: float, prime_s: float = 0.0, hold_s: float = 0.0) -> list[dict]:
    """The plan as a table, one row per phase in order:
    {"phase": "prime" | "step" | "hold", "index": step index or None, "users", "from", "to"}
    with from/to in seconds since the shape started."""
    rows, t = [], 0.0
    if prime_s > 0:
        rows.append({"phase": "prime", "index": None, "users": max(users), "from": t, "to": t + prime_s})
        t += prime_s
    for i, u in enumerate(users):
        rows.append({"phase": "step", "index": i, "users": u, "from": t, "to": t + step_s})
        t += step_s
    if hold_s > 0:
        rows.append({"phase": "hold", "index": None, "users": users[-1], "from": t, "to": t + hold_s})
    return rows


def phase_at(table: list[dict], run_time: float) -> int | None:
    """Row number of the phase running at run_time, or None once the plan is over."""
    for n, row in enumerate(table):
        if row["from"] <= run_time < row["to"]:
            return n
    return None


# Student's t, 97.5 % quantile (two-sided 95 %) by degrees of freedom; between 30 and infinity
# linear in 1/df. The project's one t table (analysis/stats.py uses scipy.stats.t.ppf; a test
# checks this table against it: within 5e-4 for every df). Why not scipy here: this file runs in
# every Locust process (master and each worker load it with -f) and in the loadgen image, which
# holds Locust alone. Measured (best of 11 fresh interpreters, load average 11-13, this 2-core
# machine): `import locust` 0.69 s and 52 MiB max RSS; `import locust, scipy.stats` 1.44 s and
# 128 MiB, i.e. each Locust process twice as slow to start and 2.5x its memory, and the image
# would carry numpy and scipy. Reproduce: .venv/bin/python -m timeit -n1 -r11 -s 'import
# subprocess,sys' "subprocess.run([sys.executable,'-c','import locust, scipy.stats'])" and
# /usr/bin/time -f %M .venv/bin/python -c 'import locust, scipy.stats'.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
        25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000,
        120: 1.980}
Z975 = 1.960


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with df degrees of freedom (df >= 1), from T975."""
    if df < 1:
        raise ValueError(f"t quantile: need df >= 1, got {df}")
    if df in T975:
        return T975[df]
    knots = [(d, T975[d]) for d in (30, 40, 60, 120)] + [(math.inf, Z975)]
    for (d0, t0), (d1, t1) in zip(knots, knots[1:]):
        if d0 < df < d1:
            w = (1 / d0 - 1 / df) / (1 / d0 - (0 if d1 == math.inf else 1 / d1))
            return t0 + (t1 - t0) * w
    return Z975


def mean_ci(samples: list[float]) -> tuple[float, float] | None:
    """(mean, half-width of its 95 % confidence interval, t-distribution) of >= 2 samples."""
    n = len(samples)
    if n < 2:
        return None
    return statistics.fmean(samples), t975(n - 1) * statistics.stdev(samples) / math.sqrt(n)


def per_second(counts: dict[int, int], measure_from: float, now: float, lag: float) -> list[int]:
    """Requests completed in each whole second from measure_from on whose count is complete at
    `now`: a second s counts once s + 1 + lag <= now (workers' reports are up to `lag` late)."""
    first = math.ceil(measure_from)
    last = math.floor(now - lag) - 1
    return [int(counts.get(t, 0)) for t in range(first, last + 1)]


def step_done(samples: list[int], target: float, min_samples: int) -> tuple[bool, float | None]:
    """(the interval is narrow enough, its relative half-width or None)."""
    ci = mean_ci(samples)
    if ci is None or ci[0] <= 0:
        return False, None
    rel = ci[1] / ci[0]
    return len(samples) >= max(min_samples, 2) and rel <= target, rel


def plateau_reached(measured: list[tuple[float, float]], tolerance: float, steps: int) -> bool:
    """True once each of the last `steps` steps, (mean, half-width of its 95 % interval), stayed
    at or below (1 + tolerance) × the best mean before it *with its whole interval*: the data
    say more users bought no throughput beyond the band. A noisy step (wide interval) does not
    establish the plateau: the ramp goes on rather than stop on noise."""
    if tolerance <= 0 or steps < 1 or len(measured) <= steps:
        return False
    for j in range(len(measured) - steps, len(measured)):
        mean, half = measured[j]
        if mean + half > max(m for m, _ in measured[:j]) * (1 + tolerance):
            return False
    return True


class StepLoadShape(LoadTestShape):
    """Raise the number of users step by step, think time as the users set it.

    step_users -- users of each step, e.g. 1,2,4,8,16,32 (--step-users)
    step_seconds -- length of each step including its warm-up (--step-seconds)
    step_warmup_seconds -- start of each step left out of its sample (--step-warmup-seconds)
    step_prime_seconds -- before step 0, the most users for this long; not a step (--step-prime-seconds)
    step_hold_seconds -- after the last step, its users for this long; not a step (--step-hold-seconds)
    step_hold_release -- a file whose existence ends the hold early (--step-hold-release)
    step_prime_release -- a file whose existence ends the prime early: the runner's steady-state
        rule found the stack warm (--step-prime-release); the prime's end is then logged with
        "ended_by": "released"
    target_ci -- adaptive steps: a step ends once the 95 % confidence interval (t-distribution)
        of its per-second request counts after the warm-up is within ± this fraction of their
        mean and it has measured min_seconds; else at step_seconds, then the longest a step
        lasts (--step-target-ci; 0 = off)
    min_seconds -- least measured seconds of an adaptive step (--step-min-seconds)
    plateau_tolerance, plateau_steps -- stop the ramp once plateau_steps steps in a row stayed,
        with their whole 95 % interval, within plateau_tolerance above the best earlier step's
        mean (plateau_reached: noisy steps never stop a ramp);
        the hold, if any, then keeps the last step's users (--step-plateau-tolerance, 0 = off;
        --step-plateau-steps)
    step_log -- file that receives, as they happen, one JSON line per step start
        ({"index", "users", "start", "measure_from"}) and per step end ({"index", "end"}; with
        adaptive steps or the plateau stop also "ended_by": "ci" | "max", "shape_samples",
        "shape_throughput", "shape_ci" (relative half-width) and, when the ramp stops after it,
        "ramp_stopped": why); prime and hold are logged as {"phase", "users", "start"} and
        {"phase", "end"} (no "index": readers of steps ignore them)
    All users of a phase start at once: the step's warm-up absorbs the ramp. The phases are
    the table `stages()`; a step's logged start is when the shape saw it begin (ticks are 1 s
    apart), which is also when the previous phase is logged as ended. A step that ends early
    moves every later phase earlier by the time it saved. The per-second counts are the
    master's (runner.stats.total.num_reqs_per_sec, by the second a request completed); a
    second is used once REPORT_LAG_S has passed after it (workers report twice a second).
    """

    REPORT_LAG_S = 1.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._forget()

    def _forget(self) -> None:
        self._current: int | None = None       # row of the phase running, None before the first
        self._table: list[dict] | None = None  # built from the options when a run starts
        self._shift = 0.0                      # seconds later phases moved earlier (adaptive)
        self._measure_from: float | None = None
        self._measured: list[tuple[float, float]] = []   # each ended step: (mean, 95 % half-width)

    def reset_time(self):
        """A new run (the web UI may have changed the options): start the table afresh."""
        super().reset_time()
        self._forget()

    def _now(self) -> float:
        return time.time()

    def _options(self):
        return self.runner.environment.parsed_options

    def _plan(self) -> tuple[list[dict], float, str]:
        o = self.runner.environment.parsed_options
        if self._table is None:
            self._table = stages(parse_users(o.step_users), o.step_seconds,
                                 getattr(o, "step_prime_seconds", 0.0), getattr(o, "step_hold_seconds", 0.0))
        return self._table, o.step_warmup_seconds, o.step_log

    def _released(self, option: str = "step_hold_release") -> bool:
        release = getattr(self.runner.environment.parsed_options, option, "")
        return bool(release) and os.path.exists(release)

    def _spawn_rate(self, users: int) -> float:
        workers = getattr(self.runner, "worker_count", 0) or 1
        return min(max(users, 1) * SPAWN_PER_USER, SPAWN_PER_WORKER * workers)

    @staticmethod
    def _log(path: str, record: dict) -> None:
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(record) + "\n")

    def _adaptive(self) -> tuple[float, float, float, int]:
        o = self._options()
        return (float(getattr(o, "step_target_ci", 0.0) or 0.0), float(getattr(o, "step_min_seconds", 5.0)),
                float(getattr(o, "step_plateau_tolerance", 0.0) or 0.0), int(getattr(o, "step_plateau_steps", 2)))

    def _step_end(self, table: list[dict], n: int, now: float) -> tuple[int | None, dict]:
        """With adaptive steps or the plateau stop, decide whether step row n ends now:
        (row to go to or None to stay, what to add to the step's end record)."""
        target, min_s, tolerance, plateau_steps = self._adaptive()
        if target <= 0 and tolerance <= 0:
            return None, {}
        row = table[n]
        counts = self.runner.stats.total.num_reqs_per_sec
        samples = per_second(counts, self._measure_from, now, self.REPORT_LAG_S)
        done, rel = step_done(samples, target, math.ceil(min_s)) if target > 0 else (False, None)
        run_time = self.get_run_time() + self._shift
        if not (done or run_time >= row["to"]):
            return None, {}
        ci = mean_ci(samples)
        mean, half = ci if ci else (sum(samples) / len(samples) if samples else 0.0, math.inf)
        self._measured.append((mean, half))
        if rel is None and ci and mean > 0:
            rel = half / mean
        extra = {"ended_by": "ci" if done else "max", "shape_samples": len(samples),
                 "shape_throughput": round(mean, 3), "shape_ci": None if rel is None else round(rel, 5)}
        nxt = n + 1 if n + 1 < len(table) else None
        early = done and run_time < row["to"]
        if nxt is not None and table[nxt]["phase"] == "step" and plateau_reached(
                self._measured, tolerance, plateau_steps):
            best = max(m for m, _ in self._measured[:-plateau_steps])
            skipped = [r["users"] for r in table[nxt:] if r["phase"] == "step"]
            extra["ramp_stopped"] = (f"plateau: {plateau_steps} step(s) in a row, each with its 95 % interval "
                                     f"within +{tolerance:.0%} of the best earlier step ({best:.1f}/s); "
                                     "skipped users "
                                     + ",".join(str(u) for u in skipped))
            nxt = next((k for k in range(nxt, len(table)) if table[k]["phase"] == "hold"), None)
            if nxt is not None:
                table[nxt] = dict(table[nxt], users=row["users"])
            early = True
        if nxt is None:
            self._shift = float("inf")                 # the plan is over
        elif early:                                    # the next phase starts now, in full
            self._shift += table[nxt]["from"] - run_time
        return nxt, extra

    def tick(self):
        table, warm_s, log = self._plan()
        now = self._now()
        n = None if self._shift == float("inf") else phase_at(table, self.get_run_time() + self._shift)
        extra: dict = {}
        if self._current is not None and table[self._current]["phase"] == "step":
            moved, extra = self._step_end(table, self._current, now)
            if extra:                          # adaptive: the step ended now (interval or time)
                n = moved
        if n is not None and table[n]["phase"] == "hold" and self._released():
            n = None
        if (n is not None and n == self._current and table[n]["phase"] == "prime"
                and self._released("step_prime_release")):
            extra = {"ended_by": "released"}            # measurably warm: the first step starts now
            self._shift += table[n]["to"] - (self.get_run_time() + self._shift)
            n += 1
        if n != self._current:
            if self._current is not None:
                was = table[self._current]
                self._log(log, {"index": was["index"], "end": now, **extra} if was["phase"] == "step"
                          else {"phase": was["phase"], "end": now, **extra})
            if n is not None:
                row = table[n]
                if row["phase"] == "step":
                    self._measure_from = now + warm_s
                self._log(log, {"index": row["index"], "users": row["users"], "start": now,
                                "measure_from": now + warm_s} if row["phase"] == "step"
                          else {"phase": row["phase"], "users": row["users"], "start": now})
            self._current = n
        if n is None:
            return None
        users = table[n]["users"]
        return users, self._spawn_rate(users)
