"""SHARP's remaining rules: RSE, HDI, BlockBootstrapMeans, GMM and the meta-heuristic Auto."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.tsa.stattools import acf as sm_acf

import perfstats
from perfstats.characterization.mixture import fit_mixture
from perfstats.replay import replay
from perfstats.rules import GMM, HDI, RSE, Auto, BlockBootstrapMeans, Rule
from perfstats.rules.block_means import decorrelation_lag

NEW_RULES: dict[str, Rule] = {
    "RSE": RSE(),
    "HDI": HDI(),
    "HDI-mean": HDI(of="mean", rng=0),
    "BB": BlockBootstrapMeans(rng=0),
    "GMM": GMM(rng=0),
    "Auto": Auto(rng=0),
}


def one_sentence(reason: str) -> bool:
    return bool(reason) and "\n" not in reason and ". " not in reason and not reason.endswith(".")


# --- the HDI against ArviZ ---------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=10, max_value=600),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    p=st.floats(min_value=0.05, max_value=0.99),
)
def test_hdi_equals_arviz(n: int, seed: int, p: float) -> None:
    assume(math.floor(p * n) >= 1)  # below that ArviZ returns a zero-width interval
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import arviz

    x = np.random.default_rng(seed).lognormal(0.0, 0.7, n)
    ref = arviz.hdi(x, hdi_prob=p)
    assert perfstats.hdi(x, probability=p) == (float(ref[0]), float(ref[1]))


def test_hdi_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="probability"):
        perfstats.hdi([1.0, 2.0, 3.0], probability=1.0)
    with pytest.raises(ValueError, match="needs at least"):
        perfstats.hdi([1.0, 2.0], probability=0.3)
    with pytest.raises(ValueError, match="finite"):
        perfstats.hdi([1.0, math.nan, 2.0])


# --- RSE -----------------------------------------------------------------------


def test_rse_is_the_relative_standard_error() -> None:
    x = np.random.default_rng(3).normal(50.0, 10.0, 40)
    d = RSE(error=0.5).check(x)
    assert d.details["rse"] == pytest.approx(np.std(x, ddof=1) / math.sqrt(40) / np.mean(x))
    assert d.stop
    assert not RSE(error=0.001).check(x).stop


def test_every_new_rule_stops_at_its_max_n_and_says_so() -> None:
    x = np.random.default_rng(0).lognormal(3.0, 1.0, 500)
    for rule in (RSE(error=1e-4, max_n=30), HDI(error=1e-4, max_n=30)):
        d = rule.check(x[:30])
        assert d.stop and d.details["budget_exhausted"]
        assert d.reason.startswith("reached max_n = 30 runs without")
    d = BlockBootstrapMeans(error=1e-9, max_n=30, rng=0).check(x[:30])
    assert d.stop and "max_n = 30" in d.reason
    d = GMM(threshold=1e-12, max_n=30, rng=0).check(x[:30])
    assert d.stop and "max_n = 30" in d.reason


# --- HDI rule ------------------------------------------------------------------


def test_hdi_of_the_sample_does_not_shrink_but_that_of_the_mean_does() -> None:
    x = np.random.default_rng(5).lognormal(4.0, 0.3, 2000)
    wide = [HDI(max_n=2000).check(x[:n]).details["relative_width"] for n in (50, 500, 2000)]
    assert min(wide) > 0.5 * max(wide)  # a property of the distribution
    rule = HDI(of="mean", max_n=2000, rng=1)
    narrow = [rule.check(x[:n]).details["relative_width"] for n in (50, 500, 2000)]
    assert narrow[0] > 2.5 * narrow[1] > 2.5 * 0.9 * narrow[2]  # ~ 1/sqrt(n)
    low, _ = perfstats.hdi(x[:50], probability=0.89)
    assert HDI().check(x[:50]).details["low"] == low


# --- BlockBootstrapMeans -------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(min_value=3, max_value=300), seed=st.integers(min_value=0, max_value=2**31))
def test_block_length_is_the_first_decorrelated_lag_of_statsmodels_acf(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.standard_normal(n)) * 0.1 + rng.standard_normal(n)
    cap = n // 2
    r = sm_acf(x, nlags=min(cap, n - 1), adjusted=False, fft=False)
    below = [k for k in range(1, r.size) if abs(r[k]) < 0.05]
    assert decorrelation_lag(x, cutoff=0.05) == (below[0] if below else max(1, cap))


def test_block_bootstrap_means_compares_current_and_previous_runs() -> None:
    x = np.random.default_rng(2).normal(100.0, 5.0, 300)
    d = BlockBootstrapMeans(rng=0, interval=5).check(x[:100])
    assert d.stop
    assert abs(d.details["current_mean"] - np.mean(x[:100])) < 0.5
    assert abs(d.details["previous_mean"] - np.mean(x[:95])) < 0.5
    shifted = np.concatenate([x[:95], x[95:100] + 200.0])
    assert not BlockBootstrapMeans(rng=0, interval=5).check(shifted).stop


# --- GMM -----------------------------------------------------------------------


def test_gmm_chooses_two_components_for_a_bimodal_mixture() -> None:
    rng = np.random.default_rng(0)
    x = np.where(rng.random(300) < 0.4, rng.normal(10, 0.5, 300), rng.normal(20, 0.8, 300))
    assert fit_mixture(x, range(1, 8), ("full", "tied")).components == 2
    d = GMM(rng=0).check(x[:150])
    assert d.details["components"] == 2


def test_gmm_reuses_its_last_choice_and_stays_deterministic() -> None:
    x = np.random.default_rng(1).lognormal(2.0, 0.4, 120)
    a = GMM(rng=3, interval=5)
    first = [a.check(x[:n]).details["change"] for n in range(20, 121, 20)]
    b = GMM(rng=3, interval=5)
    again = [b.check(x[:n]).details["change"] for n in range(20, 121, 20)]
    assert first == again


def test_sharp_gmm_threshold_stops_at_the_first_check_on_ordinary_data() -> None:
    x = np.random.default_rng(4).lognormal(3.0, 0.5, 200)
    assert GMM(threshold=2.0, rng=0).check(x[:20]).stop
    assert not GMM(rng=0).check(x[:20]).stop or GMM(rng=0).check(x[:20]).details["change"] <= 0.01


# --- Auto ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "kind", "delegate"),
    [
        (lambda r: r.normal(100, 3, 200), "normal", "SHARP-CI"),
        (lambda r: r.lognormal(3, 0.8, 200), "lognormal", "SHARP-HDI"),
        (
            lambda r: np.where(r.random(200) < 0.5, r.normal(10, 0.3, 200), r.normal(20, 0.3, 200)),
            "multimodal",
            "SHARP-GMM",
        ),
        (lambda r: 100 + np.cumsum(r.normal(0, 1, 200)), "autocorrelated", "SHARP-BB"),
    ],
)
def test_auto_names_the_class_and_the_delegate(make, kind: str, delegate: str) -> None:  # type: ignore[no-untyped-def]
    x = make(np.random.default_rng(11))
    d = Auto(rng=0).check(x[:100])
    assert d.details["distribution"] == kind
    assert d.details["delegate"] == delegate
    assert d.reason.startswith(f"runs look {kind}, so {delegate} decides: ")
    assert d.details["characterization"]["distribution"] == kind
    assert d.details["characterization"]["n"] == 100


def test_auto_stops_on_constant_and_monotonic_runs() -> None:
    for x, kind in (([7.0] * 30, "constant"), (np.arange(30.0), "monotonic")):
        d = Auto().check(x)
        assert d.stop and d.details["distribution"] == kind and d.details["delegate"] is None


def test_auto_never_exceeds_its_budget() -> None:
    x = 100 + np.cumsum(np.random.default_rng(0).normal(0, 5, 2000))
    stops = replay(Auto(rng=0, max_n=120), {"walk": x}, workers=1, progress=False)
    assert int(stops.loc[0, "stop_n"]) <= 120 and bool(stops.loc[0, "stopped"])


# --- protocol, bad input ---------------------------------------------------------


@pytest.mark.parametrize("cls", [RSE, HDI, BlockBootstrapMeans, GMM, Auto])
def test_new_rules_are_rules_with_keyword_only_options(cls: type[Rule]) -> None:
    rule = cls()
    assert isinstance(rule, Rule)
    with pytest.raises(TypeError):
        type(rule)(0.1)  # type: ignore[misc]
    assert repr(rule).startswith(type(rule).__name__ + "(")


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: RSE(error=0), "error"),
        (lambda: RSE(min_n=20, max_n=10), "max_n"),
        (lambda: HDI(probability=1.0), "probability"),
        (lambda: HDI(of="median"), "of"),
        (lambda: BlockBootstrapMeans(acf_cutoff=2.0), "acf_cutoff"),
        (lambda: GMM(max_components=0), "max_components"),
        (lambda: Auto(max_n=10), "max_n"),
    ],
)
def test_bad_parameters_are_named(make, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("key", list(NEW_RULES))
def test_bad_input_gets_a_decision_or_a_clear_error(key: str) -> None:
    rule = NEW_RULES[key]
    short = rule.check([1.0, 2.0, 3.0])
    assert not short.stop and "needs at least" in short.reason
    constant = rule.check([5.0] * 40)
    assert one_sentence(constant.reason)
    with pytest.raises(ValueError, match="finite"):
        rule.check([1.0] * 20 + [math.nan] * 20)
    zero_mean = rule.check(np.tile([-1.0, 1.0], 20))
    assert one_sentence(zero_mean.reason)


# --- every new rule on the real traces ---------------------------------------------


def test_every_new_rule_replays_over_all_163_real_traces(
    scope_traces: dict[str, np.ndarray], cloud_traces: dict[str, np.ndarray]
) -> None:
    """All 163 traces, judged every 40 runs (Auto: every 100) up to 400 runs.

    GMM, whose judgements fit several mixtures, replays every 8th trace,
    judged at 100 and 200 runs.

    The full replay (every 5 runs up to 1,000 runs, every trace, every rule)
    is ``python -m benchmarks.reproduce_sharp``.
    """
    traces = {**scope_traces, **cloud_traces}
    assert len(traces) == 163
    coarse = {
        "RSE": RSE(interval=40, max_n=400),
        "HDI": HDI(interval=40, max_n=400),
        "HDI-mean": HDI(of="mean", interval=40, max_n=400, n_resamples=200, rng=0),
        "BB": BlockBootstrapMeans(interval=40, max_n=400, n_resamples=200, rng=0),
        "Auto": Auto(interval=100, max_n=400, rng=0),
    }
    for name, rule in coarse.items():
        stops = replay(rule, traces, max_n=1000, workers=1, progress=False)
        assert len(stops) == 163, name
        assert (stops["stop_n"] <= 400).all(), name
        assert stops["stopped"].all(), name
        assert all(one_sentence(r) for r in stops["reason"]), name
    subset = dict(list(traces.items())[::8])
    stops = replay(GMM(interval=100, max_n=200, rng=0), subset, workers=1, progress=False)
    assert stops["stopped"].all() and (stops["stop_n"] <= 200).all()
