"""The step plan of one run (the [load] keys of an experiment file) and the checks every value
of an experiment file goes through; definition.py reads the files."""
from __future__ import annotations

from dataclasses import dataclass, replace

LOAD_KEYS = ("users", "step_seconds", "warmup_seconds", "think_time", "arrival_rate",
             "max_outstanding", "workers", "prime_seconds", "hold_seconds", "target_ci",
             "min_step_seconds", "plateau_tolerance", "plateau_steps", "trace_sample",
             "warm", "warm_min_seconds", "warm_max_seconds", "warm_window_seconds", "warm_windows",
             "warm_band", "warm_jit_share")
PRIME_RELEASE = "prime.release"  # in a run's folder once the stack is measurably warm: the shape's prime ends
WARM_RULES = ("none", "steady")


class DefinitionError(ValueError):
    """The experiment file is wrong; the text names the file, the key and the fix."""


@dataclass(frozen=True)
class LoadPlan:
    """users -- users of each step
    step_seconds -- length of each step, warm-up included
    warmup_seconds -- start of each step left out of its sample
    think_time -- seconds between a user's requests (0: closed loop at full speed)
    arrival_rate -- requests/s per user on a fixed clock (open loop); 0 = closed loop
    max_outstanding -- open loop: most requests in flight per user
    workers -- Locust worker processes; 0 = one local process; "auto" = one per core of the
        load generator (LOADGEN_CPUS, else every core)
    prime_seconds -- after the stack was (re)configured for the run: load at the most users
        this long before the first step (JIT, pools); not measured (a fixed prime: see warm)
    warm -- "steady": after the stack was (re)configured, prime at the most users until the
        stack is measurably in steady state (run/record/warmth.py: the throughput of the last
        warm_windows windows of warm_window_seconds drifts by at most ± warm_band, every JVM the
        path reaches spent at most warm_jit_share of that time compiling, no full collection in
        the last window unless they recur in half the windows), not before warm_min_seconds and at most warm_max_seconds (then the run
        reads "not warm"); "none": no such prime (prime_seconds, if any, is fixed)
    hold_seconds -- after the last step, its load this long while thread dumps are taken
    target_ci -- adaptive steps (0 = off): a step ends once the 95 % confidence interval of its
        per-second throughput after the warm-up is within ± this fraction of the mean and it
        measured min_step_seconds; step_seconds is then the longest a step lasts
    min_step_seconds -- with target_ci: least measured seconds of a step (after the warm-up)
    plateau_tolerance -- stop the ramp (0 = off) once plateau_steps steps in a row did not
        raise throughput above the best earlier step by more than this fraction
    plateau_steps -- steps in a row without a rise that establish the plateau
    trace_sample -- with tracing on (./testbed up --tracing): share of requests traced through
        every tier, 0..1 (Locust's --trace-sample; docs/tracing.md); their spans are copied into
        the run's folder
    """
    users: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
    step_seconds: float = 20.0
    warmup_seconds: float = 5.0
    think_time: float = 0.0
    arrival_rate: float = 0.0
    max_outstanding: int = 100
    workers: int | str = "auto"
    prime_seconds: float = 0.0
    hold_seconds: float = 0.0
    target_ci: float = 0.0
    min_step_seconds: float = 5.0
    plateau_tolerance: float = 0.0
    plateau_steps: int = 2
    trace_sample: float = 0.01
    warm: str = "none"
    warm_min_seconds: float = 10.0
    warm_max_seconds: float = 240.0
    warm_window_seconds: float = 5.0
    warm_windows: int = 6
    warm_band: float = 0.05
    warm_jit_share: float = 0.05

    @property
    def adaptive(self) -> bool:
        """Steps may end early (interval reached) or the ramp may stop (plateau)."""
        return self.target_ci > 0 or self.plateau_tolerance > 0

    @property
    def steady(self) -> bool:
        """Primed by measurement (warm = "steady"), not for a fixed time."""
        return self.warm == "steady"

    def prime_ceiling(self) -> float:
        """The longest a cold configuration is primed: warm_max_seconds by measurement, else
        prime_seconds."""
        return self.warm_max_seconds if self.steady else self.prime_seconds

    def seconds(self, primed: bool = True) -> float:
        """Planned length of the Locust run (without start-up); with adaptive steps or a prime
        by measurement the longest it may take (every step at step_seconds, no plateau stop, the
        prime at its ceiling)."""
        return (self.prime_ceiling() if primed else 0) + len(self.users) * self.step_seconds + self.hold_seconds


