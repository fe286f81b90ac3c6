"""What every stopping rule promises: purity, its minimum size, validation, registry."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import Decision
from perfstats.rules import (
    RULES,
    BasicBootstrap,
    CIWidth,
    CoV,
    Fixed,
    KSHalves,
    Metior,
    PT4Cloud,
    Rule,
    SuperFlow,
    by_name,
)


def every_rule(seed: int = 3) -> list[Rule]:
    """One instance of each rule and SuperFlow variant, on a small grid."""
    return [
        SuperFlow(method="order-normal"),
        SuperFlow(method="order"),
        SuperFlow(method="exact-bootstrap"),
        SuperFlow(method="bootstrap", n_resamples=200, rng=seed),
        SuperFlow(method="block", n_resamples=200, rng=seed),
        SuperFlow(method="block", block_kind="superflow", n_resamples=200, rng=seed),
        PT4Cloud(),
        Metior(n_resamples=200, rng=seed),
        Metior(n_resamples=200, form="interval", statistic=0.9, rng=seed),
        CIWidth(),
        KSHalves(),
        BasicBootstrap(n_resamples=200, rng=seed),
        CoV(),
        Fixed(n=20),
    ]


samples = st.lists(
    st.floats(min_value=1.0, max_value=1e4, allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=80,
)


@settings(deadline=None, max_examples=40)
@given(samples, st.booleans())
def test_never_stops_below_min_n(values: list[float], constant: bool) -> None:
    # Constant data make every rule as eager to stop as it can be.
    x = np.full(len(values), values[0]) if constant else np.asarray(values)
    for rule in every_rule():
        for n in range(1, min(rule.min_n, x.size + 1)):
            decision = rule.check(x[:n])
            assert not decision.stop, (rule, n)
            assert decision.n == n
            assert str(rule.min_n) in decision.reason


@settings(deadline=None, max_examples=25)
@given(samples)
def test_check_is_pure_and_seeded(values: list[float]) -> None:
    x = np.asarray(values)
    for first, second in zip(every_rule(seed=11), every_rule(seed=11), strict=True):
        a = first.check(x)
        # Judging other data in between must not change the verdict.
        first.check(x[: max(1, x.size // 2)])
        b = first.check(x)
        c = second.check(x)
        for other in (b, c):
            assert (a.stop, a.n, a.rule, a.reason) == (
                other.stop,
                other.n,
                other.rule,
                other.reason,
            )
            assert repr(a.details) == repr(other.details)


def test_decision_fields() -> None:
    x = np.random.default_rng(0).lognormal(3.0, 0.2, size=60)
    for rule in every_rule():
        decision = rule.check(x)
        assert isinstance(decision, Decision)
        assert decision.n == 60
        assert decision.rule == rule.name
        assert len(decision.reason) > 10
        assert "\n" not in decision.reason
        assert isinstance(dict(decision.details), dict)


def test_rules_survive_pickling() -> None:
    # Replay ships rules to worker processes.
    x = np.random.default_rng(1).normal(100.0, 2.0, size=120)
    for rule in every_rule():
        rule.check(x[:-5])
        clone = pickle.loads(pickle.dumps(rule))
        assert clone.check(x).reason == rule.check(x).reason
        assert clone.config() == rule.config()


def test_random_rules_differ_by_seed() -> None:
    x = np.random.default_rng(2).lognormal(3.0, 0.5, size=200)
    a = Metior(rng=1).check(x).details["change"]
    b = Metior(rng=2).check(x).details["change"]
    assert a != b


def test_generator_rng_is_drawn_once() -> None:
    x = np.random.default_rng(2).lognormal(3.0, 0.5, size=200)
    rule = SuperFlow(method="bootstrap", rng=np.random.default_rng(5))
    assert rule.check(x).details == rule.check(x).details
    assert isinstance(rule.config()["rng"], int)
    # The recorded seed rebuilds the same rule.
    again = SuperFlow(method="bootstrap", rng=rule.config()["rng"])
    assert repr(again.check(x).details) == repr(rule.check(x).details)


def test_registry_builds_every_rule() -> None:
    assert set(RULES) == {
        "superflow",
        "pt4cloud",
        "metior",
        "ci-width",
        "ks-halves",
        "basic-bootstrap",
        "cov",
        "fixed",
        "rse",
        "hdi",
        "block-means",
        "gmm",
        "auto",
        "quantile-cs",
    }
    for name, cls in RULES.items():
        assert isinstance(by_name(name), cls)
        assert isinstance(by_name(name.upper()), cls)
    metior = by_name("metior", error=0.05, statistic="p90")
    assert isinstance(metior, Metior) and metior.statistic == 0.9
    with pytest.raises(ValueError, match="rule must be one of"):
        by_name("nope")
    with pytest.raises(ValueError, match="bad option for rule 'superflow'"):
        by_name("superflow", colour="red")


BAD: list[tuple[type[Rule], dict[str, Any], str]] = [
    (SuperFlow, {"method": "magic"}, "method"),
    (SuperFlow, {"level": 1.0}, "level"),
    (SuperFlow, {"error": 0.0}, "error"),
    (SuperFlow, {"error": -0.01}, "error"),
    (SuperFlow, {"interval": 0}, "interval"),
    (SuperFlow, {"interval": 2.5}, "interval"),
    (SuperFlow, {"q": (0.25, 1.5)}, "q"),
    (SuperFlow, {"q": ()}, "q"),
    (SuperFlow, {"n_resamples": 1}, "n_resamples"),
    (SuperFlow, {"block_kind": "zigzag"}, "block_kind"),
    (SuperFlow, {"rng": -1}, "rng"),
    (SuperFlow, {"rng": "seed"}, "rng"),
    (PT4Cloud, {"threshold": 1.5}, "threshold"),
    (PT4Cloud, {"threshold": "high"}, "threshold"),
    (PT4Cloud, {"interval": -5}, "interval"),
    (Metior, {"error": float("nan")}, "error"),
    (Metior, {"level": 0}, "level"),
    (Metior, {"statistic": "mode"}, "statistic"),
    (Metior, {"statistic": 1.0}, "statistic"),
    (Metior, {"statistic": "p100"}, "statistic"),
    (Metior, {"min_block_length": 0}, "min_block_length"),
    (Metior, {"form": "one-sided"}, "form"),
    (Metior, {"block_kind": "random"}, "block_kind"),
    (Metior, {"n_resamples": 0}, "n_resamples"),
    (CIWidth, {"error": 0}, "error"),
    (CIWidth, {"min_n": 1}, "min_n"),
    (CIWidth, {"level": 2}, "level"),
    (KSHalves, {"threshold": -0.1}, "threshold"),
    (KSHalves, {"min_n": 1}, "min_n"),
    (BasicBootstrap, {"statistic": None}, "statistic"),
    (BasicBootstrap, {"error": True}, "error"),
    (BasicBootstrap, {"min_n": 1}, "min_n"),
    (CoV, {"window": 1}, "window"),
    (CoV, {"threshold": float("inf")}, "threshold"),
    (Fixed, {"n": 0}, "n"),
]


@pytest.mark.parametrize(("cls", "kwargs", "name"), BAD)
def test_bad_parameters_name_themselves(cls: type[Rule], kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        cls(**kwargs)


def test_options_are_keyword_only() -> None:
    positional: list[Any] = [0.5]
    for cls in (SuperFlow, PT4Cloud, Metior, CIWidth, KSHalves, BasicBootstrap, CoV, Fixed):
        with pytest.raises(TypeError):
            cls(*positional)


def test_bad_data_is_rejected() -> None:
    for rule in every_rule():
        with pytest.raises(ValueError, match="data"):
            rule.check([1.0, float("nan"), 3.0])
        with pytest.raises(ValueError, match="data"):
            rule.check([[1.0, 2.0], [3.0, 4.0]])
        with pytest.raises(ValueError, match="data"):
            rule.check([])
