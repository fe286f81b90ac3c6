"""Quantile spellings: the one parser behind every ``q`` and ``statistic``.

A quantile may be given as a number (``0.9``), a percentile name
(``"p90"``, ``"P90"``, ``"p99.9"``) or ``"median"``; a statistic is
additionally ``"mean"``. Every public function that takes a quantile or a
statistic reads it here, so the spellings agree across the API and the
command line.

Examples
--------
>>> from perfstats._quantiles import parse_quantile, parse_quantiles, parse_statistic
>>> parse_quantile("p99.9"), parse_quantile("P90"), parse_quantile("median")
(0.999, 0.9, 0.5)
>>> parse_quantiles(["p25", 0.5, "P75"])
(array([0.25, 0.5 , 0.75]), False)
>>> parse_statistic("Median"), parse_statistic("mean"), parse_statistic("p90")
('median', 'mean', 0.9)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ._validation import _short, not_real

FloatArray = npt.NDArray[np.float64]

#: What a statistic may be after parsing: ``"mean"``, ``"median"`` or a quantile.
Statistic = str | float


def _describe(strict: bool) -> str:
    return "(0, 1)" if strict else "[0, 1]"


def parse_quantile(value: Any, name: str = "q", *, strict: bool = False) -> float:
    """One quantile as a float in ``[0, 1]`` (``(0, 1)`` when ``strict``).

    Accepts a real number, ``"median"`` and ``"pNN"``/``"PNN"`` percentile
    names (``"p99.9"`` is 0.999); raises :class:`ValueError` naming
    ``name`` otherwise.
    """
    span = _describe(strict)
    q: float | None = None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "median":
            q = 0.5
        elif text.startswith("p"):
            try:
                # Parsing the digits as a decimal keeps "p99.9" at 0.999, not 0.9990000000000001.
                q = float(text[1:]) / 100.0 if text[1:].replace(".", "", 1).isdigit() else None
            except ValueError:
                q = None
            if q is not None:
                q = round(q, 12)
    elif not not_real(value):
        q = float(value)
    if q is None:
        raise ValueError(
            f"{name} must be a quantile in {span}, 'median' or a percentile name like 'p90'; "
            f"got {_short(value)}"
        )
    inside = (0.0 < q < 1.0) if strict else (0.0 <= q <= 1.0)
    if not (math.isfinite(q) and inside):
        raise ValueError(f"{name} must be in {span}, got {_short(value)}")
    return q


def parse_quantiles(q: Any, name: str = "q") -> tuple[FloatArray, bool]:
    """Quantile(s) in ``[0, 1]``; returns the array and whether ``q`` was a scalar."""
    if isinstance(q, str) or not not_real(q):
        return np.array([parse_quantile(q, name)]), True
    if isinstance(q, (bool, bytes, dict)) or q is None:
        raise ValueError(f"{name} must be a quantile or a sequence of them, got {_short(q)}")
    if isinstance(q, np.ndarray) and q.ndim == 0:
        return parse_quantiles(q.item(), name)
    try:
        items = list(q)
    except TypeError:
        raise ValueError(
            f"{name} must be a quantile or a sequence of them, got {_short(q)}"
        ) from None
    if not items:
        raise ValueError(
            f"{name} must be a quantile or a non-empty sequence of them, got {_short(q)}"
        )
    values = []
    for item in items:
        if isinstance(item, np.generic):
            item = item.item()
        if not isinstance(item, str) and not_real(item):
            raise ValueError(
                f"{name} must be a quantile or a flat sequence of them, got {_short(item)} in it"
            )
        values.append(parse_quantile(item, name))
    return np.array(values, dtype=np.float64), False


def parse_statistic(value: Any, name: str = "statistic", *, strict: bool = False) -> Statistic:
    """``"mean"``, ``"median"`` or a quantile (any spelling of :func:`parse_quantile`).

    ``"mean"`` and ``"median"`` come back as those strings (case folded),
    every other quantile spelling as its float.
    """
    if isinstance(value, str) and value.strip().lower() in ("mean", "median"):
        return value.strip().lower()
    try:
        return parse_quantile(value, name, strict=strict)
    except ValueError:
        raise ValueError(
            f"{name} must be 'mean', 'median', a quantile in {_describe(strict)} or a "
            f"percentile name like 'p90'; got {_short(value)}"
        ) from None


def point_estimate(x: np.ndarray, statistic: Statistic) -> float:
    """The statistic of ``x`` (quantiles by NumPy's default linear interpolation).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats._quantiles import point_estimate
    >>> point_estimate(np.array([1.0, 2.0, 3.0, 10.0]), "median")
    2.5
    """
    if statistic == "mean":
        return float(np.mean(x))
    if statistic == "median":
        return float(np.median(x))
    return float(np.quantile(x, float(statistic)))
