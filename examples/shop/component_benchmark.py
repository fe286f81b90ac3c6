"""The local component benchmark of the example shop (Liao et al., III-A).

Every component test of the three services runs ``runs`` times in this
process (interleaved, so that drift hits all components alike), giving
per-run times, and the whole suite runs once more under ``cProfile``,
giving the profile the local call graph is built from. The per-run times
are the thread's CPU time: on a machine shared with other busy processes a
wall-clock time of a few milliseconds mostly measures how often the
scheduler preempted the test, not the test.

On this machine (a KVM guest) the same test takes 1.2 ms for a few seconds
and 2.0 ms for the next few, in thread CPU time as in wall time. A ratio of
the two versions' means then depends on how many runs of each fell into
the slow phases; the median of per-run ratios (:func:`relative_changes`,
duet benchmarking's reading of its pairs) does not.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

import perfstats
from examples.shop import injection as shop_injection
from examples.shop.component_tests import SUITES
from examples.shop.injection import Injection


@dataclass(frozen=True)
class ComponentRun:
    """Per-run CPU times (seconds) of each component test, and the suite's profile."""

    times: dict[str, np.ndarray] = field(repr=False)
    profile: pstats.Stats = field(repr=False)
    wall_s: float


def run_components(
    before: Injection, after: Injection, *, runs: int = 30, profile_runs: int = 3
) -> tuple[ComponentRun, ComponentRun]:
    """Run every component test of the shop on two versions, ``runs`` times each.

    The versions alternate run by run, in the order before-after, then
    after-before (as in randomized multiple interleaved trials), so that a
    change of the machine's speed while they run hits both alike instead of
    looking like a regression; run ``i`` of the two versions is a pair
    (:func:`relative_changes`). The profile is of the
    original version (``before``), whose call graph the local graph is.
    """
    if runs < 2:
        raise ValueError(f"runs must be >= 2, got {runs!r}")
    t0 = time.perf_counter()
    tests = {name: test for suite in SUITES.values() for name, test in suite.items()}
    versions = (before, after)
    times: list[dict[str, list[float]]] = [{name: [] for name in tests} for _ in versions]
    walls = [0.0, 0.0]
    previous = shop_injection.active()
    try:
        for version in versions:  # warm-up: imports, caches
            shop_injection.configure(version)
            for test in tests.values():
                test()
        for run in range(runs):
            # ABBA order: a drift of the machine's speed within a pair then
            # favours neither version.
            for i in (0, 1) if run % 2 == 0 else (1, 0):
                shop_injection.configure(versions[i])
                w0 = time.perf_counter()
                for name, test in tests.items():
                    start = time.thread_time()
                    test()
                    times[i][name].append(time.thread_time() - start)
                walls[i] += time.perf_counter() - w0
        shop_injection.configure(before)
        profiler = cProfile.Profile()
        for _ in range(profile_runs):
            for test in tests.values():
                profiler.runcall(test)
        stats = pstats.Stats(profiler)
    finally:
        shop_injection.configure(previous)
    total = time.perf_counter() - t0
    return tuple(  # type: ignore[return-value]
        ComponentRun(
            times={name: np.asarray(v) for name, v in times[i].items()},
            profile=stats,
            wall_s=total * walls[i] / sum(walls),
        )
        for i in range(2)
    )


def relative_changes(
    before: ComponentRun, after: ComponentRun, components: Iterable[str]
) -> dict[str, float]:
    """Per component, the median of its per-run ratios ``after / before``, minus one.

    Run ``i`` of both versions ran back to back (:func:`run_components`), so
    each ratio cancels the machine's speed at that moment; their median
    reads the change whatever share of the runs fell into a slow phase.

    References
    ----------
    L. Bulej, V. Horky, P. Tuma, F. Farquet and A. Prokopec, "Duet
    Benchmarking: Improving Measurement Accuracy in the Cloud", Proceedings
    of the ACM/SPEC International Conference on Performance Engineering
    (ICPE), 2020.
    """
    return {
        c: perfstats.relative_change(
            before.times[c], after.times[c], paired=True, per_pair=True, n_resamples=200, rng=0
        ).estimate
        for c in components
    }
