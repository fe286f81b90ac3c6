"""Counter-based random streams (SplitMix64) for parallel resampling.

Resample ``b`` of a call draws from its own stream, derived from the call's
64-bit key and ``b`` alone. Which thread computes which resample therefore
cannot change any number: the same key gives the same result with
``NUMBA_NUM_THREADS=1`` or ``=2``. SplitMix64 (Steele, Lea & Flood 2014)
passes BigCrush and costs a few integer operations per draw.
"""

from __future__ import annotations

import numba as nb
import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_MASK32 = np.uint64(0xFFFFFFFF)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@nb.njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@nb.njit(cache=True, inline="always")
def stream_state(key: np.uint64, stream: int) -> np.uint64:
    """Initial state of stream ``stream`` under ``key``."""
    return mix64(key ^ mix64(np.uint64(stream) * GOLDEN + GOLDEN))


@nb.njit(cache=True, inline="always")
def next_u64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Advance ``state``; return the new state and a 64-bit output."""
    state = state + GOLDEN
    return state, mix64(state)


@nb.njit(cache=True, inline="always")
def nth_u64(state: np.uint64, k: int) -> np.uint64:
    """Output ``k`` (from 0) of the stream at ``state``: what ``k + 1`` calls of
    :func:`next_u64` return last, without stepping through the others."""
    return mix64(state + np.uint64(k + 1) * GOLDEN)


@nb.njit(cache=True, inline="always")
def hi_index(v: np.uint64, n: int) -> int:
    """Uniform integer in [0, n) from the upper 32 bits (n < 2**32)."""
    return np.int64(((v >> _S32) * np.uint64(n)) >> _S32)


@nb.njit(cache=True, inline="always")
def lo_index(v: np.uint64, n: int) -> int:
    """Uniform integer in [0, n) from the lower 32 bits (n < 2**32)."""
    return np.int64(((v & _MASK32) * np.uint64(n)) >> _S32)


@nb.njit(cache=True, inline="always")
def unit_float(v: np.uint64) -> float:
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(v >> _S11) * _INV53
