"""perfstats.pelt: the functional pruning keeps the work near-linear and the answer ruptures'."""

from __future__ import annotations

import numpy as np
import pytest
import ruptures
from hypothesis import given, settings
from hypothesis import strategies as st

import perfstats
from perfstats._kernels.pelt import pelt_l2_counted
from perfstats.characterization.segmentation import default_penalty, noise_scale


def _standardised(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / noise_scale(x)


@pytest.mark.parametrize("n", [5_000, 20_000, 100_000])
def test_a_series_without_changes_costs_a_few_evaluations_per_run(n: int) -> None:
    # PELT's own pruning removes nothing here: n**2 / 2 segment costs (5e9 at n = 1e5).
    z = _standardised(np.random.default_rng(0).normal(10.0, 1.0, n))
    ends, evaluations = pelt_l2_counted(z, default_penalty(n), 10)
    assert list(ends) == [n]
    assert evaluations < 200 * n, evaluations


def test_a_series_with_many_changes_costs_a_few_evaluations_per_run() -> None:
    rng = np.random.default_rng(1)
    n = 60_000
    x = rng.normal(0.0, 1.0, n) + np.repeat(rng.normal(0.0, 3.0, 30), n // 30)
    ends, evaluations = pelt_l2_counted(_standardised(x), default_penalty(n), 10)
    assert len(ends) >= 20
    assert evaluations < 200 * n, evaluations


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    n=st.integers(min_value=300, max_value=1_200),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    kind=st.sampled_from(["flat", "shifts", "walk", "heavy"]),
    min_size=st.sampled_from([1, 3, 10, 25]),
    penalty=st.sampled_from([4.0, 20.0, None]),
)
def test_longer_series_equal_ruptures_pelt(
    n: int, seed: int, kind: str, min_size: int, penalty: float | None
) -> None:
    # Long enough for the functional pruning to run many times.
    rng = np.random.default_rng(seed)
    if kind == "flat":
        x = rng.standard_normal(n)
    elif kind == "shifts":
        x = rng.standard_normal(n) + np.repeat(rng.normal(0.0, 3.0, 6), n // 6 + 1)[:n]
    elif kind == "walk":
        x = np.cumsum(rng.standard_normal(n))
    else:
        x = rng.standard_t(2.0, n)
    ours = perfstats.pelt(x, penalty=penalty, min_size=min_size)
    pen = default_penalty(n) if penalty is None else penalty
    search = ruptures.Pelt(model="l2", min_size=min_size, jump=1)
    ref = search.fit(_standardised(x)).predict(pen=pen)
    assert ours == tuple(ref[:-1])
