"""Exact-bootstrap interval: exhaustive enumeration, independent references, Monte Carlo.

The kernel must return ``F^-1(a)`` and ``F^-1(1 - a)`` of the bootstrap
distribution of ``np.quantile(resample, q)``. Evidence, from strongest:

* n <= 12: every resample is enumerated (all ``n**n`` index tuples for
  n <= 6, sorted tuples with multinomial weights above); probabilities are
  exact integers, so a bound must equal the enumerated one to 1e-12.
* n up to a few hundred: an O(n^2) table of every atom ``(i, j)`` with its
  probability (SciPy binomial tails and the multinomial pair formula), no
  windows, no bisection; at n = 1e5 and 1e6 the same table restricted to
  ranks within 12 standard deviations and gaps of at most 80.
* n from 20 to 2,000: a plain NumPy percentile bootstrap with 200,000
  resamples agrees to 1% of the sample's interquartile range, except where
  the simulation is itself unresolved (a neighbouring atom within Monte
  Carlo error of ``p``, a whole data gap away in a heavy tail): there the
  exact bound must lie in the simulation's 4-standard-error band.

Where an atom's cumulative probability equals ``p`` to rounding (possible
for tiny ``n``: ``F`` takes values ``j / n**n``), the bound may be either
neighbour; those cases are counted and must stay rare.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import special, stats

import perfstats
from perfstats._kernels.exact import binom_pmf, binom_upper_tail, exact_bootstrap_bounds

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99)


def numpy_lerp(a: np.ndarray, b: np.ndarray, g: float) -> np.ndarray:
    """The statistic's value for index pairs, by ``np.quantile`` itself."""
    return np.quantile(np.stack([a, b], axis=-1), g, axis=-1)


def acceptable(values: np.ndarray, cum: np.ndarray, p: float, tol: float) -> set[float]:
    """Atoms that can be ``F^-1(p)`` when ``F`` is known to within ``tol``.

    ``values`` ascending and distinct, ``cum`` their cumulative
    probabilities. Normally one atom; two or more when some ``cum`` lies
    within ``tol`` of ``p``.
    """
    first = int(np.argmax(cum >= p - tol))
    last = int(np.argmax(cum >= p + tol)) if cum[-1] >= p + tol else len(cum) - 1
    return {float(v) for v in values[first : last + 1]}


# --------------------------------------------------------------------------
# Binomial probabilities against SciPy


DYADIC = 4096  # p = j / 4096 makes n*p and n*(1-p) exact


def exact_tail_and_pmf(n: int, j: int, r: int) -> tuple[float, float]:
    """``P(X >= r)`` and ``P(X = r)`` for ``X ~ Bin(n, j / 4096)``, correctly rounded."""
    total = DYADIC**n
    if r > n:
        return 0.0, 0.0
    term = math.comb(n, r) * j**r * (DYADIC - j) ** (n - r)
    first, tail = term, term
    for x in range(r, n):
        term = term * (n - x) * j // ((x + 1) * (DYADIC - j))
        tail += term
    return tail / total, first / total


def binomial_cases(n: int, rng: np.random.Generator, count: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(count):
        j = int(rng.integers(1, DYADIC))
        p = j / DYADIC
        sd = math.sqrt(n * p * (1.0 - p))
        if rng.uniform() < 0.7:
            r = int(np.clip(round(n * p + rng.normal() * 4.0 * sd + 0.5), 0, n))
        else:
            r = int(rng.integers(0, n + 1))
        out.append((j, r))
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20, 100, 1000])
def test_binomial_tail_and_pmf_are_exact(n: int) -> None:
    # Reference: exact rational arithmetic. Where the value is above 1e-30
    # both must be good to 1e-13; deeper in the tail the log-space
    # prefactor's error grows with |log P| (those tails never decide a bound).
    rng = np.random.default_rng(n)
    for j, r in binomial_cases(n, rng, 150):
        p = j / DYADIC
        want_tail, want_pmf = exact_tail_and_pmf(n, j, r)
        for got, want in (
            (binom_upper_tail(r, n, n * p, n * (1.0 - p)), want_tail),
            (binom_pmf(r, n, n * p, n * (1.0 - p)), want_pmf),
        ):
            if want > 1e-30:
                assert got == pytest.approx(want, rel=1e-13), (j, r)
            elif want > 0.0:
                assert got == pytest.approx(want, rel=2e-15 * -math.log(want)), (j, r)
            else:
                assert got == 0.0


