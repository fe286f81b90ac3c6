"""perfstats.characterize: summary, modes, autocorrelation, change points, steady state."""

from __future__ import annotations

import math

import numpy as np
import pytest
import ruptures
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import perfstats
from perfstats import characterize, plots, steady_state_start
from perfstats.characterization import distribution_class
from perfstats.characterization.segmentation import default_penalty, noise_scale

SEEDS = range(8)


def warmup_series(seed: int, n_slow: int = 50, n: int = 500) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Warm-up that decays from 1.6x to 1.3x the steady level, then flat.
    slow = 100.0 * np.linspace(1.6, 1.3, n_slow) + rng.normal(0, 4, n_slow)
    return np.concatenate([slow, rng.normal(100.0, 4.0, n - n_slow)])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_known_warmup_is_found_within_five_runs(seed: int) -> None:
    c = characterize(warmup_series(seed))
    assert c.steady_state == "warm-up"
    assert c.steady_state_start is not None and abs(c.steady_state_start - 50) <= 5
    assert steady_state_start(warmup_series(seed)) == c.steady_state_start
    assert c.warmup == c.steady_state_start


@pytest.mark.parametrize("seed", SEEDS)
def test_iid_normal_series_are_flat(seed: int) -> None:
    x = np.random.default_rng(seed).normal(100.0, 10.0, 1000)
    c = characterize(x)
    assert c.steady_state == "flat" and c.steady_state_start == 0
    assert c.change_points == ()
    assert c.n_modes == 1


@pytest.mark.parametrize("seed", SEEDS)
def test_bimodal_mixtures_have_two_modes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.where(rng.random(800) < 0.6, rng.normal(100, 4, 800), rng.normal(140, 4, 800))
    c = characterize(x)
    assert c.n_modes == 2
    low, high = c.mode_locations
    assert abs(low - 100) < 3 and abs(high - 140) < 3


@pytest.mark.parametrize("seed", SEEDS)
def test_a_level_shift_gives_its_change_point_within_five_runs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    at = int(rng.integers(150, 650))
    x = np.concatenate([rng.normal(50, 2, at), rng.normal(54, 2, 800 - at)])
    c = characterize(x)
    assert len(c.change_points) == 1 and abs(c.change_points[0] - at) <= 5
    assert c.steady_state == "slow-down" and abs(c.steady_state_start - at) <= 5  # type: ignore[operator]


def test_a_throughput_that_rises_is_a_warmup_when_higher_is_better() -> None:
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(500, 10, 100), rng.normal(800, 10, 400)])
    assert characterize(x).steady_state == "slow-down"
    assert characterize(x, lower_is_better=False).steady_state == "warm-up"


def test_a_change_in_the_last_fifth_means_no_steady_state() -> None:
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(100, 3, 900), rng.normal(130, 3, 100)])
    c = characterize(x)
    assert c.steady_state == "no steady state" and c.steady_state_start is None
    assert c.warmup == 1000
    assert abs(c.change_points[-1] - 900) <= 5


def test_equivalent_levels_are_merged_into_one_steady_state() -> None:
    rng = np.random.default_rng(4)
    # A 1% step on tiny noise is a real change point but within the 2% tolerance.
    x = np.concatenate([rng.normal(100, 0.1, 300), rng.normal(101, 0.1, 300)])
    c = characterize(x)
    assert c.change_points and c.steady_state == "flat" and c.steady_state_start == 0
    assert characterize(x, tolerance=0.001).steady_state == "slow-down"


