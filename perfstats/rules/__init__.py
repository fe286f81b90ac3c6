"""Stopping rules: each turns a sample, in collection order, into a Decision.

Every rule has ``check(data) -> Decision``, an ``interval`` (runs per run
interval) and ``min_n``. :func:`by_name` builds a rule from its name and
options (used by harnesses and the command line).
"""

from __future__ import annotations

from typing import Any

from .base import Rule
from .fixed import Fixed

RULES: dict[str, type[Rule]] = {
    "fixed": Fixed,
}


def by_name(name: str, **options: Any) -> Rule:
    """Build the rule registered as ``name`` (case-insensitive) with ``options``.

    Examples
    --------
    >>> from perfstats.rules import by_name
    >>> by_name("fixed", n=20)
    Fixed(n=20)
    """
    key = name.lower() if isinstance(name, str) else name
    if key not in RULES:
        known = ", ".join(sorted(RULES))
        raise ValueError(f"rule must be one of {known}; got {name!r}")
    try:
        return RULES[key](**options)
    except TypeError as exc:
        raise ValueError(f"bad option for rule {name!r}: {exc}") from None


__all__ = ["RULES", "Fixed", "Rule", "by_name"]
