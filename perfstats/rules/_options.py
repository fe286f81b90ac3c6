"""Options several rules take alike: the bootstrap's size and seed, what is estimated how well."""

from __future__ import annotations

from typing import Any, Protocol

from .._quantiles import Statistic, parse_statistic
from .._validation import check_int, check_level, check_positive
from ._seeds import base_seed


class Resampled(Protocol):
    """A rule that bootstraps, as :func:`resampling_config` reads it."""

    n_resamples: int
    seed: int


def check_resampling(n_resamples: Any, rng: Any, *, minimum: int) -> tuple[int, int]:
    """``n_resamples`` (at least ``minimum``) and the base seed drawn from ``rng``."""
    return check_int(n_resamples, "n_resamples", minimum=minimum), base_seed(rng)


def resampling_config(rule: Resampled) -> dict[str, int]:
    """The ``n_resamples`` and ``rng`` entries of a bootstrapping rule's config."""
    return {"n_resamples": rule.n_resamples, "rng": rule.seed}


def check_estimate(error: Any, level: Any, statistic: Any) -> tuple[float, float, Statistic]:
    """The allowed relative ``error``, the confidence ``level`` and the parsed ``statistic``."""
    return (
        check_positive(error, "error"),
        check_level(level),
        parse_statistic(statistic, strict=True),
    )
