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


def run_components(injection: Injection, *, runs: int = 30, profile_runs: int = 3) -> ComponentRun:
    """Run every component test of the shop with ``injection`` active in this process."""
    if runs < 2:
        raise ValueError(f"runs must be >= 2, got {runs!r}")
    t0 = time.perf_counter()
    tests = {name: test for suite in SUITES.values() for name, test in suite.items()}
    previous = shop_injection.active()
    shop_injection.configure(injection)
    try:
        for test in tests.values():  # warm-up: imports, caches
            test()
        times: dict[str, list[float]] = {name: [] for name in tests}
        for _ in range(runs):
            for name, test in tests.items():
                start = time.thread_time()
                test()
                times[name].append(time.thread_time() - start)
        profiler = cProfile.Profile()
        for _ in range(profile_runs):
            for test in tests.values():
                profiler.runcall(test)
        stats = pstats.Stats(profiler)
    finally:
        shop_injection.configure(previous)
    return ComponentRun(
        times={name: np.asarray(v) for name, v in times.items()},
        profile=stats,
        wall_s=time.perf_counter() - t0,
    )
