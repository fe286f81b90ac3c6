"""Numbers read from CSV cells: strictly, and a bad cell named by its file, line and column.

One reading for records and for the CSV input of ``perfstats replay`` and
``compare``: a cell is a number only when it spells one (``1``, ``2.5e-3``);
``yes``, ``no``, ``none``, ``True`` or ``nan`` are not quietly turned into 1,
0 or a missing value, as a CSV library's defaults would.
"""

from __future__ import annotations

import math


def number(cell: str, *, where: str, line: int, column: str, integer: bool = False) -> float:
    """The number in ``cell``; NaN for an empty cell; else a ValueError naming the place.

    Examples
    --------
    >>> from perfstats.adapters.records.cells import number
    >>> number(" 2.5 ", where="a.csv", line=2, column="x"), number("", where="a.csv", line=3,
    ...     column="x")
    (2.5, nan)
    >>> number("yes", where="a.csv", line=4, column="x")
    Traceback (most recent call last):
    ...
    ValueError: a.csv line 4, column 'x': 'yes' is not a number
    """
    text = cell.strip()
    if not text:
        return math.nan
    place = f"{where} line {line}, column {column!r}"
    try:
        value = float(int(text)) if integer else float(text)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{place}: {cell!r} is not {kind}") from None
    if not math.isfinite(value):
        raise ValueError(f"{place}: {cell!r} is not a finite number")
    return value
