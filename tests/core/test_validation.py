"""``as_sample`` accepts a sample exactly when its values and their sum are finite.

Its fast path checks finiteness and the largest magnitude in one compiled
pass and only sums when the sum could overflow; the verdict must be NumPy's
(every value finite and ``numpy.sum`` finite), with the message naming the
first non-finite value or the overflow.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from perfstats._validation import as_sample

VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([1.7e308, -1.7e308, 9e307, -9e307, 1e300, 5e-324, -0.0]),
)


@settings(max_examples=400, deadline=None)
@given(arrays(np.float64, st.integers(1, 40), elements=VALUES))
def test_verdict_is_numpys(x: np.ndarray) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        finite = bool(np.isfinite(x).all()) and bool(np.isfinite(np.sum(x)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no floating-point warning on any path
        if finite:
            np.testing.assert_array_equal(as_sample(x), x)
            return
        with pytest.raises(ValueError) as err:
            as_sample(x)
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        assert f"data[{bad[0]}] is" in str(err.value)
    else:
        assert "its sum overflows float64" in str(err.value)


def test_large_values_whose_sum_fits_are_accepted() -> None:
    # n * max|x| exceeds the float range, the sum itself does not.
    x = np.array([1.5e308, -1.5e308, 1.0e308, -1.0e308])
    np.testing.assert_array_equal(as_sample(x), x)


def test_non_contiguous_and_read_only_samples() -> None:
    x = np.arange(20.0)[::2]
    np.testing.assert_array_equal(as_sample(x), x)
    y = np.arange(5.0)
    y.flags.writeable = False
    assert as_sample(y).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match=r"data\[1\] is"):
        as_sample(np.array([0.0, 9.0, np.nan, 9.0])[::2])  # a strided view


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "x must be a number, got True"),
        ("1.5", "x must be a number, got '1.5'"),
        (None, "x must be a number, got None"),
        (float("nan"), "x must be finite, got nan"),
        (float("-inf"), "x must be finite, got -inf"),
    ],
)
def test_check_finite_refuses_what_is_not_a_finite_real(value: object, message: str) -> None:
    from perfstats._validation import check_finite

    with pytest.raises(ValueError, match=re.escape(message)):
        check_finite(value, "x")


def test_check_finite_accepts_numpy_and_negative_numbers() -> None:
    import numpy as np

    from perfstats._validation import check_finite

    assert check_finite(np.float32(-2.5), "x") == -2.5
    assert check_finite(3, "x") == 3.0