# --- against the references --------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(min_value=20, max_value=250),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    shifts=st.integers(min_value=0, max_value=4),
    min_size=st.integers(min_value=1, max_value=15),
    penalty=st.sampled_from([2.0, 8.0, None]),
)
def test_change_points_equal_ruptures_pelt(
    n: int, seed: int, shifts: int, min_size: int, penalty: float | None
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    for at in rng.integers(0, n, shifts):
        x[at:] += rng.normal(0.0, 3.0)
    ours = perfstats.pelt(x, penalty=penalty, min_size=min_size)
    if n < 2 * min_size:
        assert ours == ()
        return
    pen = default_penalty(n) if penalty is None else penalty
    z = (x - x.mean()) / noise_scale(x)
    ref = ruptures.Pelt(model="l2", min_size=min_size, jump=1).fit(z).predict(pen=pen)
    assert ours == tuple(ref[:-1])


def test_summary_statistics_match_scipy_and_acf() -> None:
    x = np.random.default_rng(0).lognormal(2.0, 0.5, 300)
    c = characterize(x)
    assert c.n == 300
    assert c.mean == pytest.approx(np.mean(x))
    assert c.sd == pytest.approx(np.std(x, ddof=1))
    assert c.median == pytest.approx(np.median(x))
    assert c.mad == pytest.approx(stats.median_abs_deviation(x))
    assert c.skew == pytest.approx(stats.skew(x))
    np.testing.assert_allclose(c.acf, perfstats.acf(x))
    assert c.lag1 == pytest.approx(perfstats.acf(x, nlags=1)[1])


def test_the_plots_use_the_core_mode_finder() -> None:
    assert plots.find_modes is perfstats.find_modes
    assert plots.Modes is perfstats.Modes


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda r: r.normal(100, 5, 500), "normal"),
        (lambda r: r.lognormal(3.0, 0.6, 500), "lognormal"),
        (lambda r: r.uniform(10, 20, 500), "uniform"),
        (
            lambda r: np.where(r.random(500) < 0.5, r.normal(10, 0.4, 500), r.normal(20, 0.4, 500)),
            "multimodal",
        ),
        (lambda r: np.cumsum(r.normal(0, 1, 500)) + 100, "autocorrelated"),
    ],
)
def test_sharp_distribution_classes(make, kind: str) -> None:  # type: ignore[no-untyped-def]
    x = make(np.random.default_rng(7))
    assert distribution_class(x) == kind
    assert characterize(x).distribution == kind


@pytest.mark.parametrize("seed", range(8))
def test_uniform_samples_are_uniform_not_multimodal(seed: int) -> None:
    # A flat density's kernel estimate wiggles and a Gaussian mixture fits it
    # better than one Gaussian: the mode check alone calls many of these
    # samples multimodal.
    x = np.random.default_rng(seed).uniform(90.0, 110.0, 1000)
    assert distribution_class(x) == "uniform"


def test_separated_modes_stay_multimodal_under_the_uniform_check() -> None:
    rng = np.random.default_rng(3)
    x = rng.choice(np.array([100.0, 120.0, 145.0]), 1000) + rng.normal(0.0, 2.0, 1000)
    assert distribution_class(x) == "multimodal"


# --- output and bad input -----------------------------------------------------------


def test_the_summary_is_short_and_readable() -> None:
    text = str(characterize(warmup_series(0)))
    lines = text.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("500 runs: mean ")
    assert "warm-up, steady from run" in lines[2]
    assert "steady_state='warm-up'" in repr(characterize(warmup_series(0)))
    d = characterize(warmup_series(0)).to_dict()
    assert d["steady_state"] == "warm-up" and isinstance(d["acf"], list)


def test_a_constant_series_is_characterised_not_a_crash() -> None:
    c = characterize([3.0] * 50)
    assert c.distribution == "constant" and c.steady_state == "flat"
    assert c.n_modes == 1 and c.change_points == ()
    assert math.isnan(c.lag1) and math.isnan(c.skew) and c.sd == 0.0
    assert "50 runs" in str(c)


@pytest.mark.parametrize(
    ("values", "options", "match"),
    [
        ([1.0, 2.0, 3.0], {}, "at least 5"),
        ([1.0, 2.0, math.nan, 4.0, 5.0, 6.0], {}, "finite"),
        ([1.0, 2.0, 3.0, 4.0, 5.0], {"tolerance": 0.0}, "tolerance"),
        ([1.0, 2.0, 3.0, 4.0, 5.0], {"final_fraction": 2.0}, "final_fraction"),
        ([1.0, 2.0, 3.0, 4.0, 5.0], {"min_size": 0}, "min_size"),
        ([1.0, 2.0, 3.0, 4.0, 5.0], {"penalty": -1.0}, "penalty"),
    ],
)
def test_bad_input_raises_a_clear_error(values: list[float], options: dict, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=match):
        characterize(values, **options)


def test_short_series_have_no_change_points() -> None:
    c = characterize([5.0, 6.0, 5.5, 6.5, 5.2, 6.1])
    assert c.change_points == () and c.steady_state == "flat"
