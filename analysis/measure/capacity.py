"""Capacity in concurrent users with think time, by the interactive response-time law.

N = X·(R + Z); at the critical point of a zero-think-time run N* = X·R, so a system whose
maximum throughput is X serves N = N* + X·Z users thinking Z seconds between requests.
"""
from __future__ import annotations

from dataclasses import dataclass

LAW = "interactive response-time law"
FORMULA = "N = N* + X·Z"


@dataclass(frozen=True)
class Capacity:
    throughput: float      # X, requests/s at the critical point
    critical_users: float  # N*
    think_time_s: float    # Z
    users: float           # N

    def to_json(self) -> dict:
        return {"law": LAW, "formula": FORMULA, "throughput": self.throughput,
                "critical_users": self.critical_users, "think_time_s": self.think_time_s,
                "users": self.users}

    def sentence(self) -> str:
        return (f"{LAW}: {FORMULA} = {self.critical_users:g} + {self.throughput:.4g} × "
                f"{self.think_time_s:g} s = {self.users:.0f} users")


def capacity(throughput: float, critical_users: float, think_time_s: float) -> Capacity:
    """Users the system serves at throughput X with think time Z: N = N* + X·Z."""
    if throughput is None or throughput < 0:
        raise ValueError("throughput must be >= 0")
    if critical_users is None or critical_users < 0:
        raise ValueError("critical users must be >= 0")
    if think_time_s is None or think_time_s < 0:
        raise ValueError("think time must be >= 0")
    return Capacity(throughput, critical_users, think_time_s,
                    critical_users + throughput * think_time_s)
