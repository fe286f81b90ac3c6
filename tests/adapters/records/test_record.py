"""The record CSV and its metadata: rows written, read back, resumed."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

import pytest
from perfstats.adapters import Measurement
from perfstats.adapters.ab import AB, read_ab_record
from perfstats.adapters.records.record import (
    COLUMNS,
    RUN,
    Record,
    metadata_path,
    read_metadata,
    read_record,
    row_of,
)

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


class TestRecord:
    def test_round_trip_is_exact(self, tmp_path) -> None:
        path = tmp_path / "r.csv"
        rec = Record(path)
        values = [0.1 + 0.2, 1e-300, 123456789.123456789]
        for i, v in enumerate(values, start=1):
            m = Measurement(value=v, unit="ms", cold=i == 1, started_at=T0, extra={"i": i})
            rec.append(row_of(i, 1, "measure", 't,with "quotes"', m))
        bad = Measurement.failure('no, "really"', unit="ms", cold=None, started_at=T0)
        rec.append(row_of(4, 1, "measure", "t", bad))
        rec.close()
        df = read_record(path)
        assert df["value"].tolist()[:3] == values and math.isnan(df["value"].iloc[3])
        assert df["cold"].tolist()[:2] == [True, False] and df["cold"].isna().iloc[3]
        assert df["target"].iloc[0] == 't,with "quotes"'
        assert df["error"].iloc[3] == 'no, "really"'
        assert json.loads(df["extra"].iloc[0]) == {"i": 1}
        assert str(df["started_at"].dt.tz) == "UTC"

    def test_refuses_to_overwrite_and_drops_a_torn_last_line(self, tmp_path) -> None:
        path = tmp_path / "r.csv"
        rec = Record(path)
        m = Measurement(value=1.0, unit="ns", cold=None, started_at=T0)
        rec.append(row_of(1, 1, "measure", "t", m))
        rec.close()
        with pytest.raises(ValueError, match="already exists"):
            Record(path)
        with open(path, "a") as f:
            f.write("2,1,measure,t,2.0,ns")  # a crash in the middle of a row
        assert len(read_record(path)) == 1
        resumed = Record(path, resume=True, force=True)  # no metadata written here
        resumed.append(row_of(2, 1, "measure", "t", m))
        resumed.close()
        assert read_record(path)["run"].tolist() == [1, 2]

    def test_not_a_record(self, tmp_path) -> None:
        path = tmp_path / "x.csv"
        path.write_text("a,b\n1,2\n")
        with pytest.raises(ValueError, match="not a perfstats record"):
            read_record(path)
        with pytest.raises(ValueError, match="does not exist"):
            read_record(tmp_path / "missing.csv")
        assert metadata_path(tmp_path / "x.csv").name == "x.csv.meta.json"
        assert COLUMNS[:3] == ("run", "interval", "phase")


class TestFormatMarker:
    """The metadata's format marker is written with a record and checked when it is read."""

    def _record(self, path, marker: str) -> None:
        rec = Record(path)
        rec.append(row_of(1, 1, "measure", "t", Measurement(1.0, "ns", None, T0)))
        rec.write_metadata({"format": marker, "seed": 1})
        rec.close()

    def test_the_own_format_reads(self, tmp_path) -> None:
        path = tmp_path / "r.csv"
        self._record(path, RUN.marker)
        assert read_record(path)["value"].tolist() == [1.0]
        assert read_metadata(path, RUN)["seed"] == 1

    def test_another_version_is_refused_by_name(self, tmp_path) -> None:
        path = tmp_path / "r.csv"
        self._record(path, "perfstats-record/2")
        with pytest.raises(ValueError, match=r"format perfstats-record/2 by another version.*"
                                             r"reads perfstats-record/1"):  # fmt: skip
            read_record(path)
        with pytest.raises(ValueError, match="another version"):
            Record(path, resume=True)

    def test_another_kind_is_refused(self, tmp_path) -> None:
        path = tmp_path / "r.csv"
        self._record(path, RUN.marker)
        # The A-B reader refuses a run record by its marker before its header.
        with pytest.raises(ValueError, match=r"is not an A-B record: .*'perfstats-record/1'"):
            read_ab_record(path)
        self._record(tmp_path / "s.csv", AB.marker)
        with pytest.raises(ValueError, match="is not a perfstats record"):
            read_record(tmp_path / "s.csv")

    def test_a_format_that_cannot_resume_refuses(self, tmp_path) -> None:
        path = tmp_path / "s.csv"
        Record(path, AB).close()
        with pytest.raises(ValueError, match="cannot be resumed"):
            Record(path, AB, resume=True)

