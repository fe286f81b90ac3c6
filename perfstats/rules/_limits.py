"""The run budget of rules that stop by themselves at ``max_n``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validation import check_int
from ..decision import Decision
from ..wording import runs


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
