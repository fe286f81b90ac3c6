"""Per-judgement random seeds: what makes a randomised rule a pure function.

A rule draws one base seed from its ``rng`` when it is built. Each bootstrap
it later runs is seeded from that base seed, the size of the set it
resamples and a tag naming the set's role, never from a shared stream. So
the same data always get the same decision, whatever was judged before and
in whichever process or thread; and the set of ``m`` points judged as "the
previous runs" at ``n`` is resampled exactly as it was when it was "the
current runs" at ``m``, which lets a rule reuse that verdict.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .._rng import as_generator, stream_key

#: Tags of the roles a resampled set plays in one judgement.
CURRENT = 0
PREVIOUS = 1


def base_seed(rng: Any) -> int:
    """One 63-bit seed drawn from ``rng`` (None, an int seed or a Generator)."""
    if rng is not None and not isinstance(rng, np.random.Generator):
        # An int seed is kept as given so that a record of the rule's
        # configuration reproduces it exactly.
        as_generator(rng)
        return int(rng)
    return int(as_generator(rng).integers(0, 2**63 - 1))


@lru_cache(maxsize=8192)
def judgement_seed(base: int, size: int, role: int) -> int:
    """The seed of one bootstrap: a hash of the base seed, set size and role."""
    # Cached: a rule judges the same (base, size, role) again and again (the
    # previous runs at n are the current runs at n - interval), and hashing
    # through a SeedSequence costs more than a small bootstrap's bookkeeping.
    seq = np.random.SeedSequence(entropy=base, spawn_key=(size, role))
    return int(seq.generate_state(1, np.uint64)[0])


def judgement_key(base: int, size: int, role: int) -> np.uint64:
    """The kernels' stream key of one bootstrap: ``stream_key(judgement_seed(...))``.

    Examples
    --------
    >>> from perfstats._rng import stream_key
    >>> from perfstats.rules._seeds import CURRENT, judgement_key, judgement_seed
    >>> bool(judgement_key(1, 100, CURRENT) == stream_key(judgement_seed(1, 100, CURRENT)))
    True
    """
    return stream_key(judgement_seed(base, size, role))
