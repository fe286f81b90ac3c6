"""Forking after a parallel kernel ran never hangs the child."""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import perfstats
from perfstats._kernels.threads import fixed_threads
from perfstats.rules import Metior, SuperFlow

# Large enough that every kernel takes its parallel twin when threads are forced.
X = np.random.default_rng(0).lognormal(0.0, 0.3, 60_000)
Y = X * 1.02

CALLS: dict[str, Callable[[], Any]] = {
    "percentile_ci/bootstrap": lambda: perfstats.percentile_ci(
        X, [0.25, 0.5], method="bootstrap", rng=1, engine="direct"
    ),
    "percentile_ci/block": lambda: perfstats.percentile_ci(X, 0.5, method="block", rng=1),
    "bootstrap_distribution": lambda: perfstats.bootstrap_distribution(X, "mean", rng=1),
    "relative_change": lambda: perfstats.relative_change(X, Y, rng=1, n_resamples=2000),
    "compare": lambda: perfstats.compare(X[:3000], Y[:3000], rng=1, n_resamples=2000),
    "change_points": lambda: perfstats.change_points(X[:2000], rng=1),
    "SuperFlow": lambda: SuperFlow(method="bootstrap").check(X[:5000]),
    "Metior": lambda: Metior().check(X[:5000]),
}


def _child(name: str, out: Any) -> None:
    out.put((name, repr(CALLS[name]())[:40]))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_child_forked_after_a_parallel_kernel_finishes(name: str) -> None:
    with fixed_threads(2):
        parent = repr(CALLS[name]())[:40]
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_child, args=(name, out))
    child.start()
    child.join(timeout=120)
    if child.is_alive():
        child.kill()
        pytest.fail(f"the forked child hung in {name}")
    assert child.exitcode == 0
    # Serial in the child, parallel in the parent: the same numbers.
    assert out.get(timeout=5) == (name, parent)
