"""Record.rewrite_phases: a warm-up found after its rows were written, marked in place."""

from __future__ import annotations

from perfstats.adapters import Measurement, read_record
from perfstats.adapters.records.fields import RUN_FIELDS, field_descriptions
from perfstats.adapters.records.measurement import utc_now
from perfstats.adapters.records.record import COLUMNS, MEASURE, WARMUP, Record, row_of


def _row(run: int, value: float) -> dict:
    return row_of(run, 1, MEASURE, "t", Measurement(value, "ms", None, utc_now(), extra={"a": 1}))


def test_rewrite_marks_rows_and_appending_goes_on(tmp_path) -> None:
    path = tmp_path / "r.csv"
    rec = Record(path)
    for i in range(1, 6):
        rec.append(_row(i, 10.0 + i / 3))
    before = read_record(path)
    rec.rewrite_phases({1: WARMUP, 2: WARMUP})
    rec.append(_row(6, 7.25))
    rec.close()
    after = read_record(path)
    assert after["phase"].tolist() == [WARMUP, WARMUP] + [MEASURE] * 4
    # Nothing else changed, to the bit.
    same = after.iloc[:5].drop(columns="phase")
    assert same.equals(before.drop(columns="phase"))
    assert after["value"].iloc[5] == 7.25
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]  # no temporary file left


def test_every_column_is_described() -> None:
    fields = field_descriptions()
    assert tuple(fields) == COLUMNS and set(RUN_FIELDS) == set(COLUMNS)
    assert all(len(text) > 10 for text in fields.values())
