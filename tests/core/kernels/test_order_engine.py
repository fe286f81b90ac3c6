"""The order-statistic engine draws the same distribution as direct resampling.

Not the same numbers: each engine is compared with the other by two-sample
Kolmogorov-Smirnov tests over many samples, quantiles and sizes at fixed
seeds, and with NumPy resampling where the sample is large.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from support.samples import sample

import perfstats
from perfstats._kernels.threads import fixed_threads, one_thread


def test_order_engine_matches_direct_resampling_in_distribution() -> None:
    rng = np.random.default_rng(2024)
    pvalues = []
    for n in (1, 2, 5, 17, 60, 333, 2500):
        for kind in range(4):
            x = sample(kind, n, rng)
            for q in (0.0, 0.1, 0.5, 0.77, 1.0):
                seed = int(rng.integers(1 << 30))
                a = perfstats.bootstrap_distribution(
                    x, q, n_resamples=2000, rng=seed, engine="order"
                )
                b = perfstats.bootstrap_distribution(
                    x, q, n_resamples=2000, rng=seed, engine="direct"
                )
                if np.ptp(np.concatenate([a, b])) == 0:
                    assert np.array_equal(a, b)  # one possible value
                    continue
                pvalues.append(st.ks_2samp(a, b).pvalue)
    p = np.array(pvalues)
    assert p.size > 100
    # Under equality the p-values are (conservatively, with ties) uniform.
    assert p.min() > 1e-4
    assert np.mean(p < 0.05) < 0.1
    assert np.mean(p < 0.2) < 0.3


def test_order_engine_matches_numpy_resampling_of_a_large_sample() -> None:
    x = np.random.default_rng(5).lognormal(2.0, 0.7, 20_000)
    qs = [0.05, 0.5, 0.99]
    ours = np.column_stack(
        [perfstats.bootstrap_distribution(x, q, n_resamples=3000, rng=9) for q in qs]
    )
    rng = np.random.default_rng(10)
    ref = np.array([np.quantile(x[rng.integers(0, x.size, x.size)], qs) for _ in range(1500)])
    for i in range(len(qs)):
        assert st.ks_2samp(ours[:, i], ref[:, i]).pvalue > 1e-3


def test_quantiles_of_one_call_are_one_resample_and_do_not_depend_on_the_others() -> None:
    x = np.random.default_rng(6).gamma(2.0, 3.0, 5000)
    ivs = perfstats.percentile_ci(
        x, [0.5, 0.9], method="bootstrap", n_resamples=2000, rng=7, engine="order"
    )
    for iv in ivs:
        boot = perfstats.bootstrap_distribution(x, iv.q, n_resamples=2000, rng=7, engine="order")
        assert (iv.low, iv.high) == tuple(np.quantile(boot, [0.025, 0.975]))


def test_order_engine_is_deterministic_for_any_thread_count() -> None:
    x = np.random.default_rng(8).lognormal(3.0, 0.5, 50_000)
    with one_thread():
        a = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="bootstrap", rng=3)
    with fixed_threads(2):
        b = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="bootstrap", rng=3)
    assert [(i.low, i.high) for i in a] == [(i.low, i.high) for i in b]


@pytest.mark.parametrize("per_pair", [False, True])
def test_relative_change_engines_agree_in_distribution(per_pair: bool) -> None:
    rng = np.random.default_rng(11)
    a = rng.lognormal(3.0, 0.4, 3000)
    b = a * rng.lognormal(0.03, 0.2, 3000) if per_pair else rng.lognormal(3.03, 0.4, 3000)
    kw = dict(paired=per_pair, per_pair=per_pair, level=0.95, n_resamples=4000, rng=4)
    o = perfstats.relative_change(a, b, engine="order", **kw)  # type: ignore[arg-type]
    d = perfstats.relative_change(a, b, engine="direct", **kw)  # type: ignore[arg-type]
    assert o.estimate == d.estimate
    width = d.high - d.low
    # Percentile bounds from 4,000 resamples: Monte Carlo error a few % of the width.
    assert abs(o.low - d.low) < 0.08 * width
    assert abs(o.high - d.high) < 0.08 * width


def test_order_engine_refused_where_it_does_not_apply() -> None:
    x = np.random.default_rng(1).normal(size=100)
    with pytest.raises(ValueError, match="engine"):
        perfstats.percentile_ci(x, 0.5, method="block", block_length=3, engine="order")
    with pytest.raises(ValueError, match="engine"):
        perfstats.bootstrap_distribution(x, "mean", engine="order")
    with pytest.raises(ValueError, match="engine"):
        perfstats.bootstrap_distribution(x, 0.5, engine="fast")
    with pytest.raises(ValueError, match="engine"):
        perfstats.relative_change(x + 5, x + 5, paired=True, engine="order")
