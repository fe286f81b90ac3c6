"""The run budget of rules that stop by themselves at ``max_n``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .._validation import check_int
from ._wording import pct, runs
from .decision import Decision


def check_max_n(max_n: Any, min_n: int) -> int:
    """``max_n`` as an int of at least ``min_n``."""
    value = check_int(max_n, "max_n", minimum=1)
    if value < min_n:
        raise ValueError(f"max_n must be at least min_n = {min_n}, got {max_n!r}")
    return value


def out_of_runs(rule: str, n: int, max_n: int, what: str, details: Mapping[str, Any]) -> Decision:
    """The stop a rule makes at its budget: ``reached max_n = N runs without <what>``."""
    return Decision(
        stop=True,
        n=n,
        rule=rule,
        reason=f"reached max_n = {runs(max_n)} without {what}",
        details={**details, "max_n": max_n, "budget_exhausted": True},
    )


def check_limits(
    min_n: Any, max_n: Any, interval: Any, *, least_min_n: int
) -> tuple[int, int, int]:
    """``min_n`` (at least ``least_min_n``), ``max_n`` (at least ``min_n``) and ``interval``."""
    low = check_int(min_n, "min_n", minimum=least_min_n)
    return low, check_max_n(max_n, low), check_int(interval, "interval", minimum=1)


class Budgeted(Protocol):
    """A rule with a run budget, as :func:`settle` reads it."""

    name: str
    max_n: int
    _min_n: int
    _interval: int


def limits_config(rule: Budgeted) -> dict[str, int]:
    """The ``min_n``, ``max_n`` and ``interval`` entries of a budgeted rule's config."""
    return {"min_n": rule._min_n, "max_n": rule.max_n, "interval": rule._interval}


def settle(
    rule: Budgeted,
    n: int,
    *,
    settled: bool,
    details: Mapping[str, Any],
    stop_reason: str,
    wait_reason: str,
    what: str,
) -> Decision:
    """Stop when ``settled``, else stop at the budget (:func:`out_of_runs`), else continue."""
    if settled:
        return Decision(stop=True, n=n, rule=rule.name, reason=stop_reason, details=details)
    if n >= rule.max_n:
        return out_of_runs(rule.name, n, rule.max_n, what, details)
    return Decision(stop=False, n=n, rule=rule.name, reason=wait_reason, details=details)


def settle_under(
    rule: Budgeted,
    n: int,
    value: float,
    limit: float,
    *,
    said: str,
    mean: float,
    relative: str,
    details: Mapping[str, Any],
    what: str,
) -> Decision:
    """:func:`settle` once ``value``, a measure relative to a positive ``mean``, is under ``limit``.

    ``said`` states the value; ``relative`` names the measure for the reason given when the
    mean is not positive (``"the mean is 0; <relative> needs a positive mean"``).
    """
    return settle(
        rule,
        n,
        settled=value < limit,
        details=details,
        stop_reason=f"{said}, below the {pct(limit)} threshold",
        wait_reason=(
            f"{said}; needs under {pct(limit)}"
            if mean > 0.0
            else f"the mean is {mean:.6g}; {relative} needs a positive mean"
        ),
        what=what,
    )
