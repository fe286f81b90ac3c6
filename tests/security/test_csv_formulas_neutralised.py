"""No cell of an exported record starts a spreadsheet formula.

Target names and error texts starting with ``=``, ``+``, ``-``, ``@``, tab or
carriage return get a leading ``'`` in the CSV; numbers stay numbers; the
record readers give back the original text.
"""

from __future__ import annotations

import csv
import itertools
import threading
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from perfstats.adapters import Measurement, Target, read_record, run
from perfstats.adapters.records.measurement import utc_now

from perfstats.rules import Fixed

STARTS = ("=", "+", "-", "@", "\t", "\r")
NASTY = [
    '=HYPERLINK("http://127.0.0.1/x?"&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "'=already quoted",
]


class NastyTarget(Target):
    """A target named like a formula whose failures read like formulas."""

    kind = "nasty"

    def __init__(self, name: str) -> None:
        self.name = name
        self._errors = itertools.cycle(NASTY)
        self._calls = itertools.count()
        self._lock = threading.Lock()

    def invoke(self) -> Measurement:
        with self._lock:
            call = next(self._calls)
            error = None if call % 2 else next(self._errors)
        if error is None:
            return Measurement(-1.5 - call, "ms", None, utc_now())
        return Measurement.failure(error, unit="ms", cold=None, started_at=utc_now())

    def _config(self) -> dict:
        return {}


def _cells(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_formula_cells_are_neutralised_and_read_back(tmp_path: Path) -> None:
    record = tmp_path / "run.csv"
    name = "=cmd|' /C calc'!A0"
    run(NastyTarget(name), Fixed(n=len(NASTY)), record=record, progress=False,
        max_failures=100)  # fmt: skip
    rows = _cells(record)
    assert len(rows) == 2 * len(NASTY)
    for row in rows:
        for column, cell in row.items():
            if cell.startswith(STARTS):
                # Only numbers may start like a formula.
                float(cell)
                assert column == "value", (column, cell)
        assert row["target"] == "'" + name
    errors = [row["error"] for row in rows if row["error"]]
    assert errors and all(e.startswith("'") for e in errors)
    values = [float(row["value"]) for row in rows if row["value"]]
    assert values and all(v < 0 for v in values)
    # Reading the record gives back exactly what the target said.
    df = read_record(record)
    assert set(df["target"]) == {name}
    failed = df[df["status"] == "error"]["error"].tolist()
    assert failed == [" ".join(e.split()) for e in NASTY]
    assert (df["value"].dropna() < 0).all()


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=12))
def test_neutralising_is_reversible_and_complete(text: str) -> None:
    from perfstats.adapters.records.record import spreadsheet_safe, spreadsheet_text

    safe = spreadsheet_safe(text)
    assert spreadsheet_text(safe) == text
    if safe.startswith(STARTS):
        float(safe)  # a number, which a spreadsheet reads as a number
