"""Random streams following SciPy's SPEC 7 convention.

Public functions accept ``rng`` as ``None``, an integer seed or a
:class:`numpy.random.Generator`. The kernels do not use NumPy's generator:
they need a counter-based stream per resample so that the result does not
depend on how numba schedules resamples over threads. We therefore draw one
64-bit key from the generator and hand it to the kernels.
"""

from __future__ import annotations

import numbers
from functools import lru_cache
from typing import Any

import numpy as np

RNGLike = None | int | np.integer | np.random.Generator


def as_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """Return a Generator for ``rng`` (None, int seed or Generator)."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise ValueError(f"{name} seed must be a non-negative integer, got {int(rng)}")
        return np.random.default_rng(int(rng))
    raise ValueError(
        f"{name} must be None, a non-negative int seed or a numpy.random.Generator, "
        f"got {type(rng).__name__} {rng!r}"
    )


def stream_key(rng: Any, name: str = "rng") -> np.uint64:
    """One 64-bit key for the kernels' counter-based streams.

    Examples
    --------
    >>> from perfstats._rng import stream_key
    >>> bool(stream_key(7) == stream_key(7))
    True
    """
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and int(rng) >= 0:
        return _seed_key(int(rng))
    gen = as_generator(rng, name)
    return _first_key(gen)


def _first_key(gen: np.random.Generator) -> np.uint64:
    return np.uint64(gen.integers(0, 2**64, dtype=np.uint64, endpoint=False))


@lru_cache(maxsize=4096)
def _seed_key(seed: int) -> np.uint64:
    # A fresh Generator costs tens of microseconds, more than a small
    # kernel; the key of an int seed never changes, so it is built once.
    return _first_key(np.random.default_rng(seed))
