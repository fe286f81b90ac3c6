"""Decision reasons read right for every registered rule and any sample size."""

from __future__ import annotations

import re

import numpy as np
import pytest

from perfstats import rules
from perfstats.rules._wording import pct

# Phrases that read wrong: a count larger than its total, a distance that is
# not a number, a non-zero threshold printed as zero.
BAD = [
    re.compile(r"\b(\d+) of 1 runs\b"),
    re.compile(r"reaches unbounded"),
    re.compile(r"\b1 runs\b"),
    re.compile(r"\bnan\b", re.IGNORECASE),
]


def _samples() -> list[np.ndarray]:
    rng = np.random.default_rng(8)
    return [
        rng.lognormal(0.0, 1.0, 10),
        rng.lognormal(0.0, 0.05, 60),
        rng.lognormal(0.0, 0.01, 400),
        np.r_[rng.normal(10.0, 0.1, 30), rng.normal(20.0, 0.1, 30)],
    ]


@pytest.mark.parametrize("name", sorted(rules.RULES))
def test_reasons_read_right(name: str) -> None:
    rule = rules.by_name(name)
    for x in _samples():
        reason = rule.check(x).reason
        assert reason.strip() == reason and "\n" not in reason and reason, reason
        for bad in BAD:
            assert not bad.search(reason), f"{name}: {reason!r}"


@pytest.mark.parametrize("n_total", [1, 2, 3])
def test_fixed_reason_never_counts_past_its_total(n_total: int) -> None:
    rule = rules.Fixed(n=n_total)
    for size in (n_total, 50):
        reason = rule.check(np.arange(1.0, size + 1.0)).reason
        counted = re.match(r"(\d+) of (\d+) runs? done$", reason)
        if size <= n_total:
            assert counted is not None, reason
        if counted is not None:
            assert int(counted.group(1)) <= int(counted.group(2)) == n_total, reason
        for bad in BAD:
            assert not bad.search(reason), reason


def test_small_thresholds_keep_their_digits() -> None:
    assert pct(0.0001) == "0.01%"
    assert pct(0.0) == "0.0%"
    assert pct(0.0134) == "1.3%"
    assert pct(float("inf")) == "unbounded"
    reason = rules.by_name("basic-bootstrap", error=0.0001).check(np.linspace(1.0, 2.0, 50)).reason
    assert "0.0%" not in reason, reason
