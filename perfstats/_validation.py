"""Input validation shared by every public function.

Every check raises :class:`ValueError` whose message names the parameter and
the offending value, so that a user never has to guess which argument was
wrong. Nothing is silently dropped or coerced.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

# No sum of n values of magnitude at most m can exceed n * m: at or below
# this bound (a little under the largest float64) no sum overflows.
_SUM_SAFE = 1e308
_finite_scan: Callable[[FloatArray], tuple[bool, float]] | None = None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_sample(data: Any, name: str = "data", *, min_size: int = 1) -> FloatArray:
    """Return ``data`` as a 1-D contiguous float64 array of finite numbers.

    Accepts lists, tuples, NumPy arrays and pandas Series. Rejects strings,
    booleans, objects, 2-D input, empty input and NaN or infinite values.
    """
    if isinstance(data, np.ndarray) and data.dtype == np.float64 and data.ndim == 1:
        # The common case first: the abstract-class checks below cost more
        # than the rest of a small kernel's call.
        arr = data
    else:
        if isinstance(data, (str, bytes)):
            raise ValueError(
                f"{name} must be a 1-D array of numbers, got the string {_short(data)}"
            )
        if isinstance(data, Iterator) or (
            isinstance(data, Iterable) and not isinstance(data, (Sized, np.ndarray))
        ):
            raise ValueError(
                f"{name} must be a 1-D array of numbers, got a {type(data).__name__} "
                f"(an iterator is read only once: pass list(...) or a NumPy array)"
            )
        try:
            raw = np.asarray(data)
        except Exception as exc:  # ragged nested lists and the like
            raise ValueError(f"{name} must be a 1-D array of numbers: {exc}") from None
        if raw.dtype.kind not in "iuf":
            raise ValueError(
                f"{name} must be a 1-D array of numbers, got dtype {raw.dtype} ({_short(data)})"
            )
        arr = raw.astype(np.float64, copy=False)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    if arr.size < min_size:
        if arr.size == 0:
            raise ValueError(f"{name} is empty; it needs at least {min_size} value(s)")
        raise ValueError(f"{name} has {arr.size} value(s); it needs at least {min_size}")
    # One compiled pass checks finiteness and the largest magnitude (NumPy's
    # sum inside np.errstate cost three times as much, errstate alone half);
    # only values large enough for the sum to overflow, or a non-finite one,
    # pay for NumPy's sum and the element-wise search for the culprit.
    global _finite_scan
    if _finite_scan is None:
        # Loaded on first use, so that importing this module (which every
        # other imports) does not load numba; an import statement here
        # would pay the import machinery's lookup on every call.
        from ._kernels.finite import finite_scan

        _finite_scan = finite_scan
    finite, top = _finite_scan(arr)
    if finite and top * arr.size <= _SUM_SAFE:
        return np.ascontiguousarray(arr)
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(arr.sum())
    if not math.isfinite(total):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"{name} must contain only finite numbers; {name}[{i}] is {arr[i]!r} "
                f"({bad.size} non-finite value(s) in all)"
            )
        # Every value is finite but their sum is not: every mean, variance and
        # bootstrap resample of them would overflow, so say so here, once.
        top = float(np.max(np.abs(arr)))
        raise ValueError(
            f"{name} is too large in magnitude (values up to {top:.3g}): its sum overflows "
            "float64; rescale it (e.g. to other units) first"
        )
    return np.ascontiguousarray(arr)


def not_real(value: Any) -> bool:
    """Whether ``value`` is not a real number (a bool is not one).

    Plain floats and ints answer first: the abstract-class check costs half
    a microsecond, comparable to a small kernel's whole call.
    """
    kind = type(value)
    if kind is float or kind is int:
        return False
    return isinstance(value, bool) or not isinstance(value, numbers.Real)


def _real(value: Any, name: str, expected: str) -> float:
    """``value`` as a float, or an error saying that ``name`` must be ``expected``."""
    if not_real(value):
        raise ValueError(f"{name} must be {expected}, got {_short(value)}")
    return float(value)


def check_level(level: Any, name: str = "level") -> float:
    """A confidence level strictly between 0 and 1."""
    value = _real(level, name, "a number in (0, 1)")
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return value


def check_fraction(value: Any, name: str, *, low: float = 0.0, high: float = 1.0) -> float:
    """A number in the closed interval ``[low, high]``."""
    out = _real(value, name, f"a number in [{low}, {high}]")
    if not (low <= out <= high):
        raise ValueError(f"{name} must be in [{low}, {high}], got {out!r}")
    return out


def check_finite(value: Any, name: str) -> float:
    """A finite real number (not a bool, not a string that looks like one)."""
    out = _real(value, name, "a number")
    if not math.isfinite(out):
        raise ValueError(f"{name} must be finite, got {out!r}")
    return out


def check_positive(value: Any, name: str) -> float:
    """A finite number greater than zero."""
    out = _real(value, name, "a positive number")
    if not (math.isfinite(out) and out > 0):
        raise ValueError(f"{name} must be a positive finite number, got {out!r}")
    return out


def check_int(value: Any, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer (not a bool) within ``[minimum, maximum]``."""
    if type(value) is not int and (
        isinstance(value, bool) or not isinstance(value, numbers.Integral)
    ):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {_short(value)}")
    out = int(value)
    if out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {out}")
    return out


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of a fixed set of strings."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}; got {_short(value)}")
    return value


def power_of_two_scale(*arrays: FloatArray) -> float:
    """A power of two that brings the largest magnitude in ``arrays`` near 1.

    Multiplying by a power of two is exact in binary floating point, and
    every correctly rounded operation commutes with it, so a scale-free
    computation (autocorrelations, block lengths, KL divergences between
    densities) gives bit for bit the same result on scaled data wherever the
    unscaled one neither overflowed nor underflowed, and a finite one where
    squares of values near 1e160 would overflow or those of 1e-160 vanish.
    """
    top = max((float(np.max(np.abs(a))) for a in arrays if a.size), default=0.0)
    return unit_scale(top)


def unit_scale(top: float) -> float:
    """The power of two of :func:`power_of_two_scale` for a largest magnitude ``top``.

    Plain arithmetic, so that compiled kernels use this very function.

    Examples
    --------
    >>> from perfstats._validation import unit_scale
    >>> unit_scale(3.0), unit_scale(0.0), unit_scale(1e300) * 1e300 < 1.0
    (0.25, 1.0, True)
    """
    if top == 0.0 or not math.isfinite(top):
        return 1.0
    # Below 2**-1023 (subnormals) the exact inverse power would overflow;
    # the largest finite power of two still brings such values up to normal range.
    return math.ldexp(1.0, min(-math.frexp(top)[1], 1023))
