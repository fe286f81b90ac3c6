"""The set-up of benchmarks/gate_evaluation.py and benchmarks/changepoints_crosscheck.py.

The evaluations themselves take minutes and live in benchmarks/; these check
that what they build and count is what their docstrings say.
"""

from __future__ import annotations

import itertools

import numpy as np

from benchmarks.changepoints_crosscheck import block_means, matched, synthetic
from benchmarks.gate_evaluation import CHANGE, INJECTED, SUITE, build_suite


def test_suite_is_interleaved_halves_with_injection() -> None:
    rng = np.random.default_rng(0)
    traces = {"a": np.arange(1.0, 1001.0), "b": np.arange(1.0, 3001.0) * 2, "short": np.ones(10)}
    base, cont, chosen = build_suite(traces, 50, rng, injected=INJECTED)
    assert len(base) == len(cont) == SUITE and len(chosen) == INJECTED
    assert not any(":short" in k for k in base)  # too short for 2 x 50 runs
    for name in base:
        b, c = base[name], cont[name]
        assert b.size == c.size == 50
        step = 1.0 if name.endswith(":a") else 2.0
        # Contender run i came right after baseline run i in the trace.
        expected = b + step
        if name in chosen:
            expected = expected * CHANGE
        np.testing.assert_allclose(c, expected)


def test_crosscheck_helpers() -> None:
    assert matched([10, 50, 90], [11, 48, 90]) == 2
    assert matched([], [1]) == 0
    np.testing.assert_array_equal(block_means(np.arange(10.0), 3), [1.0, 4.0, 7.0])
    for x, steps in synthetic(10, seed=1):
        assert all(b - a >= 30 for a, b in itertools.pairwise(steps))
        assert 30 <= steps[0] and steps[-1] <= x.size - 30