def unknown(table: dict, allowed: tuple[str, ...], where: str) -> None:
    bad = [k for k in table if k not in allowed]
    if bad:
        raise DefinitionError(f"{where}: unknown key(s) {', '.join(bad)}; allowed: {', '.join(allowed)}")


def load_plan(layers: list[tuple[dict, str]], where: str) -> LoadPlan:
    values: dict = {}
    for layer, layer_where in layers:
        unknown(layer, LOAD_KEYS, layer_where)
        values.update(layer)
    kw: dict = {}
    for key, value in values.items():
        if key == "users":
            if (not isinstance(value, list) or not value
                    or not all(isinstance(u, int) and not isinstance(u, bool) and u >= 1 for u in value)):
                raise DefinitionError(f"{where}: users must be a list of whole numbers >= 1, like [1, 4, 16]")
            kw[key] = tuple(value)
        elif key == "workers":
            if value != "auto" and not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 64):
                raise DefinitionError(f"{where}: workers must be \"auto\" or 0..64 (0 = one local Locust process)")
            kw[key] = value
        elif key == "max_outstanding":
            kw[key] = whole(value, key, where, 1, 100_000)
        elif key == "plateau_steps":
            kw[key] = whole(value, key, where, 1, 10)
        elif key == "warm_windows":
            kw[key] = whole(value, key, where, 2, 60)
        elif key == "warm":
            if value not in WARM_RULES:
                raise DefinitionError(f"{where}: warm must be one of {', '.join(WARM_RULES)} (got {value!r}): "
                                      "\"steady\" primes until the stack is measurably warm")
            kw[key] = value
        else:
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise DefinitionError(f"{where}: {key} must be a number >= 0 (got {value!r})")
            kw[key] = float(value)
    plan = replace(LoadPlan(), **kw)
    if plan.step_seconds < 2 or plan.warmup_seconds >= plan.step_seconds:
        raise DefinitionError(f"{where}: need step_seconds >= 2 and warmup_seconds < step_seconds "
                              f"(got {plan.step_seconds:g} and {plan.warmup_seconds:g})")
    if plan.trace_sample > 1:
        raise DefinitionError(f"{where}: trace_sample is a share of requests from 0 to 1 (got {plan.trace_sample:g})")
    if plan.target_ci >= 1 or plan.plateau_tolerance >= 1:
        raise DefinitionError(f"{where}: target_ci and plateau_tolerance are fractions like 0.03 "
                              f"(got {plan.target_ci:g} and {plan.plateau_tolerance:g})")
    if plan.target_ci > 0 and (plan.min_step_seconds < 3
                               or plan.warmup_seconds + plan.min_step_seconds > plan.step_seconds):
        raise DefinitionError(f"{where}: with target_ci, need min_step_seconds >= 3 (the interval needs "
                              "samples) and warmup_seconds + min_step_seconds <= step_seconds (the longest "
                              f"step); got {plan.min_step_seconds:g}, {plan.warmup_seconds:g} + "
                              f"{plan.min_step_seconds:g} > {plan.step_seconds:g}")
    _check_warm(plan, where)
    return plan


def _check_warm(plan: LoadPlan, where: str) -> None:
    if plan.steady and plan.prime_seconds > 0:
        raise DefinitionError(f"{where}: warm = \"steady\" primes by measurement; prime_seconds = "
                              f"{plan.prime_seconds:g} would fix it in seconds too -- give one of them "
                              "(set prime_seconds = 0, or warm = \"none\")")
    if not 0 < plan.warm_band < 1 or not 0 < plan.warm_jit_share < 1:
        raise DefinitionError(f"{where}: warm_band and warm_jit_share are fractions like 0.05 "
                              f"(got {plan.warm_band:g} and {plan.warm_jit_share:g})")
    if plan.warm_window_seconds < 1:
        raise DefinitionError(f"{where}: warm_window_seconds must be >= 1 (got {plan.warm_window_seconds:g})")
    if plan.warm_max_seconds < plan.warm_min_seconds:
        raise DefinitionError(f"{where}: warm_max_seconds ({plan.warm_max_seconds:g}) must be >= "
                              f"warm_min_seconds ({plan.warm_min_seconds:g}): the ceiling above the floor")


def is_whole(value, lo: int, hi: int) -> bool:
    """value is an int (not a bool) in lo..hi."""
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def whole(value, key: str, where: str, lo: int, hi: int) -> int:
    if not is_whole(value, lo, hi):
        raise DefinitionError(f"{where}: {key} must be a whole number {lo}..{hi} (got {value!r})")
    return value
