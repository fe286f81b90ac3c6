"""perfstats.local_deviation: Liao et al.'s local test (rank-sum + Cliff's delta + MD)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import perfstats


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    shift=st.floats(min_value=-0.5, max_value=2.0),
    n=st.integers(min_value=5, max_value=60),
)
def test_matches_scipy_and_pairwise_counts(seed: int, shift: float, n: int) -> None:
    rng = np.random.default_rng(seed)
    before = rng.lognormal(0.0, 0.3, size=n)
    after = rng.lognormal(0.0, 0.3, size=n + 3) * (1.0 + shift)
    res = perfstats.local_deviation(before, after)
    ref_p = stats.mannwhitneyu(after, before, alternative="two-sided").pvalue
    assert res.pvalue == pytest.approx(ref_p, rel=1e-12)
    pairs = np.sign(after[:, None] - before[None, :])
    assert res.cliffs_delta == pytest.approx(pairs.mean(), abs=1e-12)
    assert res.md == pytest.approx(after.mean() - before.mean(), rel=1e-12)
    assert res.relative_difference == pytest.approx(res.md / before.mean(), rel=1e-12)
    d = abs(res.cliffs_delta)
    expected = (
        "negligible" if d < 0.147 else "small" if d < 0.33 else "medium" if d < 0.474 else "large"
    )
    assert res.magnitude == expected
    assert res.deviated == (res.pvalue <= 0.05 and expected != "negligible")


def test_slower_component_deviates_with_positive_md() -> None:
    rng = np.random.default_rng(7)
    before = rng.normal(0.020, 0.001, size=30)
    after = rng.normal(0.030, 0.001, size=30)  # a 50% busy-wait
    res = perfstats.local_deviation(before, after, unit="s")
    assert res.deviated and res.magnitude == "large" and res.cliffs_delta == 1.0
    assert res.md == pytest.approx(0.010, abs=0.001)
    assert res.unit == "s" and (res.n_before, res.n_after) == (30, 30)


def test_faster_component_deviates_with_negative_md() -> None:
    rng = np.random.default_rng(8)
    before = rng.normal(0.030, 0.001, size=30)
    res = perfstats.local_deviation(before, before * 0.8)
    assert res.deviated and res.md < 0 and res.cliffs_delta < 0


def test_tiny_shift_with_huge_samples_is_significant_but_not_deviated() -> None:
    rng = np.random.default_rng(9)
    before = rng.normal(1.0, 0.1, size=200_000)
    after = rng.normal(1.003, 0.1, size=200_000)
    res = perfstats.local_deviation(before, after)
    assert res.pvalue < 1e-6  # the test alone would flag it
    assert res.magnitude == "negligible" and not res.deviated


def test_same_sample_does_not_deviate() -> None:
    x = np.linspace(1.0, 2.0, 30)
    res = perfstats.local_deviation(x, x)
    assert not res.deviated and res.md == 0.0 and res.cliffs_delta == 0.0


def test_alpha_is_applied() -> None:
    rng = np.random.default_rng(11)
    before = rng.normal(1.0, 0.2, size=20)
    after = rng.normal(1.12, 0.2, size=20)
    res = perfstats.local_deviation(before, after)
    strict = perfstats.local_deviation(before, after, alpha=res.pvalue / 2)
    loose = perfstats.local_deviation(before, after, alpha=min(0.99, res.pvalue * 2))
    assert not strict.deviated
    assert loose.deviated == (loose.magnitude != "negligible")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"unit": ("ms", "s")}, "different units"),
        ({"unit": "minutes"}, "unit must be one of"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": 1.5}, "alpha"),
    ],
)
def test_bad_options(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        perfstats.local_deviation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], **kwargs)  # type: ignore[arg-type]


def test_bad_samples() -> None:
    with pytest.raises(ValueError, match="before is empty"):
        perfstats.local_deviation([], [1.0])
    with pytest.raises(ValueError, match="after must contain only finite"):
        perfstats.local_deviation([1.0], [1.0, float("nan")])
    with pytest.raises(ValueError, match="positive mean"):
        perfstats.local_deviation([0.0, 0.0], [1.0, 1.0])
