"""The ziggurat's normals and exponentials, and the Gamma gaps built on them.

The strips are computed from the densities, so their outer edges must come
out as Marsaglia and Tsang's 256-strip constants, the strips must have equal
areas and close at the mode; the variates are compared with SciPy's
distributions by Kolmogorov-Smirnov tests and by chi-square tests over the
strips themselves (a wedge or tail drawn wrongly shows there first).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from perfstats._kernels import ziggurat as zg
from perfstats._kernels.orderstat import _gamma_dc, beta
from perfstats._kernels.random import stream_state


@nb.njit
def _draws(n: int, key: np.uint64, exponential: bool) -> np.ndarray:
    state = stream_state(key, 0)
    out = np.empty(n)
    for i in range(n):
        if exponential:
            state, out[i] = zg.exponential(state)
        else:
            state, out[i] = zg.normal(state)
    return out


def _normals(n: int, key: np.uint64) -> np.ndarray:
    return _draws(n, key, False)


def _exponentials(n: int, key: np.uint64) -> np.ndarray:
    return _draws(n, key, True)


@nb.njit
def _gammas(n: int, shape: float, key: np.uint64) -> np.ndarray:
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    out = np.empty(n)
    for i in range(n):
        _, out[i] = _gamma_dc(stream_state(key, i), d, c)
    return out


@nb.njit
def _betas(n: int, a: int, b: int, key: np.uint64) -> np.ndarray:
    out = np.empty(n)
    for i in range(n):
        _, out[i] = beta(stream_state(key, i), a, b)
    return out


def test_strips_reproduce_the_published_edges_and_close_at_the_mode() -> None:
    # Marsaglia & Tsang (2000): r = 3.6541528853610088 (normal) and
    # 7.69711747013104972 (exponential) for 256 strips.
    assert zg.NORMAL_R == pytest.approx(3.6541528853610088, rel=1e-12)
    assert zg.EXP_R == pytest.approx(7.69711747013104972, rel=1e-12)
    for x, f, density in (
        (zg.NORMAL_X, zg.NORMAL_F, lambda v: np.exp(-0.5 * v * v)),
        (zg.EXP_X, zg.EXP_F, lambda v: np.exp(-v)),
    ):
        assert x[-1] == 0.0 and np.all(np.diff(x) < 0)
        assert np.allclose(f, density(x))
        # Strip i >= 1 is x[i] wide and f(x[i + 1]) - f(x[i]) tall; strip 0
        # is x[0] f(x[1]) (the base rectangle plus the tail).
        areas = x[1:-1] * (f[2:] - f[1:-1])
        base = x[0] * f[1]
        assert np.allclose(areas, base, rtol=1e-9)
        assert f[-1] == 1.0


def _strip_chi2(values: np.ndarray, edges: np.ndarray, cdf: st.rv_continuous) -> float:
    """p-value of the counts between consecutive strip edges (and beyond the last)."""
    cuts = np.sort(edges)
    observed = np.histogram(values, bins=np.concatenate([cuts, [np.inf]]))[0]
    probs = np.diff(cdf.cdf(np.concatenate([cuts, [np.inf]])))
    expected = probs / probs.sum() * observed.sum()
    return float(st.chisquare(observed, expected).pvalue)


def test_normals_follow_the_normal_law_strip_by_strip() -> None:
    pvalues = []
    for key in (1, 2, 3):
        z = _normals(1_000_000, np.uint64(key))
        pvalues.append(st.kstest(z, "norm").pvalue)
        # |z| between the strips' edges: the half-normal's mass per strip.
        pvalues.append(_strip_chi2(np.abs(z), zg.NORMAL_X[1:], st.halfnorm))
        # Signs independent of magnitude: as many negatives in the tail.
        tail = z[np.abs(z) > zg.NORMAL_R]
        pvalues.append(st.binomtest(int(np.sum(tail < 0)), tail.size).pvalue)
    assert min(pvalues) > 1e-4
    assert np.mean(np.array(pvalues) < 0.05) <= 2 / len(pvalues)


def test_strip_counts_resolve_the_wedges() -> None:
    # Accepting every point of every wedge (the curve read as flat) puts
    # about half a percent too much mass in each strip: 10^7 draws see it
    # (mean chi-square shift of several times its spread), 10^6 do not.
    n = 10_000_000
    assert _strip_chi2(np.abs(_normals(n, np.uint64(21))), zg.NORMAL_X[1:], st.halfnorm) > 1e-4
    assert _strip_chi2(_exponentials(n, np.uint64(22)), zg.EXP_X[1:], st.expon) > 1e-4


def test_normal_tail_beyond_the_base_strip() -> None:
    z = np.abs(_normals(4_000_000, np.uint64(11)))
    tail = z[z > zg.NORMAL_R]
    expected = 4_000_000 * 2 * st.norm.sf(zg.NORMAL_R)
    assert abs(tail.size - expected) < 4 * math.sqrt(expected)
    truncated = st.truncnorm(zg.NORMAL_R, np.inf)
    assert st.kstest(tail, truncated.cdf).pvalue > 1e-3


def test_exponentials_follow_the_exponential_law_strip_by_strip() -> None:
    pvalues = []
    for key in (4, 5, 6):
        e = _exponentials(1_000_000, np.uint64(key))
        assert e.min() >= 0.0
        pvalues.append(st.kstest(e, "expon").pvalue)
        pvalues.append(_strip_chi2(e, zg.EXP_X[1:], st.expon))
        tail = e[e > zg.EXP_R] - zg.EXP_R
        pvalues.append(st.kstest(tail, "expon").pvalue)
    assert min(pvalues) > 1e-4
    assert np.mean(np.array(pvalues) < 0.05) <= 2 / len(pvalues)


@pytest.mark.parametrize("shape", [2.0, 3.0, 7.5, 40.0, 1000.0])
def test_gamma_gaps_follow_the_gamma_law(shape: float) -> None:
    g = _gammas(200_000, shape, np.uint64(int(shape * 10)))
    assert st.kstest(g, st.gamma(shape).cdf).pvalue > 1e-3
    assert g.mean() == pytest.approx(shape, rel=4 * math.sqrt(1.0 / (shape * 200_000)))


@settings(max_examples=15, deadline=None)
@given(a=hs.integers(1, 400), b=hs.integers(1, 400), key=hs.integers(0, 2**32))
def test_beta_draws_follow_the_beta_law(a: int, b: int, key: int) -> None:
    x = _betas(20_000, a, b, np.uint64(key))
    assert np.all((x > 0.0) & (x < 1.0))
    # Examples differ from run to run: a threshold that a correct sampler
    # misses once in a million tests, which a wrong one misses by far.
    assert st.kstest(x, st.beta(a, b).cdf).pvalue > 1e-6


def test_same_key_same_variates() -> None:
    assert np.array_equal(_normals(1000, np.uint64(9)), _normals(1000, np.uint64(9)))
    assert not np.array_equal(_normals(1000, np.uint64(9)), _normals(1000, np.uint64(10)))
