"""Speed cases of streaming: ``Monitor.add`` one value at a time.

The anchor is the cheapest possible bookkeeping, a plain ``list.append``
loop over the same values. The cost per add must stay flat as the history
grows: the same case is timed at 5,000, 20,000 and 50,000 adds, and the
ratio must not grow with n.
"""

from __future__ import annotations

import numpy as np

from benchmarks.speed.harness import SpeedCase
from perfstats import Monitor
from perfstats.rules import Fixed


def _monitor_adds(values: list[float]) -> object:
    m = Monitor(Fixed(n=len(values)))
    for v in values:
        m.add(v)
    return m.decision


def _list_appends(values: list[float]) -> object:
    out: list[float] = []
    for v in values:
        out.append(v)
    return out


def cases(quick: bool) -> list[SpeedCase]:
    """Monitor under ``Fixed(n=N)``, N single adds, N = 5k, 20k, 50k."""
    out = []
    for n in (5_000, 20_000, 50_000):
        values = np.random.default_rng(n).lognormal(3.0, 0.5, n).tolist()
        out.append(
            SpeedCase(
                f"Monitor, {n:,} single adds under Fixed(n={n:,})",
                lambda v=values: _monitor_adds(v),  # type: ignore[misc]
                "plain list.append loop",
                lambda v=values: _list_appends(v),  # type: ignore[misc]
            )
        )
    return out
