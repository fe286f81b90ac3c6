"""The series table of a record (format perfstats-record/1.1): written, read back, resumed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.records.measurement import Measurement, utc_now
from perfstats.adapters.records.record import (
    RUN,
    SERIES_FORMAT,
    Record,
    check_format,
    check_resumable,
    read_record,
    record_inputs,
    row_of,
    series_path,
)
from perfstats.adapters.records.series import SeriesValue
from perfstats.adapters.records.series_table import (
    PRIMARY,
    SeriesTable,
    long_frame,
    read_series,
    series_row,
    series_values,
)


def _write(path: Path, runs: int) -> None:
    rec = Record(path)
    table = SeriesTable(path)
    try:
        rec.write_metadata({"format": SERIES_FORMAT})
        for run in range(1, runs + 1):
            phase = "warmup" if run == 1 else "measure"
            m = Measurement(float(run), "ns", None, utc_now())
            rec.append(row_of(run, 1, phase, "suite", m))
            table.append(
                [
                    series_row(run, "parse", SeriesValue(10.0 * run, "ns", source="gbench")),
                    series_row(
                        run,
                        "=render",
                        SeriesValue(None, "ns", error="not in this run's output")
                        if run == 3
                        else SeriesValue(0.1 * run, "ns"),
                    ),
                ]
            )
    finally:
        table.close()
        rec.close()


def test_a_series_table_round_trips_and_pandas_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    _write(path, 4)
    table = read_series(path)
    assert table["series"].tolist()[:2] == ["parse", "=render"]  # a risky name comes back as is
    assert table["value"].tolist()[:2] == [10.0, 0.1]
    failed = table[table["status"] == "error"]
    assert failed[["run", "series", "error"]].values.tolist() == [
        [3, "=render", "not in this run's output"]
    ]
    plain = pd.read_csv(series_path(path))  # no perfstats needed to read it
    assert list(plain.columns) == ["run", "series", "value", "unit", "status", "error"]
    assert plain.pivot(index="run", columns="series", values="value").shape == (4, 2)
    main = read_record(path)
    assert series_values(main, table, "parse").tolist() == [20.0, 30.0, 40.0]  # no warm-up
    assert series_values(main, table, "=render").tolist() == [0.2, 0.4]  # run 3 missed
    assert series_values(main, table, PRIMARY).tolist() == [2.0, 3.0, 4.0]
    long = long_frame(main, table)
    assert len(long) == 12 and set(long["series"]) == {PRIMARY, "parse", "=render"}
    assert (long[long["run"] == 1]["phase"] == "warmup").all()
    assert series_path(path) in record_inputs(path)


def test_resume_drops_a_cut_line_and_runs_the_run_csv_lacks(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    _write(path, 3)
    with open(series_path(path), "a", encoding="utf-8") as f:
        f.write("4,parse,40.0,ns,ok,\n5,parse,5")  # run 4 not in the run CSV, run 5 cut
    table = SeriesTable(path, resume=True, last_run=3)
    try:
        assert table.existing["run"].max() == 3
        table.append([series_row(4, "parse", SeriesValue(41.0, "ns"))])
    finally:
        table.close()
    again = read_series(path)
    assert again[again["series"] == "parse"]["value"].tolist() == [10.0, 20.0, 30.0, 41.0]


def test_a_table_left_without_its_record_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    series_path(path).write_text("run,series,value,unit,status,error\n")
    with pytest.raises(ValueError, match="already exists without its record"):
        SeriesTable(path)


def test_format_one_one_reads_and_resumes_as_a_run_record(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    _write(path, 2)
    check_format(SERIES_FORMAT, RUN, path)
    check_resumable({"format": SERIES_FORMAT}, RUN, path)
    rec = Record(path, resume=True)
    try:
        assert rec.existing["run"].tolist() == [1, 2]
    finally:
        rec.close()
    with pytest.raises(ValueError, match="perfstats-record/2 by another version"):
        check_format("perfstats-record/2", RUN, path)


def test_a_record_without_a_series_table_reads_as_no_series(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    rec = Record(path)
    rec.write_metadata({"format": RUN.marker})
    rec.append(row_of(1, 1, "measure", "t", Measurement(2.0, "ns", None, utc_now())))
    rec.close()
    assert read_series(path).empty
    assert np.array_equal(series_values(read_record(path), read_series(path), PRIMARY), [2.0])


def test_metric_frame_reads_a_series_as_the_primary(tmp_path: Path) -> None:
    from perfstats.adapters.records.series_table import metric_frame

    path = tmp_path / "run.csv"
    _write(path, 4)
    main, table = read_record(path), read_series(path)
    assert metric_frame(main, table, PRIMARY) is main
    parse = metric_frame(main, table, "parse")
    assert parse["value"].tolist() == [10.0, 20.0, 30.0, 40.0]
    assert parse.columns.tolist() == main.columns.tolist()
    render = metric_frame(main, table, "=render")
    assert render["status"].tolist() == ["ok", "ok", "error", "ok"]
    assert render.loc[2, "error"] == "not in this run's output" and np.isnan(render.loc[2, "value"])
    # Only the rows of the series: a run that did not ask for it is left out.
    partial = metric_frame(
        main, table[~((table["run"] == 4) & (table["series"] == "parse"))], "parse"
    )
    assert partial["run"].tolist() == [1, 2, 3]
    with pytest.raises(
        ValueError, match=r"no series 'nosuch' in this record; it has 'value', 'parse'"
    ):
        metric_frame(main, table, "nosuch")
