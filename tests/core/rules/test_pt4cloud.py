"""PT4Cloud (FSE 2019; as evaluated by SuperFlow and Metior): KDE similarity."""

from __future__ import annotations

import numpy as np
from scipy import stats

from perfstats.rules import PT4Cloud


def scipy_similarity(a: np.ndarray, b: np.ndarray, grid: int = 1000) -> float:
    """ANCHORS.md's similarity, transcribed with scipy.stats.gaussian_kde."""
    lo = min(a.min(), b.min())
    hi = max(a.max(), b.max())
    step = (hi - lo) / grid
    points = lo + step * np.arange(1, grid + 1)
    p = stats.gaussian_kde(a)(points)
    q = stats.gaussian_kde(b)(points)
    kl = np.sum(p * step * np.log2(p / q) + q * step * np.log2(q / p))
    return float(2.0**-kl)


def test_similarity_is_the_kde_comparison_of_previous_and_current() -> None:
    x = np.random.default_rng(0).lognormal(3.0, 0.3, size=40)
    decision = PT4Cloud(interval=10).check(x)
    expected = scipy_similarity(x[:30], x)
    assert abs(decision.details["similarity"] - expected) < 1e-9
    assert decision.stop == (expected >= 0.9)


def test_threshold_is_inclusive() -> None:
    x = np.random.default_rng(1).lognormal(3.0, 0.3, size=60)
    similarity = PT4Cloud().check(x).details["similarity"]
    assert PT4Cloud(threshold=similarity).check(x).stop
    assert not PT4Cloud(threshold=min(1.0, similarity + 1e-9)).check(x).stop


def test_a_new_mode_in_the_last_interval_blocks_the_stop() -> None:
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(100.0, 1.0, 50), rng.normal(200.0, 1.0, 50)])
    decision = PT4Cloud(interval=50).check(x)
    assert not decision.stop
    assert decision.reason.startswith("similarity of the previous and current runs is ")
    assert decision.reason.endswith("needs at least 90.0%")


def test_stops_early_on_stable_data() -> None:
    # SuperFlow's finding (000_*, Section 3.5): on serverless traces PT4Cloud
    # stops at the first or second judgement.
    x = np.random.default_rng(3).normal(100.0, 5.0, size=200)
    rule = PT4Cloud()
    first = next(n for n in range(10, 201, 5) if rule.check(x[:n]).stop)
    assert first <= 20
    assert rule.check(x[:first]).reason.endswith("reaches the 90.0% threshold")


def test_equal_previous_runs_cannot_be_judged() -> None:
    x = np.array([5.0] * 5 + [5.0, 6.0, 5.0, 6.0, 5.0])
    decision = PT4Cloud().check(x)
    assert not decision.stop
    assert "all equal" in decision.reason
