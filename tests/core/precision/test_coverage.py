"""Coverage by simulation: the fast part (the full table is benchmarks/interval_coverage.py)."""

from __future__ import annotations

import math

from benchmarks.interval_coverage import GENERATORS, coverage

GEN = {g.name: g for g in GENERATORS}


def _floor(level: float, reps: int) -> float:
    # three Monte Carlo standard errors below the nominal level
    return level - 3 * math.sqrt(level * (1 - level) / reps)


def test_order_covers_at_least_nominally() -> None:
    reps = 400
    for name in ("normal", "lognormal", "pareto", "mixture"):
        cov = coverage(GEN[name], 30, "order", reps, seed=1)
        assert min(cov.values()) >= _floor(0.95, reps), (name, cov)


def test_bootstrap_methods_cover_iid_data() -> None:
    reps = 300
    for method in ("bootstrap", "exact-bootstrap"):
        for name in ("lognormal", "mixture"):
            cov = coverage(GEN[name], 100, method, reps, seed=2, n_resamples=500)
            assert all(0.88 <= c <= 0.99 for c in cov.values()), (method, name, cov)


def test_block_bootstrap_covers_ar1_where_iid_bootstrap_does_not() -> None:
    reps = 150
    block = coverage(GEN["lognormal-AR1"], 1000, "block", reps, seed=3, n_resamples=500)
    iid = coverage(GEN["lognormal-AR1"], 1000, "bootstrap", reps, seed=3, n_resamples=500)
    assert all(0.85 <= c <= 0.99 for c in block.values()), block
    assert all(c < 0.85 for c in iid.values()), iid
    assert all(b > i + 0.05 for b, i in zip(block.values(), iid.values(), strict=True))
