"""Named series beside a measurement's primary value."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from perfstats.adapters.records import Measurement, SeriesValue, utc_now


@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["lower", "higher"]))
def test_a_finite_value_is_kept_as_given(value: float, direction: str) -> None:
    s = SeriesValue(value, "ns", direction=direction, source="gbench")
    assert s.ok and s.value == value and s.direction == direction


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"value": math.nan, "unit": "ns"}, "finite number"),
        ({"value": math.inf, "unit": "ns"}, "finite number"),
        ({"value": True, "unit": "ns"}, "finite number"),
        ({"value": None, "unit": "ns"}, "needs an error"),
        ({"value": 1.0, "unit": "ns", "error": "x"}, "carries no error"),
        ({"value": 1.0, "unit": "ns", "direction": "up"}, "direction must be one of"),
        ({"value": 1.0, "unit": 3}, "unit must be a string"),
    ],
)
def test_bad_series_values_are_refused_naming_the_problem(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        SeriesValue(**kwargs)


def test_a_failed_series_in_a_successful_invocation_says_why() -> None:
    m = Measurement(
        1.0, "ns", None, utc_now(),
        series={"BM_a": SeriesValue(None, "ns", error="not in this round's output")},
    )  # fmt: skip
    assert m.ok and not m.series["BM_a"].ok
    assert m.series["BM_a"].error == "not in this round's output"


@pytest.mark.parametrize("series", [{"": SeriesValue(1.0, "ns")}, {"a": 1.0}])
def test_measurements_refuse_unnamed_or_plain_series(series) -> None:
    with pytest.raises(ValueError, match="series"):
        Measurement(1.0, "ns", None, utc_now(), series=series)