@pytest.mark.parametrize("n", [9999, 100_000, 1_000_000])
def test_binomial_tail_matches_scipy_for_large_n(n: int) -> None:
    # SciPy (Boost's ibeta) drifts to ~1e-13 itself at n = 1e5; ours is
    # ~1e-14 at 1e4 and a few 1e-13 at 1e6 (checked against mpmath).
    rtol = 1e-13 if n < 10_000 else 2e-12
    rng = np.random.default_rng(n)
    for j, r in binomial_cases(n, rng, 200):
        p = j / DYADIC
        got = binom_upper_tail(r, n, n * p, n * (1.0 - p))
        want = stats.binom.sf(r - 1, n, p)
        if want > 1e-30:
            assert got == pytest.approx(want, rel=rtol), (j, r)
            if r >= 1:
                assert got == pytest.approx(special.betainc(r, n - r + 1, p), rel=rtol)


def test_binomial_edges() -> None:
    assert binom_upper_tail(0, 10, 3.0, 7.0) == 1.0
    assert binom_upper_tail(11, 10, 3.0, 7.0) == 0.0
    assert binom_upper_tail(1, 10, 0.0, 10.0) == 0.0
    assert binom_upper_tail(10, 10, 10.0, 0.0) == 1.0
    assert binom_upper_tail(10, 10, 5.0, 5.0) == pytest.approx(0.5**10, rel=1e-15)
    assert binom_pmf(0, 10, 5.0, 5.0) == pytest.approx(0.5**10, rel=1e-15)
    assert binom_pmf(3, 10, 0.0, 10.0) == 0.0


# --------------------------------------------------------------------------
# Exhaustive enumeration for n <= 12


