"""Which values of a metric are better, and the sign of a change for the worse.

A time or a size is better lower, a throughput or a rate higher. Every
judgement of a change (the relative change's direction, the regression
gate's verdicts and geometric mean, a history's steps) reads it from here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BETTER", "check_better", "worse_sign"]

#: Which values of a metric are better: ``"lower"`` (a time, a size) or
#: ``"higher"`` (a throughput, a rate).
BETTER = ("lower", "higher")


def check_better(value: Any, name: str = "better") -> str:
    """``value`` if it is one of :data:`BETTER`, else a ValueError naming ``name``.

    Examples
    --------
    >>> from perfstats.comparison.change import check_better
    >>> check_better("higher")
    'higher'
    """
    if not isinstance(value, str) or value not in BETTER:
        raise ValueError(f"{name} must be 'lower' or 'higher' (which values are better); "
                         f"got {value!r}")  # fmt: skip
    return value


def worse_sign(better: str) -> float:
    """The sign a relative change takes when it is for the worse.

    ``+1.0`` where lower values are better (a time that grew is worse),
    ``-1.0`` where higher values are better (a throughput that fell is
    worse). Multiplying a change, or a log ratio, by it orients every metric
    the same way: above 0 is worse.

    Parameters
    ----------
    better : {"lower", "higher"}
        Which values of the metric are better.

    Returns
    -------
    float

    Examples
    --------
    >>> from perfstats.comparison.change import worse_sign
    >>> worse_sign("lower"), worse_sign("higher")
    (1.0, -1.0)
    """
    return 1.0 if check_better(better) == "lower" else -1.0
