"""A 0-d array, a generator, a Series with NaN and a list of strings: a clear ValueError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import perfstats
from perfstats import Monitor, rules
from perfstats.replay import replay_test

GOOD = np.random.default_rng(0).lognormal(0.0, 0.3, 120)

FUNCTIONS: dict[str, Callable[[Any], object]] = {
    "percentile_ci": lambda d: perfstats.percentile_ci(d, 0.5),
    "percentile_ci/block": lambda d: perfstats.percentile_ci(d, 0.5, method="block"),
    "bootstrap_distribution": lambda d: perfstats.bootstrap_distribution(d, 0.5),
    "optimal_block_length": perfstats.optimal_block_length,
    "acf": perfstats.acf,
    "ks": lambda d: perfstats.ks(d, GOOD),
    "namd": lambda d: perfstats.namd(GOOD, d),
    "kl_similarity": lambda d: perfstats.kl_similarity(d, GOOD),
    "cliffs_delta": lambda d: perfstats.cliffs_delta(GOOD, d),
    "wilcoxon_ranksum": lambda d: perfstats.wilcoxon_ranksum(d, GOOD),
    "relative_change": lambda d: perfstats.relative_change(GOOD, d),
    "compare": lambda d: perfstats.compare(d, GOOD),
    "rule.check": lambda d: rules.SuperFlow().check(d),
    "Monitor.add": lambda d: Monitor(rules.Fixed(n=5)).add(d),
    "replay_test": lambda d: replay_test(rules.Fixed(n=5), d),
}

BAD: dict[str, Callable[[], Any]] = {
    "0-d array": lambda: np.array(3.0),
    "generator": lambda: (float(v) for v in GOOD),
    "Series with NaN": lambda: pd.Series(np.r_[GOOD[:50], np.nan, GOOD[50:]]),
    "list of strings": lambda: ["1.0", "2.0"] * 30,
}


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_bad_shapes_get_a_clear_error(name: str, bad: str) -> None:
    with pytest.raises(ValueError) as info:
        FUNCTIONS[name](BAD[bad]())
    message = str(info.value)
    assert any(word in message for word in ("1-D", "finite", "numbers", "array")), message