@cache
def resamples(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted index tuples covering every resample, and their integer weights (sum n**n)."""
    if n <= 6:
        idx = np.array(list(itertools.product(range(n), repeat=n)), dtype=np.int64)
        return np.sort(idx, axis=1), np.ones(idx.shape[0], dtype=np.int64)
    combos = itertools.combinations_with_replacement(range(n), n)
    flat = np.fromiter(itertools.chain.from_iterable(combos), dtype=np.int8)
    idx = flat.reshape(-1, n).astype(np.int64)
    fact = np.array([math.factorial(j) for j in range(n + 1)], dtype=np.int64)
    denom = np.ones(idx.shape[0], dtype=np.int64)
    for v in range(n):
        denom *= fact[(idx == v).sum(axis=1)]
    weights = fact[n] // denom
    assert int(weights.sum()) == n**n
    return idx, weights


def enumerated_statistics(s: np.ndarray, qs: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``np.quantile(s[row], q)`` for every sorted index row and every ``q``.

    Rows of ``s[idx]`` are sorted, and ``np.quantile`` reads only the two
    order statistics around ``h = (n - 1) q``: passing those two columns
    is the same computation at a fraction of the cost (checked on the
    first rows against the full call).
    """
    n = s.size
    out = np.empty((qs.size, idx.shape[0]))
    for iq, q in enumerate(qs):
        h = (n - 1) * q
        k = math.floor(h)
        out[iq] = np.quantile(s[idx[:, k : k + 2]], h - k, axis=1)
    head = min(idx.shape[0], 5000)
    np.testing.assert_array_equal(out[:, :head], np.quantile(s[idx[:head]], qs, axis=1))
    return out


def samples_for(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    out = [
        np.sort(rng.normal(size=n)),
        np.sort(rng.integers(0, 3, size=n).astype(np.float64)),  # heavy ties
        np.sort(np.round(rng.lognormal(size=n), 1)),
    ]
    if n >= 2:
        out.append(np.full(n, 7.25))
    return out


def quantiles_for(n: int, rng: np.random.Generator) -> np.ndarray:
    qs = [0.0, 1.0, 0.5, 0.25, 0.1, 0.9, 0.99]
    if n > 1:
        qs += [1.0 / (n - 1), (n - 2) / (n - 1)]  # g = 0 away from the ends
    qs += list(rng.uniform(size=3))
    return np.array(qs)


@pytest.mark.parametrize("n", list(range(1, 13)))
def test_matches_full_enumeration(n: int) -> None:
    rng = np.random.default_rng(1000 + n)
    idx, weights = resamples(n)
    total = n**n
    checked = ambiguous = 0
    data = samples_for(n, rng)
    if n >= 11:
        # 352,716 and 1,352,078 sorted resamples: one sample each (ties, then
        # distinct values) keeps the test quick.
        data = [data[1]] if n == 11 else [data[0]]
    for s in data:
        qs = quantiles_for(n, rng)
        bounds = {level: exact_bootstrap_bounds(s, qs, level) for level in LEVELS}
        boot = enumerated_statistics(s, qs, idx)
        for iq in range(qs.size):
            values, inverse = np.unique(boot[iq], return_inverse=True)
            # Float sums of integer weights below 2**53 are exact.
            cum = np.cumsum(np.bincount(inverse, weights=weights)).astype(np.int64)
            for level, (lows, highs) in bounds.items():
                a = (1.0 - level) / 2.0
                for p, got in ((a, lows[iq]), (1.0 - a, highs[iq])):
                    # Exact: cum are integers, p a binary fraction.
                    target = Fraction(p) * total
                    hit = int(np.argmax(cum >= math.ceil(target)))
                    ok = {float(values[hit])}
                    near = acceptable(values, cum / total, p, 1e-12)
                    if len(near) > 1:
                        ambiguous += 1
                        ok |= near
                    checked += 1
                    err = min(abs(got - v) for v in ok)
                    assert err <= 1e-12 * (1.0 + abs(got)), (s, qs[iq], level, p, got, ok)
    # Only n = 2 at level 0.5 has any here: F steps by exactly 1/4 = p.
    assert ambiguous <= 0.1 * checked


# --------------------------------------------------------------------------
# O(n^2) atom table for moderate n


def atom_table(
    s: np.ndarray, q: float, lo: int = 0, hi: int | None = None, max_gap: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Values of the statistic with their probabilities, from SciPy's binomial.

    Every atom with ``lo <= J_(k) <= hi`` and ``J_(k+1) - J_(k) <= max_gap``
    (by default all of them): no bracketing, no bisection, no windows
    chosen by the kernel.
    """
    n = s.size
    hi = n - 1 if hi is None else hi
    max_gap = n - 1 if max_gap is None else max_gap
    h = (n - 1) * q
    k = math.floor(h)
    g = h - k
    if k >= n - 1:
        k, g = n - 1, 0.0
    i = np.arange(lo, hi + 1)
    # P(J_(k) <= i) = P(C_i >= k + 1), C_i ~ Bin(n, (i + 1) / n)
    p_k = stats.binom.sf(k, n, (i + 1) / n) - stats.binom.sf(k, n, i / n)
    if g == 0.0:
        return s[i], p_k
    m = n - k - 1
    # P(J_(k) = i, J_(k+1) = j), i < j: k + 1 draws <= i (one at i) and the
    # other m draws >= j (one at j).
    j = np.minimum(i[:, None] + np.arange(1, max_gap + 1)[None, :], n - 1)
    valid = i[:, None] + np.arange(1, max_gap + 1)[None, :] <= n - 1
    log_c = special.gammaln(n + 1) - special.gammaln(k + 2) - special.gammaln(m + 1)
    with np.errstate(divide="ignore"):
        log_a = (k + 1) * np.log((i + 1) / n) + np.log(-np.expm1((k + 1) * np.log1p(-1 / (i + 1))))
        log_b = m * np.log1p(-j / n) + np.log(-np.expm1(m * np.log1p(-1.0 / (n - j))))
    joint = np.where(valid, np.exp(log_c + log_a[:, None] + log_b), 0.0)
    diag = p_k - joint.sum(axis=1)
    pairs = numpy_lerp(np.broadcast_to(s[i][:, None], j.shape)[valid], s[j][valid], g)
    return np.concatenate([s[i], pairs]), np.concatenate([diag, joint[valid]])


def bounds_from_table(values: np.ndarray, prob: np.ndarray, p: float, tol: float) -> set[float]:
    order = np.argsort(values, kind="stable")
    vals, start = np.unique(values[order], return_index=True)
    cum = np.cumsum(prob[order])[np.r_[start[1:] - 1, values.size - 1]]
    return acceptable(vals, cum, p, tol)


@pytest.mark.parametrize(
    ("n", "kind"),
    [
        (13, "normal"),
        (25, "ties"),
        (40, "lognormal"),
        (97, "pareto"),
        (150, "normal"),
        (301, "ties"),
    ],
)
def test_matches_atom_table(n: int, kind: str) -> None:
    rng = np.random.default_rng(n)
    s = np.sort(
        {
            "normal": rng.normal(size=n),
            "lognormal": rng.lognormal(size=n),
            "pareto": rng.pareto(1.5, size=n),
            "ties": rng.integers(0, 12, size=n).astype(np.float64),
        }[kind]
    )
    qs = np.concatenate(
        [[0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0, 3 / (n - 1)], rng.uniform(size=4)]
    )
    for level in LEVELS:
        lows, highs = exact_bootstrap_bounds(s, qs, level)
        a = (1.0 - level) / 2.0
        for iq, q in enumerate(qs):
            values, prob = atom_table(s, q)
            assert prob.sum() == pytest.approx(1.0, abs=1e-12)
            assert prob.min() > -1e-15
            for p, got in ((a, lows[iq]), (1.0 - a, highs[iq])):
                ok = bounds_from_table(values, prob, p, 1e-10)
                assert got in ok, (q, level, p, got, ok)


@pytest.mark.parametrize("n", [100_000, 1_000_000])
def test_large_n_matches_windowed_atom_table(n: int) -> None:
    # Atoms with J_(k) within 12 standard deviations of k and a gap of at
    # most 80 ranks; what is left out weighs far below the 1e-8 tolerance
    # (which covers gammaln's rounding at this n).
    rng = np.random.default_rng(n)
    s = np.sort(rng.lognormal(size=n))
    qs = np.array([0.001, 0.3, 0.5, 0.999])
    bounds = {level: exact_bootstrap_bounds(s, qs, level) for level in (0.9, 0.99)}
    for iq, q in enumerate(qs):
        k = math.floor((n - 1) * q)
        assert (n - 1) * q > k  # the interpolating case
        sd = math.sqrt(n * q * (1.0 - q)) + 1.0
        lo = max(0, int(k - 12 * sd) - 5)
        hi = min(n - 1, int(k + 12 * sd) + 5)
        values, prob = atom_table(s, q, lo, hi, 80)
        assert prob.sum() == pytest.approx(1.0, abs=1e-8)
        for level, (lows, highs) in bounds.items():
            a = (1.0 - level) / 2.0
            for p, got in ((a, lows[iq]), (1.0 - a, highs[iq])):
                ok = bounds_from_table(values, prob, p, 1e-8)
                assert got in ok, (q, level, p, got, ok)


@pytest.mark.parametrize("n", [65, 1025, 131_073])
def test_order_statistic_case_against_scipy_tails(n: int) -> None:
    # g = 0: the statistic is X*_(k), P(X*_(k) <= s_i) = P(Bin(n, (i+1)/n) >= k + 1).
    # n - 1 is a power of two, so q = k / (n - 1) gives h = k exactly.
    s = np.sort(np.random.default_rng(n).lognormal(size=n))
    ks = [0, 1, n // 10, n // 2, n - 2, n - 1]
    qs = np.array([k / (n - 1) for k in ks])
    assert np.array_equal((n - 1) * qs, ks)
    bounds = {level: exact_bootstrap_bounds(s, qs, level) for level in (0.9, 0.95, 0.99)}
    i = np.arange(n)
    for iq, k in enumerate(ks):
        cdf = stats.binom.sf(k, n, (i + 1) / n)
        for level, (lows, highs) in bounds.items():
            a = (1.0 - level) / 2.0
            for p, got in ((a, lows[iq]), (1.0 - a, highs[iq])):
                assert got in acceptable(s, cdf, p, 1e-11), (k, level, p)


def test_tiny_samples() -> None:
    x = np.array([3.5])
    lo, hi = exact_bootstrap_bounds(x, np.array([0.0, 0.3, 1.0]), 0.95)
    assert lo.tolist() == [3.5] * 3 and hi.tolist() == [3.5] * 3
    # n = 2, median: atoms 1 (1/4), 1.5 (1/2), 2 (1/4).
    x = np.array([1.0, 2.0])
    lo, hi = exact_bootstrap_bounds(x, np.array([0.5]), 0.4)
    assert (lo[0], hi[0]) == (1.5, 1.5)
    lo, hi = exact_bootstrap_bounds(x, np.array([0.5]), 0.9)
    assert (lo[0], hi[0]) == (1.0, 2.0)


# --------------------------------------------------------------------------
# Monte Carlo: a plain NumPy percentile bootstrap

MC_QS = np.array([0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
MC_RESAMPLES = 200_000


def monte_carlo_statistics(s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``np.quantile(resample, MC_QS)`` for 200,000 i.i.d. resamples, in chunks.

    A sorted resample is ``s`` at sorted uniform ranks, and ``np.quantile``
    reads only the two order statistics around ``h = (n - 1) q``; so each
    chunk sorts its int16 ranks and gives ``np.quantile`` those two columns.
    The first chunk checks this against ``np.quantile`` of the full rows.
    """
    n = s.size
    h = (n - 1) * MC_QS
    ks = np.floor(h).astype(np.int64)
    boot = np.empty((MC_QS.size, MC_RESAMPLES))
    chunk = max(1, 4_000_000 // n)
    for start in range(0, MC_RESAMPLES, chunk):
        stop = min(start + chunk, MC_RESAMPLES)
        ranks = rng.integers(0, n, size=(stop - start, n), dtype=np.int16)
        # A stable sort of 16-bit integers is NumPy's radix sort: the same
        # rows as the default sort, several times faster.
        ranks.sort(axis=1, kind="stable")
        for iq, k in enumerate(ks):
            boot[iq, start:stop] = np.quantile(s[ranks[:, k : k + 2]], h[iq] - k, axis=1)
        if start == 0:
            full = np.quantile(s[ranks], MC_QS, axis=1)
            np.testing.assert_array_equal(boot[:, :stop], full)
    return boot


MC_CASES = [
    ("normal", 20),
    ("pareto", 60),
    ("discrete", 150),
    ("lognormal", 400),
    ("pareto", 1000),
    ("lognormal", 2000),
]


def mc_sample(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        return rng.normal(10.0, 2.0, size=n)
    if kind == "lognormal":
        return rng.lognormal(3.0, 0.7, size=n)
    if kind == "pareto":
        return 1.0 + rng.pareto(2.0, size=n)
    # Integer-valued timings: many ties.
    return rng.poisson(30.0, size=n).astype(np.float64)


@pytest.mark.parametrize(("kind", "n"), MC_CASES)
def test_agrees_with_monte_carlo_bootstrap(kind: str, n: int) -> None:
    rng = np.random.default_rng([n, len(kind)])
    s = np.sort(mc_sample(kind, n, rng))
    iqr = float(np.subtract(*np.quantile(s, [0.75, 0.25])))
    boot = monte_carlo_statistics(s, rng)
    near_a_step = 0
    for level in (0.9, 0.95, 0.99):
        lows, highs = exact_bootstrap_bounds(s, MC_QS, level)
        a = (1.0 - level) / 2.0
        for p, exact in ((a, lows), (1.0 - a, highs)):
            mc = np.quantile(boot, p, axis=1)
            for iq in range(MC_QS.size):
                if abs(exact[iq] - mc[iq]) <= 0.01 * iqr:
                    continue
                # The statistic is discrete: when F at a neighbouring atom is
                # within Monte Carlo error of p, the simulation may pick that
                # atom, a whole data gap away (heavy tails: > 1% of the IQR).
                # Then the exact bound must lie inside the simulation's own
                # 4-standard-error band, and this must stay rare.
                se = math.sqrt(p * (1.0 - p) / MC_RESAMPLES)
                band = np.quantile(boot[iq], [max(p - 4 * se, 0.0), min(p + 4 * se, 1.0)])
                assert band[0] <= exact[iq] <= band[1], (MC_QS[iq], level, p, exact[iq], mc[iq])
                near_a_step += 1
    assert near_a_step <= 1


# --------------------------------------------------------------------------
# Properties

# No magnitudes near underflow, so that scaling by a power of two is exact
# for every intermediate of the interpolation too.
finite = hs.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).filter(
    lambda v: v == 0.0 or abs(v) > 1e-100
)
samples = hs.one_of(
    hs.lists(finite, min_size=1, max_size=80),
    hs.lists(hs.sampled_from([0.0, 1.0, 2.5, 10.0]), min_size=1, max_size=80),
)
quantile = hs.one_of(
    hs.sampled_from([0.0, 0.5, 1.0]), hs.integers(0, 10**6).map(lambda j: j / 10**6)
)
level = hs.sampled_from([0.8, 0.9, 0.95, 0.99])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(x=samples, q=quantile, lvl=level)
def test_ordered_and_within_the_data(x: list[float], q: float, lvl: float) -> None:
    s = np.sort(np.asarray(x))
    lo, hi = exact_bootstrap_bounds(s, np.array([q]), lvl)
    assert s[0] <= lo[0] <= hi[0] <= s[-1]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(x=samples, q=quantile, lvl=level, seed=hs.integers(0, 2**32 - 1))
def test_public_call_invariant_to_permutation(
    x: list[float], q: float, lvl: float, seed: int
) -> None:
    y = np.random.default_rng(seed).permutation(np.asarray(x))
    a = perfstats.percentile_ci(x, q, level=lvl, method="exact-bootstrap")
    b = perfstats.percentile_ci(y, q, level=lvl, method="exact-bootstrap")
    lo, hi = exact_bootstrap_bounds(np.sort(np.asarray(x)), np.array([q]), lvl)
    assert (a.low, a.high) == (b.low, b.high) == (lo[0], hi[0])


@settings(max_examples=100, deadline=None, derandomize=True)
@given(x=samples, q=quantile, lvl=level, power=hs.integers(0, 30), c=hs.floats(1e-3, 1e3))
def test_scales_with_the_data(x: list[float], q: float, lvl: float, power: int, c: float) -> None:
    s = np.sort(np.asarray(x))
    qs = np.array([q])
    lo, hi = exact_bootstrap_bounds(s, qs, lvl)
    # A power of two scales every atom exactly, so the bounds must too.
    lo2, hi2 = exact_bootstrap_bounds(s * 2.0**power, qs, lvl)
    assert (lo2[0], hi2[0]) == (lo[0] * 2.0**power, hi[0] * 2.0**power)
    loc, hic = exact_bootstrap_bounds(s * c, qs, lvl)
    tol = 1e-12 * c * (1.0 + float(np.max(np.abs(s))))
    assert abs(loc[0] - c * lo[0]) <= tol and abs(hic[0] - c * hi[0]) <= tol


@settings(max_examples=100, deadline=None, derandomize=True)
@given(x=samples, q=quantile, levels=hs.lists(level, min_size=2, max_size=2, unique=True))
def test_does_not_shrink_when_the_level_grows(
    x: list[float], q: float, levels: list[float]
) -> None:
    small, large = sorted(levels)
    s = np.sort(np.asarray(x))
    lo1, hi1 = exact_bootstrap_bounds(s, np.array([q]), small)
    lo2, hi2 = exact_bootstrap_bounds(s, np.array([q]), large)
    assert lo2[0] <= lo1[0] and hi1[0] <= hi2[0]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(x=samples, q=quantile, lvl=level)
def test_mirror_symmetry(x: list[float], q: float, lvl: float) -> None:
    # The statistic of -x at 1 - q is minus the statistic of x at q, resample
    # by resample, so the interval mirrors (up to rounding of h and g).
    s = np.sort(np.asarray(x))
    lo, hi = exact_bootstrap_bounds(s, np.array([q]), lvl)
    mlo, mhi = exact_bootstrap_bounds(-s[::-1], np.array([1.0 - q]), lvl)
    tol = 1e-9 * (1.0 + float(np.max(np.abs(s))))
    assert abs(lo[0] + mhi[0]) <= tol and abs(hi[0] + mlo[0]) <= tol
