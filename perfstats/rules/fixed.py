"""A fixed number of runs: the baseline every adaptive rule must beat."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_int
from ._wording import runs
from .base import Rule
from .decision import Decision


class Fixed(Rule):
    """Stop after exactly ``n`` runs.

    The practice SHARP (Mittal et al.) criticises: a fixed count such as
    SeBS's 100 repetitions is too few for some targets and wasteful for
    others. Kept as a baseline and for simple harness runs.

    Parameters
    ----------
    n : int, default 100
        Number of runs.

    Examples
    --------
    >>> from perfstats.rules import Fixed
    >>> Fixed(n=3).check([1.0, 2.0, 3.0])
    Decision(stop at n=3, rule='Fixed': 3 of 3 runs done)
    """

    name = "Fixed"

    def __init__(self, *, n: int = 100) -> None:
        self.n = check_int(n, "n", minimum=1)
        # One interval of n runs: a harness runs them all, then stops.
        self._interval = self._min_n = self.n

    def config(self) -> dict[str, Any]:
        return {"n": self.n}

    def _decide(self, data: np.ndarray) -> Decision:
        reason = (
            f"{data.size} of {runs(self.n)} done"
            if data.size <= self.n
            else f"{runs(int(data.size))} done, past the fixed count of {self.n}"
        )
        return self._decision(True, int(data.size), reason, {"n": self.n})
