"""One check of a relative change's estimate and interval, for the analyses and the plot."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import perfstats
from perfstats import plots
from perfstats.comparison.change import change_bounds


def _rc(est: float, low: float, high: float) -> SimpleNamespace:
    return SimpleNamespace(estimate=est, low=low, high=high)


def test_change_bounds_reads_the_three_numbers() -> None:
    assert change_bounds(_rc(0.1, 0.0, 0.2), "x") == (0.1, 0.0, 0.2)
    assert change_bounds(object(), "x", fields=["1", 0, 2]) == (1.0, 0.0, 2.0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (object(), r"^x must have numeric estimate, low and high \(a RelativeChange\), got object"),
        (_rc(0.0, "a", 1.0), r"^x must have numeric estimate"),
        (_rc(0.0, 1.0, -1.0), r"^x has an invalid interval: 0\.0 \[1\.0, -1\.0\]$"),
        (_rc(float("nan"), 0.0, 1.0), r"^x has an invalid interval: nan"),
    ],
)
def test_change_bounds_refuses_what_is_not_a_change(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        change_bounds(value, "x")


def test_analyses_take_no_mapping_where_a_change_is_due() -> None:
    # change_agreement reads attributes only; the plot also reads mappings.
    mapping = {"estimate": 0.1, "low": 0.05, "high": 0.2}
    with pytest.raises(ValueError, match=r"first\['0'\] must have numeric estimate"):
        perfstats.change_agreement([mapping], [_rc(0.1, 0.0, 0.2)])  # type: ignore[list-item]
    assert plots.change_frame({"x": mapping}).loc[0, "verdict"] == "slower"


def test_plot_names_the_benchmark_and_what_it_accepts() -> None:
    with pytest.raises(
        ValueError,
        match=r"^results\['x'\] must have numeric estimate, low and high "
        r"\(a RelativeChange, a Comparison or a mapping\), got object$",
    ):
        plots.change_frame({"x": object()})
    invalid = r"^results\['x'\] has an invalid interval: 0\.0 \[1\.0, -1\.0\]$"
    with pytest.raises(ValueError, match=invalid):
        plots.change_frame({"x": {"estimate": 0.0, "low": 1.0, "high": -1.0}})
