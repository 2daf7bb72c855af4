"""An experiment file's [scale] table and the value that asks for a scaled wait: what the file
says about scaling the service wait to the host, checked where it enters. The rule that chooses
the wait from these settings and the measured costs is testbed.fit.scaling's."""
from __future__ import annotations

from dataclasses import dataclass

from testbed.experiment.plan import DefinitionError, unknown

SCALE_KEYS = ("share", "unscaled_wait_us", "min_wait_us", "max_wait_us")
AUTO = "auto"                     # demands.SERVICE = { wait_us = "auto" }: chosen by testbed.fit.scaling
SCALED_POINT = "SERVICE"


@dataclass(frozen=True)
class ScaleSettings:
    """share -- the largest lock-bound run may need at most this share of each CPU group
    unscaled_wait_us -- the wait an "auto" demand runs with --no-scale (or when nothing was measured)
    min_wait_us, max_wait_us -- the chosen wait stays within these
    """
    share: float = 0.6
    unscaled_wait_us: int = 20_000
    min_wait_us: int = 1_000
    max_wait_us: int = 100_000

    @classmethod
    def parse(cls, table: dict, where: str) -> "ScaleSettings":
        if not isinstance(table, dict):
            raise DefinitionError(f"{where}: scale must be a table ([scale] share = 0.6, ...)")
        unknown(table, SCALE_KEYS, f"{where} [scale]")
        kw: dict = {}
        share = table.get("share", cls.share)
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.05 <= share <= 0.95:
            raise DefinitionError(f"{where}: scale.share must be a fraction from 0.05 to 0.95 "
                                  f"(0.6 = 60 % of the host; got {share!r})")
        kw["share"] = float(share)
        for key in ("unscaled_wait_us", "min_wait_us", "max_wait_us"):
            v = table.get(key, getattr(cls, key))
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 60_000_000:
                raise DefinitionError(f"{where}: scale.{key} must be a whole number of µs, 0..60000000 "
                                      f"(got {v!r})")
            kw[key] = v
        if kw["min_wait_us"] > kw["max_wait_us"]:
            raise DefinitionError(f"{where}: scale.min_wait_us ({kw['min_wait_us']}) is above "
                                  f"scale.max_wait_us ({kw['max_wait_us']})")
        return cls(**kw)
