"""The protocol every stopping rule follows."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._deprecation import aliases_of
from .._validation import as_sample
from ._wording import runs
from .decision import Decision


class Rule(ABC):
    """A stopping rule: turns all measurements so far into a :class:`Decision`.

    Subclasses set :attr:`name`, store their parameters, and implement
    :meth:`_decide`, which receives validated data of at least
    :attr:`min_n` points. ``check`` is pure: the same data (and seed) give
    the same decision.

    Attributes
    ----------
    name : str
        Short name used in decisions and records.
    interval : int
        Runs per run interval: a harness judges after every ``interval`` runs.
    min_n : int
        The fewest points on which the rule can decide to stop.

    Examples
    --------
    A rule that stops once the last run is below a limit:

    >>> import numpy as np
    >>> from perfstats import Decision
    >>> from perfstats.rules import Rule
    >>> class Below(Rule):
    ...     name = "Below"
    ...     interval = 1
    ...     min_n = 2
    ...     def config(self):
    ...         return {}
    ...     def _decide(self, data):
    ...         stop = bool(data[-1] < 1.0)
    ...         return Decision(stop, data.size, self.name, f"last run {data[-1]:g}")
    >>> Below().check([5.0])
    Decision(continue at n=1, rule='Below': 1 run so far; Below needs at least 2)
    >>> Below().check([5.0, 0.5]).stop
    True
    """

    name: str = "Rule"

    # Subclasses set these in __init__; a rule whose minimum follows from
    # other parameters overrides ``min_n`` instead.
    _interval: int
    _min_n: int

    @property
    def interval(self) -> int:
        """Runs per run interval."""
        return self._interval

    @property
    def min_n(self) -> int:
        """The fewest points the rule needs before it may stop."""
        return self._min_n

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """The rule's parameters as plain data (for records and reprs)."""

    @classmethod
    def renamed_options(cls) -> dict[str, str]:
        """The rule's deprecated option names, ``{old: new}``.

        A record written before a rename names the old option in its rule
        configuration; a reader maps it through this table.

        Examples
        --------
        >>> from perfstats.rules import SuperFlow, Fixed
        >>> SuperFlow.renamed_options(), Fixed.renamed_options()
        ({'ci': 'method', 'quantiles': 'q'}, {})
        """
        return aliases_of(cls.__init__)

    def _decision(
        self, stop: bool, n: int, reason: str, details: Mapping[str, Any] | None = None
    ) -> Decision:
        """This rule's :class:`Decision` on ``n`` runs (``details`` default to none).

        Examples
        --------
        >>> from perfstats.rules import Fixed
        >>> Fixed(n=3)._decision(False, 2, "2 of 3 runs done", {"n": 3})
        Decision(continue at n=2, rule='Fixed': 2 of 3 runs done)
        """
        return Decision(
            stop=stop,
            n=n,
            rule=self.name,
            reason=reason,
            details={} if details is None else details,
        )

    @abstractmethod
    def _decide(self, data: np.ndarray) -> Decision:
        """Judge ``data`` (validated, ``len(data) >= min_n``)."""

    def check(self, data: Any) -> Decision:
        """Judge all measurements so far, in collection order.

        Parameters
        ----------
        data : array_like
            1-D finite measurements in the order they were collected.

        Returns
        -------
        Decision
            ``stop`` is never True on fewer than :attr:`min_n` points.

        Examples
        --------
        >>> from perfstats.rules import Fixed
        >>> Fixed(n=3).check([1.0, 2.0])
        Decision(continue at n=2, rule='Fixed': 2 runs so far; Fixed needs at least 3)
        """
        x = as_sample(data, "data")
        if x.size < self.min_n:
            reason = f"{runs(x.size)} so far; {self.name} needs at least {self.min_n}"
            return self._decision(False, int(x.size), reason, {"min_n": self.min_n})
        return self._decide(x)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"{type(self).__name__}({args})"
