"""Values near 1e-160 and 1e160: every scale-free statistic works or says why."""

from __future__ import annotations

import numpy as np
import pytest
from support.samples import ar1

import perfstats

SCALES = (2.0**-531, 1e-160, 1e160, 2.0**531)


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("phi", [0.0, 0.6])
def test_block_length_is_scale_free(scale: float, phi: float) -> None:
    x = ar1(800, phi, 7, loc=10.0)
    base = perfstats.optimal_block_length(x)
    scaled = perfstats.optimal_block_length(x * scale)
    assert np.isfinite(scaled.circular) and np.isfinite(scaled.stationary)
    assert scaled.m == base.m
    np.testing.assert_allclose(
        [scaled.circular, scaled.stationary], [base.circular, base.stationary], rtol=1e-9
    )


def test_power_of_two_scaling_changes_no_bit() -> None:
    x = ar1(600, 0.5, 3, loc=10.0)
    base = perfstats.optimal_block_length(x)
    for k in (-600, -1, 1, 600):
        b = perfstats.optimal_block_length(x * 2.0**k)
        assert (b.circular, b.stationary) == (base.circular, base.stationary)


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize(
    "method", ["order", "order-normal", "bootstrap", "exact-bootstrap", "block"]
)
def test_every_interval_method_is_finite_and_equivariant(scale: float, method: str) -> None:
    x = ar1(400, 0.3, 11, loc=10.0) ** 2
    base = perfstats.percentile_ci(x, 0.5, method=method, rng=5)
    iv = perfstats.percentile_ci(x * scale, 0.5, method=method, rng=5)
    assert np.isfinite([iv.estimate, iv.low, iv.high]).all()
    np.testing.assert_allclose(
        [iv.estimate, iv.low, iv.high],
        np.array([base.estimate, base.low, base.high]) * scale,
        rtol=1e-9,
    )


@pytest.mark.parametrize("scale", SCALES)
def test_kl_similarity_sees_a_difference_at_any_scale(scale: float) -> None:
    rng = np.random.default_rng(2)
    a = rng.lognormal(0.0, 0.3, 500)
    b = 2.0 * rng.lognormal(0.0, 0.3, 500)
    plain = perfstats.kl_similarity(a, b)
    scaled = perfstats.kl_similarity(a * scale, b * scale)
    assert scaled < 0.5
    assert scaled == pytest.approx(plain, rel=1e-9)


@pytest.mark.parametrize("scale", SCALES)
def test_relative_change_at_any_scale(scale: float) -> None:
    rng = np.random.default_rng(4)
    a = rng.lognormal(0.0, 0.1, 300)
    b = 1.5 * rng.lognormal(0.0, 0.1, 300)
    rc = perfstats.relative_change(a * scale, b * scale, rng=1, n_resamples=2000)
    assert np.isfinite([rc.estimate, rc.low, rc.high]).all()
    assert 0.3 < rc.low < rc.estimate < rc.high < 0.7


def test_hdi_near_the_float_range_neither_overflows_nor_warns() -> None:
    import warnings

    # Sums stay finite (the input check), differences of the extremes do not.
    x = [-9.5e307, 8.0e307, 8.6e307, 9.0e307]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert perfstats.hdi(x, probability=0.5) == (8.0e307, 9.0e307)
        # Every width overflows: the narrower by halves is the first.
        y = [9.0e307, -9.5e307, 9.2e307, -9.4e307]
        assert perfstats.hdi(y, probability=0.5) == (-9.5e307, 9.0e307)
