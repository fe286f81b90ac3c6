"""The local component benchmark of the example shop (Liao et al., III-A).

Every component test of the three services runs ``runs`` times in this
process (interleaved, so that drift hits all components alike), giving
per-run times, and the whole suite runs once more under ``cProfile``,
giving the profile the local call graph is built from. The per-run times
are the thread's CPU time: on a machine shared with other busy processes a
wall-clock time of a few milliseconds mostly measures how often the
scheduler preempted the test, not the test.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from dataclasses import dataclass, field

import numpy as np

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

    The versions alternate run by run (as in randomized multiple interleaved
    trials), so that a change of the machine's speed while they run hits
    both alike instead of looking like a regression. The profile is of the
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
        for _ in range(runs):
            for i, version in enumerate(versions):
                shop_injection.configure(version)
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
