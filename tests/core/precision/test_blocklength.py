"""Politis-White optimal block length against arch, on simulated and real series."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from arch.bootstrap import optimal_block_length as arch_block_length
from hypothesis import given, settings
from hypothesis import strategies as st
from support.samples import ar1

from perfstats.precision.blocklength import MIN_SIZE, BlockLength, optimal_block_length

# Agreement with arch is a contract; the implementations differ only in how
# the mean and the normalising sums of squares are accumulated (measured
# disagreement ~1e-13), so 1e-8 leaves room without hiding a real error.
RTOL = 1e-8
CIRCULAR_OVER_STATIONARY = 1.5 ** (1.0 / 3.0)  # (D_SB / D_CB) ** (1/3)


def arch_pair(x: np.ndarray) -> np.ndarray:
    row = arch_block_length(x)
    return row[["stationary", "circular"]].to_numpy()[0]


def rel_diff(ours: BlockLength, reference: np.ndarray) -> float:
    got = np.array([ours.stationary, ours.circular])
    return float(np.max(np.abs(got - reference) / np.abs(reference)))


# --------------------------------------------------------------------------
# Reference equality with arch
# --------------------------------------------------------------------------

SIZES = (50, 87, 150, 240, 333, 500, 750, 1000, 1500, 1999, 2500, 3000, 3500, 4000, 4500, 5000)
PHIS = (0.0, 0.2, 0.5, 0.9)
GENERATED = [(n, phi, 100 * i + j) for i, n in enumerate(SIZES) for j, phi in enumerate(PHIS)]


def test_generated_cover_the_brief() -> None:
    assert len(GENERATED) >= 50
    assert {phi for _, phi, _ in GENERATED} == set(PHIS)
    assert min(n for n, _, _ in GENERATED) == 50
    assert max(n for n, _, _ in GENERATED) == 5000


@pytest.mark.parametrize(("n", "phi", "seed"), GENERATED)
def test_matches_arch_on_generated_series(n: int, phi: float, seed: int) -> None:
    x = (
        ar1(n, phi, seed, stationary_start=True)
        if phi
        else np.random.default_rng(seed).normal(3.0, 2.0, n)
    )
    assert rel_diff(optimal_block_length(x), arch_pair(x)) < RTOL


@pytest.mark.parametrize("n", range(MIN_SIZE, 40))
def test_matches_arch_on_short_series(n: int) -> None:
    x = ar1(n, 0.5, n, stationary_start=True)
    assert rel_diff(optimal_block_length(x), arch_pair(x)) < RTOL


@pytest.mark.parametrize("temperature", ["cold", "warm"])
def test_matches_arch_on_every_scope_trace(temperature: str, perfstats_data: Path) -> None:
    frame = pd.read_csv(perfstats_data / "scope" / f"{temperature}.csv")
    assert frame.shape == (1000, 65)
    worst = {
        name: rel_diff(optimal_block_length(frame[name]), arch_pair(frame[name].to_numpy()))
        for name in frame.columns
    }
    bad = {k: v for k, v in worst.items() if not v < RTOL}
    assert not bad, f"{temperature}: relative differences above {RTOL}: {bad}"


def pt4cloud_files(data: Path) -> list[str]:
    manifest = pd.read_csv(data / "pt4cloud" / "manifest.csv")
    return sorted(manifest["file"])


def test_pt4cloud_manifest_is_complete(perfstats_data: Path) -> None:
    files = pt4cloud_files(perfstats_data)
    assert len(files) == 33
    for name in files:
        assert (perfstats_data / "pt4cloud" / name).is_file(), name


@pytest.mark.parametrize("index", range(33))
def test_matches_arch_on_every_pt4cloud_trace(index: int, perfstats_data: Path) -> None:
    name = pt4cloud_files(perfstats_data)[index]
    x = np.loadtxt(perfstats_data / "pt4cloud" / name)
    assert 2320 <= x.size <= 61257
    ours = optimal_block_length(x)
    assert ours.n == x.size
    assert rel_diff(ours, arch_pair(x)) < RTOL, name


# --------------------------------------------------------------------------
# Degenerate series that exercise arch's edge semantics
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        # Zero sums of squares (arch's nan correlations) and then a long-run
        # variance of exactly 0 (arch divides by zero and caps inf at b_max).
        [-1.0, 1.0] + [0.0] * 20,
        [0.0] * 20 + [-1.0, 1.0],
        [1.0, -1.0] * 20,  # no insignificant run: m = m_max, capped at b_max
        [1.0, -1.0, 0.0] * 10,
        list(range(30)),  # a trend
        [0.0] * 15 + [1.0] + [0.0] * 15,  # a single spike
    ],
)
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_matches_arch_on_degenerate_series(values: list[float]) -> None:
    x = np.array(values)
    assert rel_diff(optimal_block_length(x), arch_pair(x)) < RTOL


def test_strong_dependence_uses_m_max() -> None:
    x = np.cumsum(np.random.default_rng(5).standard_normal(400))  # random walk
    b = optimal_block_length(x)
    assert b.m == b.m_max == math.ceil(math.sqrt(400)) + 5
    assert rel_diff(b, arch_pair(x)) < RTOL


def test_lengths_are_capped_at_b_max() -> None:
    b = optimal_block_length([1.0, -1.0] * 20)
    assert b.stationary == b.circular == b.b_max == math.ceil(40 / 3)


def test_constant_series_is_documented_as_one() -> None:
    # arch returns nan for exact zeros and rounding noise (about 10.5) here.
    for value in (0.0, 0.1, 3.0, -7.25e6):
        b = optimal_block_length([value] * 50)
        assert (b.stationary, b.circular, b.m, b.n) == (1.0, 1.0, 0, 50)
        assert b.b_max == math.ceil(50 / 3) and b.m_max == math.ceil(math.sqrt(50)) + 5
        assert b.block() == 1


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

series_args = st.tuples(
    st.integers(min_value=MIN_SIZE, max_value=1500),
    st.sampled_from((0.0, 0.2, 0.5, 0.9, -0.4)),
    st.integers(min_value=0, max_value=2**32 - 1),
)


@settings(deadline=None, max_examples=60, derandomize=True)
@given(series_args, st.floats(1e-3, 1e3), st.floats(-1e3, 1e3))
def test_affine_invariance(args: tuple[int, float, int], scale: float, shift: float) -> None:
    x = ar1(*args, stationary_start=True)
    base = optimal_block_length(x)
    moved = optimal_block_length(scale * (x + shift * x.std()))
    assert moved.m == base.m
    assert math.isclose(moved.stationary, base.stationary, rel_tol=1e-8)
    assert math.isclose(moved.circular, base.circular, rel_tol=1e-8)


@settings(deadline=None, max_examples=40, derandomize=True)
@given(series_args, st.integers(-20, 20))
def test_power_of_two_scaling_and_negation_are_exact(args: tuple[int, float, int], k: int) -> None:
    x = ar1(*args, stationary_start=True)
    base = optimal_block_length(x)
    assert optimal_block_length(x * 2.0**k) == base
    assert optimal_block_length(-x) == base


@settings(deadline=None, max_examples=40, derandomize=True)
@given(series_args)
def test_time_reversal_leaves_lengths_unchanged(args: tuple[int, float, int]) -> None:
    x = ar1(*args, stationary_start=True)
    base = optimal_block_length(x)
    rev = optimal_block_length(x[::-1])
    assert rev.m == base.m
    assert math.isclose(rev.circular, base.circular, rel_tol=1e-9)


@settings(deadline=None, max_examples=80, derandomize=True)
@given(series_args)
def test_what_arch_guarantees(args: tuple[int, float, int]) -> None:
    # arch does not floor the lengths at 1; it guarantees 0 <= b <= b_max
    # and the fixed ratio (D_SB / D_CB)^(1/3) between the two lengths.
    x = ar1(*args, stationary_start=True)
    b = optimal_block_length(x)
    n = args[0]
    assert b.n == n
    assert b.b_max == math.ceil(min(3 * math.sqrt(n), n / 3))
    assert 0.0 <= b.stationary <= b.circular <= b.b_max
    assert 2 <= b.m <= b.m_max
    if b.circular < b.b_max:
        assert math.isclose(b.circular / b.stationary, CIRCULAR_OVER_STATIONARY, rel_tol=1e-12)
    for kind in ("circular", "stationary"):
        length = b.block(kind)
        assert isinstance(length, int) and length >= 1
        assert length == max(1, math.ceil(getattr(b, kind)))


def test_lengths_below_one_are_not_floored() -> None:
    x = np.random.default_rng(0).standard_normal(1000)
    b = optimal_block_length(x)
    assert b.stationary < 1.0 and b.circular < 1.0
    assert b.block() == 1 and b.block("stationary") == 1


def test_accepts_list_and_series_alike() -> None:
    x = ar1(300, 0.5, 11, stationary_start=True)
    assert optimal_block_length(x.tolist()) == optimal_block_length(x)
    assert optimal_block_length(pd.Series(x)) == optimal_block_length(x)
    assert optimal_block_length(x.astype(np.float32)).n == 300


def test_result_is_frozen_with_readable_repr() -> None:
    b = optimal_block_length(ar1(1000, 0.5, 0, stationary_start=True))
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.circular = 1.0  # type: ignore[misc]
    text = repr(b)
    assert text.startswith("BlockLength(stationary=")
    assert f"circular={b.circular:.6g}" in text and "n=1000" in text and "m=" in text


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "data is empty"),
        (np.arange(10.0), "needs at least 11"),
        ([1.0] * 10, "needs at least 11"),
        (np.r_[np.arange(20.0), np.nan], "finite"),
        (np.r_[np.arange(20.0), np.inf], "finite"),
        (np.ones((20, 2)), "1-D"),
        ("1,2,3,4,5,6,7,8,9,10,11,12", "string"),
        (["a"] * 20, "dtype"),
        ([True, False] * 10, "dtype"),
    ],
)
def test_bad_input_raises_naming_data(data: object, message: str) -> None:
    with pytest.raises(ValueError, match="data") as info:
        optimal_block_length(data)
    assert message in str(info.value)


def test_bad_kind_raises() -> None:
    b = optimal_block_length(ar1(100, 0.5, 1, stationary_start=True))
    with pytest.raises(ValueError, match="kind"):
        b.block("moving")
