"""Load shapes of the testbed's experiments.

Kept apart from the users so that a run picks its shape explicitly
(`-f loadgen/locustfile.py,loadgen/shapes.py`, or the class picker of the web UI).
"""
from __future__ import annotations

import json
import time

from locust import LoadTestShape, events


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--step-users", default="1,2,4,8,16,32",
                        help="StepLoadShape: users of each step, comma-separated")
    parser.add_argument("--step-seconds", type=float, default=20.0,
                        help="StepLoadShape: length of one step, warm-up included")
    parser.add_argument("--warmup-seconds", type=float, default=5.0,
                        help="StepLoadShape: first seconds of each step, left out of its sample")
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


class StepLoadShape(LoadTestShape):
    """Raise the number of users step by step, think time as the users set it.

    step_users -- users of each step, e.g. 1,2,4,8,16,32 (--step-users)
    step_seconds -- length of each step including its warm-up (--step-seconds)
    warmup_seconds -- start of each step left out of its sample (--warmup-seconds)
    step_log -- file that receives, as they happen, one JSON line per step start
        ({"index", "users", "start", "measure_from"}) and per step end ({"index", "end"})
    All users of a step start at once: the step's warm-up absorbs the ramp.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._current = -1

    def _opts(self):
        o = self.runner.environment.parsed_options
        return parse_users(o.step_users), o.step_seconds, o.warmup_seconds, o.step_log

    def _log(self, path: str, record: dict) -> None:
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(record) + "\n")

    def tick(self):
        users, step_s, warm_s, log = self._opts()
        index = int(self.get_run_time() // step_s)
        now = time.time()
        if index != self._current:
            if self._current >= 0:
                self._log(log, {"index": self._current, "end": now})
            self._current = index
            if index < len(users):
                self._log(log, {"index": index, "users": users[index], "start": now,
                                "measure_from": now + warm_s})
        if index >= len(users):
            return None
        return users[index], max(users[index], 1) * 10.0
