"""Side-by-side timing of perfstats against an anchor implementation.

Each ``benchmarks/cases_*.py`` module exposes ``cases(quick: bool) ->
list[SpeedCase]``; ``benchmarks/speed.py`` collects them. Both sides of a case
are timed alternately in the same process (median of repeats, after a warm-up
call that also pays numba's JIT), so machine noise hits both alike.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SpeedCase:
    """One timed comparison: ``ratio = anchor_s / perfstats_s``."""

    name: str
    perfstats: Callable[[], object]
    anchor: str
    anchor_fn: Callable[[], object]


def _once(fn: Callable[[], object], inner: int) -> float:
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def _inner_count(fn: Callable[[], object], target_s: float) -> int:
    """Repeat fast calls so one timing spans at least ``target_s``."""
    one = _once(fn, 1)
    return max(1, min(10_000, int(target_s / max(one, 1e-7))))


def time_case(case: SpeedCase, *, repeats: int = 7, target_s: float = 0.02) -> dict[str, Any]:
    """Median time of each side over ``repeats`` alternating rounds."""
    case.perfstats()
    case.anchor_fn()
    inner_p = _inner_count(case.perfstats, target_s)
    inner_a = _inner_count(case.anchor_fn, target_s)
    tp: list[float] = []
    ta: list[float] = []
    for _ in range(repeats):
        tp.append(_once(case.perfstats, inner_p))
        ta.append(_once(case.anchor_fn, inner_a))
    p = statistics.median(tp)
    a = statistics.median(ta)
    return {
        "name": case.name,
        "perfstats_s": p,
        "anchor": case.anchor,
        "anchor_s": a,
        "ratio": a / p,
    }
