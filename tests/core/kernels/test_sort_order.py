"""The sorting order every resampling scheme starts from.

``sort_order`` replaces NumPy's stable argsort for speed; it must be the
same permutation, so that no resampled number (the last bits of a
resampled mean included) depends on how a sort breaks ties.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from perfstats._rng import stream_key
from perfstats.precision._resampling import make_scheme, named_distribution, sort_order

# Few distinct values, so that long runs of ties are the rule; signed
# zeros and NaNs compare in ways a run detector can get wrong.
tied = st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, np.nan, 1e300, -np.inf])


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 400), elements=tied))
def test_sort_order_is_the_stable_argsort_with_ties(x: np.ndarray) -> None:
    assert np.array_equal(sort_order(x), np.argsort(x, kind="stable"))


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 3000), elements=st.floats(-1e6, 1e6)))
def test_sort_order_is_the_stable_argsort_of_any_floats(x: np.ndarray) -> None:
    assert np.array_equal(sort_order(x), np.argsort(x, kind="stable"))


def test_signed_zeros_keep_their_positions() -> None:
    x = np.array([0.0, -0.0, 0.0, -0.0, -1.0])
    order = sort_order(x)
    assert order.tolist() == [4, 0, 1, 2, 3]
    assert [np.signbit(v) for v in x[order]] == [True, False, True, False, True]


@pytest.mark.parametrize("block_length", [None, 7])
def test_a_resampled_mean_of_tied_data_is_the_stable_orders(block_length: int | None) -> None:
    # The mean adds tied ranks' values in rank order: with ties broken as
    # NumPy's default sort leaves them, its last bits changed on this sample.
    x = np.round(np.random.default_rng(5).gamma(3.0, 2.0, 1000), 1)
    assert np.array_equal(make_scheme(x, block_length, "moving").order,
                          np.argsort(x, kind="stable"))  # fmt: skip
    key = stream_key(2)
    stable = named_distribution(x, "mean", 300, block_length, "moving", key,
                                order=np.argsort(x, kind="stable"))  # fmt: skip
    assert np.array_equal(named_distribution(x, "mean", 300, block_length, "moving", key), stable)
