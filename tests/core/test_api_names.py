"""One name per idea across the public API.

The confidence level is ``level`` (default 0.95 everywhere), resamples are
``n_resamples``, a rule's relative error is ``error``, a rule's interval
method and quantiles are ``method`` and ``q`` as in ``percentile_ci``; every
quantile accepts every spelling of :mod:`perfstats._quantiles`; renamed
keywords keep working for one release with a DeprecationWarning that names
the new spelling, and give the same result.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import perfstats
from perfstats import plots, replay, rules, scoring
from perfstats.rules import HDI, RSE, CIWidth, SuperFlow, by_name

OLD_NAMES = {
    "ci",
    "quantiles",
    "confidence",
    "confidence_level",
    "alpha_level",
    "resamples",
    "n_boot",
    "B",
    "reps",
}


def _public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    for module in (perfstats, plots, scoring, replay, rules):
        names = getattr(module, "__all__", None) or [n for n in dir(module) if n[0] != "_"]
        for name in names:
            obj = getattr(module, name)
            home = getattr(obj, "__module__", "") or ""
            if callable(obj) and not inspect.ismodule(obj) and home.startswith("perfstats"):
                yield f"{module.__name__}.{name}", obj
    yield from ((f"rules.{k}", v) for k, v in rules.RULES.items())


PUBLIC = dict(_public_callables())


def _signature(obj: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_one_name_and_one_default_per_idea(name: str) -> None:
    sig = _signature(PUBLIC[name])
    if sig is None:
        return
    params = sig.parameters
    assert not OLD_NAMES & set(params), f"{name} has an old parameter name"
    level = params.get("level")
    if level is not None and level.default is not inspect.Parameter.empty:
        assert level.default == 0.95, f"{name}: level defaults to {level.default}"
    for p in params:
        if "resampl" in p:
            assert p == "n_resamples", f"{name}: {p}"


def test_the_signature_scan_sees_the_functions_it_is_about() -> None:
    # A scan over nothing would pass; these must be among the inspected.
    for name in (
        "perfstats.relative_change",
        "perfstats.compare",
        "perfstats.percentile_ci",
        "perfstats.repetitions_needed",
        "rules.superflow",
        "rules.ci-width",
        "perfstats.plots.change_distribution",
        "perfstats.replay.scoring.score_distribution",
    ):
        assert name in PUBLIC
        assert _signature(PUBLIC[name]) is not None
    for name in (
        "perfstats.relative_change",
        "perfstats.compare",
        "perfstats.repetitions_needed",
        "perfstats.plots.change_distribution",
    ):
        sig = _signature(PUBLIC[name])
        assert sig is not None and sig.parameters["level"].default == 0.95


def _same(a: Any, b: Any) -> None:
    assert repr(a) == repr(b)


X = np.random.default_rng(3).lognormal(3.0, 0.05, size=120)


@pytest.mark.parametrize(
    ("make_old", "make_new", "old", "new"),
    [
        (
            lambda: SuperFlow(ci="order", rng=1),
            lambda: SuperFlow(method="order", rng=1),
            "ci",
            "method",
        ),
        (
            lambda: SuperFlow(quantiles=(0.5, 0.9), rng=1),
            lambda: SuperFlow(q=(0.5, 0.9), rng=1),
            "quantiles",
            "q",
        ),
        (lambda: CIWidth(threshold=0.02), lambda: CIWidth(error=0.02), "threshold", "error"),
        (lambda: RSE(threshold=0.02), lambda: RSE(error=0.02), "threshold", "error"),
        (lambda: HDI(threshold=0.2, rng=1), lambda: HDI(error=0.2, rng=1), "threshold", "error"),
        (
            lambda: by_name("superflow", ci="order", rng=1),
            lambda: by_name("superflow", method="order", rng=1),
            "ci",
            "method",
        ),
        (
            lambda: by_name("ci-width", threshold=0.02),
            lambda: by_name("ci-width", error=0.02),
            "threshold",
            "error",
        ),
    ],
)
def test_old_rule_spellings_warn_and_judge_alike(
    make_old: Callable[[], rules.Rule], make_new: Callable[[], rules.Rule], old: str, new: str
) -> None:
    with pytest.warns(DeprecationWarning, match=rf"\b{old}=.*deprecated.*use {new}="):
        rule_old = make_old()
    rule_new = make_new()
    assert rule_old.config() == rule_new.config()
    for n in (40, 80, 120):
        _same(rule_old.check(X[:n]), rule_new.check(X[:n]))


def test_old_rule_spellings_map_onto_the_new_in_the_rule_table() -> None:
    assert SuperFlow.renamed_options() == {"ci": "method", "quantiles": "q"}
    assert CIWidth.renamed_options() == {"threshold": "error"}
    assert rules.KSHalves.renamed_options() == {}  # its threshold is no relative error


def test_both_spellings_at_once_are_refused() -> None:
    with pytest.raises(TypeError, match="both ci= and its new name method="):
        SuperFlow(ci="order", method="order")
    with pytest.raises(ValueError, match="both threshold= and its new name error="):
        by_name("rse", threshold=0.1, error=0.1)


def test_old_plot_and_scoring_spellings_warn_and_agree() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    for draw in (plots.histogram, plots.ecdf):
        with pytest.warns(DeprecationWarning, match=r"quantiles=.*use q="):
            old = draw(X, quantiles=[0.5, 0.9])
        new = draw(X, q=["p50", "P90"])
        assert [t.get_text() for t in old.axes[0].get_legend().get_texts()] == [
            t.get_text() for t in new.axes[0].get_legend().get_texts()
        ]
        plt.close(old)
        plt.close(new)
    stops = pd.DataFrame({"trace": ["a"], "start": [0], "stop_n": [100]})
    with pytest.warns(DeprecationWarning, match=r"quantiles=.*use q="):
        old_frame = scoring.score_distribution(stops, {"a": X}, quantiles=[0.5])
    pd.testing.assert_frame_equal(old_frame, scoring.score_distribution(stops, {"a": X}, q=[0.5]))


def test_new_spellings_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SuperFlow(method="order", q="p90").check(X)
        CIWidth(error=0.02).check(X)


@pytest.mark.parametrize("spelling", ["p90", "P90", 0.9, "p90.0"])
def test_quantile_spellings_agree_everywhere(spelling: Any) -> None:
    want = perfstats.percentile_ci(X, 0.9)
    _same(perfstats.percentile_ci(X, spelling), want)
    _same(
        perfstats.relative_change(X, X * 1.1, statistic=spelling, n_resamples=200, rng=1),
        perfstats.relative_change(X, X * 1.1, statistic=0.9, n_resamples=200, rng=1),
    )
    assert np.array_equal(
        perfstats.bootstrap_distribution(X, spelling, n_resamples=50, rng=1),
        perfstats.bootstrap_distribution(X, 0.9, n_resamples=50, rng=1),
    )
    assert SuperFlow(q=spelling).q == (0.9,)
    assert rules.Metior(statistic=spelling, rng=1).statistic == 0.9
    assert scoring.relative_error(X, X, statistic=spelling) == 0.0


def test_median_and_fine_percentiles_are_quantiles() -> None:
    assert SuperFlow(q=["median", "p99.9"]).q == (0.5, 0.999)
    assert perfstats.percentile_ci(X, "median").q == 0.5
    with pytest.raises(ValueError, match="q must be"):
        perfstats.percentile_ci(X, "p100.5")
    with pytest.raises(ValueError, match="statistic must be"):
        perfstats.relative_change(X, X, statistic="p-5")


def test_one_quantile_parser() -> None:
    import importlib.util

    import perfstats._validation as validation

    assert not hasattr(validation, "check_quantiles")
    # The statistic's parser and point estimate live in perfstats._quantiles only.
    assert importlib.util.find_spec("perfstats.rules._statistic") is None


def test_sign_is_b_relative_to_a() -> None:
    a = np.linspace(90.0, 110.0, 60)
    b = a * 1.2  # b larger
    result = perfstats.compare(a, b, n_resamples=500, rng=1)
    assert result.change.estimate > 0 and result.change.direction == "slower"
    assert result.cliffs_delta.delta > 0
    assert perfstats.relative_change(a, b, n_resamples=500, rng=1).estimate > 0
