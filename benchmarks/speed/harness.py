"""Side-by-side timing of perfstats against an anchor implementation.

Each ``benchmarks/speed/cases_*.py`` module exposes ``cases(quick: bool) ->
list[SpeedCase]``; ``benchmarks/speed/suite.py`` collects them. The sides of a case
(perfstats as shipped, the same perfstats call with every kernel on one
thread, and the anchor) are timed in interleaved rounds in the same process,
after a warm-up call that also pays numba's JIT, so that machine noise and
stalls hit all sides alike; the side that goes first rotates from round to
round. The time of a side is the **median** of its rounds: best-of would
hide exactly the stalls that contention causes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perfstats._kernels.threads import one_thread


@dataclass(frozen=True)
class SpeedCase:
    """One timed comparison: ``ratio = anchor_s / perfstats_s``.

    ``reference_s``: the time a paper's public reference code took for the
    same work on this machine (ANCHORS.md), when one was measured; the
    ``vs_reference`` ratio is ``reference_s / perfstats_s``.
    """

    name: str
    perfstats: Callable[[], object]
    anchor: str
    anchor_fn: Callable[[], object]
    reference_s: float | None = None


def _once(fn: Callable[[], object], inner: int) -> float:
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def _inner_count(fn: Callable[[], object], target_s: float, probes: int = 5) -> int:
    """Repeat fast calls so one timing spans at least ``target_s``.

    The call is timed from the median of ``probes`` single calls: one call
    that a busy machine happened to preempt would otherwise set a count a
    tenth of the right one.
    """
    one = statistics.median(_once(fn, 1) for _ in range(probes))
    return max(1, min(10_000, int(target_s / max(one, 1e-7))))


def _single(fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        with one_thread():
            return fn()

    return run


def time_case(case: SpeedCase, *, repeats: int = 7, target_s: float = 0.02) -> dict[str, Any]:
    """Median time of each side over ``repeats`` interleaved rounds.

    ``one_thread_s`` is the perfstats call with every kernel serial;
    ``vs_one_thread`` is the median over rounds of the round's one-thread
    time over its default time (>= 1: the default is at least as fast as
    one thread), ``vs_one_thread_of_medians = one_thread_s / perfstats_s``;
    ``vs_reference = reference_s /
    perfstats_s`` where the case has a reference-code time, else None.
    """
    single = _single(case.perfstats)
    sides = (case.perfstats, single, case.anchor_fn)
    for fn in sides:
        fn()
    # The default and the one-thread call do the same work, so they are
    # timed over the same number of calls. Beside a busy process the share
    # of a timing lost to preemption depends on its length (a timing far
    # shorter than a scheduler slice is mostly never preempted), so unequal
    # counts made identical serial code read 0.63 "vs one thread".
    shared = _inner_count(sides[0], target_s)
    inner = [shared, shared, _inner_count(sides[2], target_s)]
    times: list[list[float]] = [[], [], []]
    for r in range(repeats):
        # Rotate which side goes first: a side timed right after the anchor
        # pays for the caches the anchor evicted.
        for k in range(3):
            i = (r + k) % 3
            times[i].append(_once(sides[i], inner[i]))
    p, s, a = (statistics.median(t) for t in times)
    # Default against one thread: the median of the rounds' own ratios. The
    # two timings of a round are seconds apart, so a drift of the machine's
    # speed over the run (this VM's moves by half within a minute) cancels
    # in each ratio; the ratio of the two medians keeps it.
    pairs = zip(times[0], times[1], strict=True)
    paired = statistics.median(one / default for default, one in pairs)
    return {
        "name": case.name,
        "perfstats_s": p,
        "one_thread_s": s,
        "anchor": case.anchor,
        "anchor_s": a,
        "ratio": a / p,
        "vs_one_thread": paired,
        "vs_one_thread_of_medians": s / p,
        "reference_s": case.reference_s,
        "vs_reference": None if case.reference_s is None else case.reference_s / p,
    }
