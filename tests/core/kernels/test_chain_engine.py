"""Order-statistic chains draw the same distribution as direct resampling.

Not the same numbers: the chain's resampled quantiles are compared with the
direct engine's (which counts every resampled point) by two-sample
Kolmogorov-Smirnov tests at fixed seeds, over samples with and without
ties, sizes from 1 to 5,000 and one to three quantiles at once, and the
joint law of a resample's quantiles by the distribution of their
difference.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from support.samples import sample

import perfstats
from perfstats._kernels.threads import fixed_threads, one_thread
from perfstats._rng import stream_key
from perfstats.precision._resampling import iid_quantiles_chain, make_scheme, resampled_stats
from perfstats.rules import SuperFlow
from perfstats.rules._seeds import CURRENT, judgement_seed


def _direct(x: np.ndarray, qs: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    return resampled_stats(make_scheme(x, None, "moving"), qs, False, n_resamples, stream_key(seed))


def test_chain_matches_direct_resampling_in_distribution() -> None:
    rng = np.random.default_rng(2025)
    pvalues = []
    for n in (1, 2, 5, 17, 60, 333, 1000, 5000):
        for kind in range(4):
            x = sample(kind, n, rng)
            for qs in ([0.5], [0.0, 0.77], [0.25, 0.5, 0.75], [1.0, 0.1, 0.9]):
                q = np.array(qs)
                seed = int(rng.integers(1 << 30))
                a = iid_quantiles_chain(np.sort(x), q, 2000, stream_key(seed))
                b = _direct(x, q, 2000, seed + 1)
                for i in range(q.size):
                    if np.ptp(np.concatenate([a[:, i], b[:, i]])) == 0:
                        assert np.array_equal(a[:, i], b[:, i])  # one possible value
                        continue
                    pvalues.append(st.ks_2samp(a[:, i], b[:, i]).pvalue)
    p = np.array(pvalues)
    assert p.size > 200
    # Under equality the p-values are (conservatively, with ties) uniform.
    assert p.min() > 1e-4
    assert np.mean(p < 0.05) < 0.1
    assert np.mean(p < 0.2) < 0.3


@pytest.mark.parametrize(
    ("seed", "n", "qs"),
    [(1, 1000, (0.25, 0.5, 0.75)), (2, 300, (0.1, 0.9)), (3, 4000, (0.5, 0.99))],
)
def test_chain_quantiles_of_one_resample_have_the_joint_law_of_direct_ones(
    seed: int, n: int, qs: tuple[float, ...]
) -> None:
    """The spread between a resample's quantiles (not only each marginal) is the direct one's."""
    x = np.random.default_rng(seed).lognormal(3.0, 0.6, n)
    q = np.array(qs)
    a = iid_quantiles_chain(np.sort(x), q, 4000, stream_key(seed))
    b = _direct(x, q, 4000, seed + 100)
    assert np.all(np.diff(a, axis=1) >= 0)
    assert st.ks_2samp(a[:, -1] - a[:, 0], b[:, -1] - b[:, 0]).pvalue > 1e-3
    for i in range(q.size):
        assert st.ks_2samp(a[:, i], b[:, i]).pvalue > 1e-3


def test_chain_matches_numpy_resampling_of_a_sample_with_ties() -> None:
    x = np.random.default_rng(5).integers(0, 40, 700).astype(float)
    qs = [0.05, 0.5, 0.99]
    chain = np.column_stack(
        [
            perfstats.bootstrap_distribution(x, q, n_resamples=3000, rng=9, engine="chain")
            for q in qs
        ]
    )
    rng = np.random.default_rng(10)
    ref = np.array([np.quantile(x[rng.integers(0, x.size, x.size)], qs) for _ in range(1500)])
    for i in range(len(qs)):
        assert st.ks_2samp(chain[:, i], ref[:, i]).pvalue > 1e-3


def test_chain_is_deterministic_for_any_thread_count() -> None:
    x = np.random.default_rng(8).lognormal(3.0, 0.5, 1000)
    kw = dict(method="bootstrap", n_resamples=20_000, rng=3, engine="chain")
    with one_thread():
        a = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], **kw)  # type: ignore[arg-type]
    with fixed_threads(2):
        b = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], **kw)  # type: ignore[arg-type]
    assert [(i.low, i.high) for i in a] == [(i.low, i.high) for i in b]


def test_chain_interval_agrees_with_the_direct_interval() -> None:
    x = np.random.default_rng(12).gamma(2.0, 3.0, 800)
    kw = dict(method="bootstrap", n_resamples=8000, rng=5)
    c = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], engine="chain", **kw)  # type: ignore[arg-type]
    d = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], engine="direct", **kw)  # type: ignore[arg-type]
    for ic, idr in zip(c, d, strict=True):
        assert ic.estimate == idr.estimate
        width = idr.high - idr.low
        # Percentile bounds from 8,000 resamples: Monte Carlo error a few % of the width.
        assert abs(ic.low - idr.low) < 0.1 * width
        assert abs(ic.high - idr.high) < 0.1 * width


def test_superflow_bootstrap_draws_its_intervals_by_chains() -> None:
    x = np.random.default_rng(13).lognormal(3.0, 0.05, 400)
    rule = SuperFlow(method="bootstrap", rng=4)
    got = rule.check(x).details["current"]
    ivs = perfstats.percentile_ci(
        x,
        [0.25, 0.5, 0.75],
        method="bootstrap",
        n_resamples=1000,
        rng=judgement_seed(rule.seed, x.size, CURRENT),
        engine="chain",
    )
    assert [got[k]["low"] for k in got] == [iv.low for iv in ivs]
    assert [got[k]["high"] for k in got] == [iv.high for iv in ivs]


def test_chain_refused_where_it_does_not_apply() -> None:
    x = np.random.default_rng(1).normal(size=100)
    with pytest.raises(ValueError, match="engine"):
        perfstats.percentile_ci(x, 0.5, method="block", block_length=3, engine="chain")
    with pytest.raises(ValueError, match="engine"):
        perfstats.bootstrap_distribution(x, "mean", engine="chain")
