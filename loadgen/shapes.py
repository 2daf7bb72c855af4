"""Load shapes of the testbed's experiments.

Kept apart from the users so that a run picks its shape explicitly
(`-f loadgen/locustfile.py,loadgen/shapes.py`, or the class picker of the web UI). Its options
all start with `step-` so that they read together in the web UI; the earlier names
(--warmup-seconds, --prime-seconds, --hold-seconds, --hold-release) are still accepted.
"""
from __future__ import annotations

import json
import os
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
    parser.add_argument("--step-log", default="", include_in_web_ui=False,
                        help="StepLoadShape: append each step's boundaries (JSON lines) to this file")

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


class StepLoadShape(LoadTestShape):
    """Raise the number of users step by step, think time as the users set it.

    step_users -- users of each step, e.g. 1,2,4,8,16,32 (--step-users)
    step_seconds -- length of each step including its warm-up (--step-seconds)
    step_warmup_seconds -- start of each step left out of its sample (--step-warmup-seconds)
    step_prime_seconds -- before step 0, the most users for this long; not a step (--step-prime-seconds)
    step_hold_seconds -- after the last step, its users for this long; not a step (--step-hold-seconds)
    step_hold_release -- a file whose existence ends the hold early (--step-hold-release)
    step_log -- file that receives, as they happen, one JSON line per step start
        ({"index", "users", "start", "measure_from"}) and per step end ({"index", "end"});
        prime and hold are logged as {"phase", "users", "start"} and {"phase", "end"}
        (no "index": readers of steps ignore them)
    All users of a phase start at once: the step's warm-up absorbs the ramp. The phases are
    the table `stages()`; a step's logged start is when the shape saw it begin (ticks are 1 s
    apart), which is also when the previous phase is logged as ended.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._forget()

    def _forget(self) -> None:
        self._current: int | None = None       # row of the phase running, None before the first
        self._table: list[dict] | None = None  # built from the options when a run starts

    def reset_time(self):
        """A new run (the web UI may have changed the options): start the table afresh."""
        super().reset_time()
        self._forget()

    def _plan(self) -> tuple[list[dict], float, str]:
        o = self.runner.environment.parsed_options
        if self._table is None:
            self._table = stages(parse_users(o.step_users), o.step_seconds,
                                 getattr(o, "step_prime_seconds", 0.0), getattr(o, "step_hold_seconds", 0.0))
        return self._table, o.step_warmup_seconds, o.step_log

    def _released(self) -> bool:
        release = getattr(self.runner.environment.parsed_options, "step_hold_release", "")
        return bool(release) and os.path.exists(release)

    def _spawn_rate(self, users: int) -> float:
        workers = getattr(self.runner, "worker_count", 0) or 1
        return min(max(users, 1) * SPAWN_PER_USER, SPAWN_PER_WORKER * workers)

    @staticmethod
    def _log(path: str, record: dict) -> None:
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(record) + "\n")

    def tick(self):
        table, warm_s, log = self._plan()
        n = phase_at(table, self.get_run_time())
        if n is not None and table[n]["phase"] == "hold" and self._released():
            n = None
        if n != self._current:
            now = time.time()
            if self._current is not None:
                was = table[self._current]
                self._log(log, {"index": was["index"], "end": now} if was["phase"] == "step"
                          else {"phase": was["phase"], "end": now})
            if n is not None:
                row = table[n]
                self._log(log, {"index": row["index"], "users": row["users"], "start": now,
                                "measure_from": now + warm_s} if row["phase"] == "step"
                          else {"phase": row["phase"], "users": row["users"], "start": now})
            self._current = n
        if n is None:
            return None
        users = table[n]["users"]
        return users, self._spawn_rate(users)
