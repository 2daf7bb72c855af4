"""Locust file used by make_sample.py to record the real sample run (not a test).

StepShape -- users per stage, recording each step's start/measure_from/end (epoch s) as it
happens into the JSON file named by SAMPLE_STEPS_FILE, the way the runner's load shape does.
  stages -- (users, seconds) per step
  warmup_s -- seconds at the start of each step excluded from measurement
"""
import json
import os
import time

from locust import HttpUser, LoadTestShape, constant, task


class SegmentUser(HttpUser):
    wait_time = constant(0)  # think time 0, as in the segment method

    @task
    def seg1(self):
        self.client.get("/seg/1")


class StepShape(LoadTestShape):
    stages = [(1, 10), (4, 10), (16, 10)]
    warmup_s = 2.0

    def __init__(self):
        super().__init__()
        self.steps = []

    def _save(self):
        path = os.environ.get("SAMPLE_STEPS_FILE")
        if path:
            with open(path + ".tmp", "w") as f:
                json.dump(self.steps, f, indent=1)
            os.replace(path + ".tmp", path)

    def tick(self):
        elapsed, now = self.get_run_time(), time.time()
        total = 0.0
        for index, (users, seconds) in enumerate(self.stages):
            total += seconds
            if elapsed < total:
                if len(self.steps) <= index:
                    if self.steps:
                        self.steps[-1]["end"] = now
                    self.steps.append({"index": index, "users": users, "start": now,
                                       "measure_from": now + self.warmup_s, "end": None})
                    self._save()
                return users, 100
        if self.steps and self.steps[-1]["end"] is None:
            self.steps[-1]["end"] = now
            self._save()
        return None
