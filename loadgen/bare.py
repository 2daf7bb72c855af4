"""The plainest Locust user on /seg/1: the yardstick of the loadgen-efficiency benchmark
(`./testbed run loadgen-efficiency`), which compares it with the testbed's Seg1StaticPage
(run there by its earlier name, Seg1User).

    BareSeg1User  /seg/1 with FastHttpUser's defaults: one task, no wait, no options read
"""
from __future__ import annotations

from locust import FastHttpUser, constant, task


class BareSeg1User(FastHttpUser):
    """GET /seg/1 back to back; nothing else."""
    wait_time = constant(0)

    @task
    def seg1(self):
        self.client.get("/seg/1")
