"""The result every stopping rule returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Decision:
    """A stopping rule's verdict on a sample.

    Parameters
    ----------
    stop : bool
        True when the rule says enough runs were collected.
    n : int
        The sample size that was judged.
    rule : str
        The rule's name, e.g. ``"SuperFlow"``.
    reason : str
        One human sentence saying why, e.g. ``"P75 CI of the previous runs is
        1.4% wide; needs 1.0%"``.
    details : Mapping[str, Any]
        The numbers behind the reason (intervals, statistics, thresholds).

    Examples
    --------
    >>> from perfstats import Decision
    >>> d = Decision(stop=False, n=10, rule="Fixed", reason="10 of 100 runs")
    >>> d.stop, d.n
    (False, 10)
    """

    stop: bool
    n: int
    rule: str
    reason: str
    details: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        verdict = "stop" if self.stop else "continue"
        return f"Decision({verdict} at n={self.n}, rule={self.rule!r}: {self.reason})"

    def __bool__(self) -> bool:
        # A Decision is truthy when it says stop, so `if rule.check(x):` reads well.
        return self.stop

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (for JSON records).

        Returns
        -------
        dict of str to object
            ``stop``, ``n``, ``rule`` and ``reason`` as they are, and
            ``details`` copied into a plain dict (its values are not converted).

        Examples
        --------
        >>> from perfstats import Decision
        >>> Decision(stop=True, n=5, rule="Fixed", reason="5 of 5 runs done").to_dict()["stop"]
        True
        """
        return {
            "stop": self.stop,
            "n": self.n,
            "rule": self.rule,
            "reason": self.reason,
            "details": dict(self.details),
        }
