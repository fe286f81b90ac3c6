"""compare(): one result holding every comparison statistic of two samples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from perfstats.comparison import Comparison, compare
from perfstats.comparison.change import relative_change
from perfstats.comparison.effects import cliffs_delta, wilcoxon_ranksum, wilcoxon_signedrank
from perfstats.comparison.similarity import kl_similarity, ks, namd


@pytest.fixture(scope="module")
def samples() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(31)
    base = rng.lognormal(4.0, 0.2, 200)
    return base, base * rng.lognormal(0.05, 0.02, 200)


def test_fields_equal_the_individual_statistics(samples: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = samples
    res = compare(a, b, n_resamples=2000, rng=4, grid=500)
    assert (res.n_a, res.n_b) == (200, 200)
    assert res.ks == ks(a, b)
    assert res.namd == namd(a, b)
    assert res.kl_similarity == kl_similarity(a, b, grid=500)
    assert res.cliffs_delta == cliffs_delta(b, a)  # effect of b relative to a
    assert res.ranksum == wilcoxon_ranksum(b, a)
    assert res.signedrank is None
    assert res.change == relative_change(a, b, n_resamples=2000, rng=4)


def test_paired_adds_signed_rank_and_paired_forms(samples: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = samples
    res = compare(a, b, paired=True, statistic=0.9, level=0.95, n_resamples=2000, rng=4)
    assert res.signedrank == wilcoxon_signedrank(b, a)
    assert res.namd == namd(a, b, paired=True)
    assert res.change == relative_change(
        a, b, paired=True, statistic=0.9, level=0.95, n_resamples=2000, rng=4
    )
    assert res.change.direction == "slower" and res.liao_changed
    ratios = compare(a, b, paired=True, per_pair=True, n_resamples=2000, rng=4)
    assert ratios.change == relative_change(a, b, paired=True, per_pair=True, n_resamples=2000,
                                            rng=4)  # fmt: skip
    assert ratios.change.per_pair


def test_liao_verdict_needs_both_parts() -> None:
    rng = np.random.default_rng(2)
    # large n: significant but negligible effect
    a, b = rng.normal(100, 10, 20000), rng.normal(101, 10, 20000)
    res = compare(a, b, n_resamples=200, rng=1)
    assert res.ranksum.pvalue < 0.05 and res.cliffs_delta.negligible
    assert not res.liao_changed
    # small n: a sizeable effect that is not significant
    a, b = np.array([10.0, 12.0, 14.0]), np.array([11.0, 13.0, 15.0])
    res = compare(a, b, n_resamples=200, rng=1)
    assert not res.cliffs_delta.negligible and res.ranksum.pvalue >= 0.05
    assert not res.liao_changed


def test_to_frame(samples: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = samples
    res = compare(a, b, paired=True, n_resamples=1000, rng=2)
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["value", "low", "high", "pvalue", "verdict"]
    assert list(frame.index) == [
        "ks",
        "namd",
        "kl_similarity",
        "cliffs_delta",
        "wilcoxon_ranksum",
        "wilcoxon_signedrank",
        "relative_change",
    ]
    assert frame.loc["ks", "pvalue"] == res.ks.pvalue
    assert frame.loc["relative_change", "low"] == res.change.low
    assert frame.loc["relative_change", "verdict"] == res.change.direction
    assert frame.loc["cliffs_delta", "verdict"] == res.cliffs_delta.magnitude
    assert math.isnan(frame.loc["namd", "pvalue"])
    unpaired = compare(a, b, n_resamples=200, rng=2).to_frame()
    assert "wilcoxon_signedrank" not in unpaired.index


def test_repr_is_readable(samples: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = samples
    text = repr(compare(a, b, paired=True, n_resamples=500, rng=3))
    lines = text.splitlines()
    assert lines[0] == "Comparison(n_a=200, n_b=200)"
    for label in ("KS statistic", "NAMD", "KL similarity", "Cliff's delta", "rank-sum",
                  "signed-rank", "relative change", "Liao et al."):  # fmt: skip
        assert any(line.strip().startswith(label) for line in lines), label
    assert isinstance(compare(a, b, n_resamples=100, rng=3), Comparison)


def test_bad_input_propagates() -> None:
    with pytest.raises(ValueError, match="a has zero variance"):
        compare([5.0, 5.0, 5.0], [4.0, 5.0, 6.0], n_resamples=100, rng=1)
    with pytest.raises(ValueError, match="equal length"):
        compare([1.0, 2.0, 3.0], [1.0, 2.0], paired=True)
    with pytest.raises(ValueError, match=r"b\[1\]"):
        compare([1.0, 2.0], [1.0, math.nan])
    with pytest.raises(ValueError, match="grid must be >= 1"):
        compare([1.0, 2.0], [1.0, 3.0], grid=0, n_resamples=100, rng=1)
