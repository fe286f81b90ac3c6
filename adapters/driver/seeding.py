"""The seed a recorded run is made with, so that it can be made again."""

from __future__ import annotations

from typing import Any

import numpy as np


def run_seed(rng: Any, recorded: Any = None) -> int:
    """An int seed for a run: ``rng`` itself, drawn from it, or fresh.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        A non-negative int is the seed; a Generator draws one; None takes
        ``recorded`` when it is an int (a resumed run keeps its seed), else
        fresh entropy.
    recorded : optional
        The seed in an earlier record of the same run.

    Raises
    ------
    ValueError
        For anything else.

    Examples
    --------
    >>> from perfstats.adapters.driver.seeding import run_seed
    >>> run_seed(7), run_seed(None, recorded=42)
    (7, 42)
    >>> 0 <= run_seed(None) < 2**63
    True
    """
    if rng is None:
        if isinstance(recorded, int) and not isinstance(recorded, bool):
            return recorded
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)
        return entropy % (2**63 - 1)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63 - 1))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    raise ValueError(
        f"rng must be None, a non-negative int seed or a numpy.random.Generator; got {rng!r}"
    )
