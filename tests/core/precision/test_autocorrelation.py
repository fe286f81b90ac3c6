"""perfstats.acf against statsmodels' biased autocorrelation estimator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.tsa.stattools import acf as sm_acf

import perfstats


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=400),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    phi=st.floats(min_value=-0.95, max_value=0.95),
)
def test_acf_equals_statsmodels(n: int, seed: int, phi: float) -> None:
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0]
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    for nlags in (None, 0, n - 1):
        ours = perfstats.acf(x, nlags=nlags)
        ref = sm_acf(x, nlags=nlags, adjusted=False, fft=False)
        assert ours.shape == ref.shape
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-10)


def test_acf_of_ar1_decays() -> None:
    rng = np.random.default_rng(3)
    x = np.zeros(20_000)
    for t in range(1, x.size):
        x[t] = 0.7 * x[t - 1] + rng.standard_normal()
    r = perfstats.acf(x, nlags=3)
    np.testing.assert_allclose(r, [1.0, 0.7, 0.49, 0.343], atol=0.03)


@pytest.mark.parametrize(
    ("values", "nlags", "match"),
    [
        ([1.0, 1.0, 1.0], None, "constant"),
        ([1.0], None, "at least 2"),
        ([1.0, np.nan, 2.0], None, "finite"),
        ([1.0, 2.0, 3.0], 3, "nlags"),
        ([1.0, 2.0, 3.0], -1, "nlags"),
        ("abc", None, "string"),
    ],
)
def test_acf_rejects_bad_input(values: object, nlags: int | None, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        perfstats.acf(values, nlags=nlags)
