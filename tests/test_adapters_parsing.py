"""Pure parsing and bookkeeping of the adapter layer: no services needed."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

import pytest
from perfstats.adapters import Measurement, parse_report
from perfstats.adapters.cli.options import parse_options, parse_value
from perfstats.adapters.records.record import COLUMNS, Record, metadata_path, read_record, row_of
from perfstats.adapters.records.redaction import REDACTED, redact
from perfstats.adapters.report.formatting import quantity
from perfstats.adapters.targets.lambda_report import find_report
from perfstats.adapters.targets.values import ValueReader

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)

# Lines in the format of the AWS Lambda developer guide ("Monitoring" ->
# "Lambda function logs"): fields separated by tabs.
WARM = (
    "REPORT RequestId: 3604209a-e9a3-11e6-939a-754dd98c7be3\tDuration: 12.34 ms\t"
    "Billed Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 18 MB\t"
)
COLD = (
    "REPORT RequestId: 8f5f2e6c-8a2b-4c55-9b2d-0a1c4e0f1d2e\tDuration: 1052.90 ms\t"
    "Billed Duration: 1053 ms\tMemory Size: 1024 MB\tMax Memory Used: 91 MB\t"
    "Init Duration: 231.71 ms\t\nXRAY TraceId: 1-5e1b4a6b-8c9a1d2e3f4a5b6c7d8e9f0a\t"
    "SegmentId: 4d3c2b1a0f9e8d7c\tSampled: true"
)


class TestLambdaReport:
    def test_warm_line(self) -> None:
        r = parse_report(WARM)
        assert r.request_id == "3604209a-e9a3-11e6-939a-754dd98c7be3"
        assert (r.duration_ms, r.billed_duration_ms) == (12.34, 13.0)
        assert (r.memory_size_mb, r.max_memory_used_mb) == (128.0, 18.0)
        assert r.init_duration_ms is None and not r.cold

    def test_cold_line_with_xray(self) -> None:
        r = parse_report(COLD.splitlines()[0])
        assert r.duration_ms == 1052.90 and r.billed_duration_ms == 1053.0
        assert r.init_duration_ms == 231.71 and r.cold

    def test_duration_is_not_confused_with_qualified_durations(self) -> None:
        # Field order changed: Init Duration and Billed Duration first.
        line = (
            "REPORT RequestId: x\tInit Duration: 5.00 ms\tBilled Duration: 9 ms\t"
            "Duration: 8.25 ms\tMemory Size: 256 MB\tMax Memory Used: 40 MB"
        )
        r = parse_report(line)
        assert (r.duration_ms, r.billed_duration_ms, r.init_duration_ms) == (8.25, 9.0, 5.0)

    def test_snapstart_restore_is_kept_apart(self) -> None:
        line = WARM + "Restore Duration: 474.16 ms\tBilled Restore Duration: 440 ms"
        r = parse_report(line)
        assert r.restore_duration_ms == 474.16 and r.duration_ms == 12.34

    def test_status_field_of_failed_invocations(self) -> None:
        r = parse_report(WARM + "Status: timeout")
        assert r.status == "timeout"

    def test_find_report_in_a_log_tail(self) -> None:
        log = (
            "START RequestId: 8f5f Version: $LATEST\nhello from the handler\n"
            "END RequestId: 8f5f\n" + COLD + "\n"
        )
        report = find_report(log)
        assert report is not None and report.cold and report.init_duration_ms == 231.71
        assert find_report("START RequestId: a\nEND RequestId: a\n") is None

    @pytest.mark.parametrize(
        "line",
        [
            "START RequestId: abc Version: $LATEST",
            "REPORT RequestId: abc\tDuration: 1.0 ms\tMemory Size: 128 MB",
            "REPORT RequestId: abc\tDuration: fast ms\tBilled Duration: 1 ms\t"
            "Memory Size: 128 MB\tMax Memory Used: 18 MB",
        ],
    )
    def test_bad_lines_are_refused(self, line: str) -> None:
        with pytest.raises(ValueError, match="REPORT"):
            parse_report(line)


class TestValueReader:
    def test_wall_time_is_the_default(self) -> None:
        reader = ValueReader()
        assert reader.unit == "ns" and reader.read("whatever", wall_ns=42) == 42.0

    def test_regex_groups(self) -> None:
        assert ValueReader(regex=r"t=(\d+)").read("a t=17 b", wall_ns=1) == 17.0
        assert ValueReader(regex=r"(x)|t=(?P<value>[\d.]+)").read("t=2.5", wall_ns=1) == 2.5
        assert ValueReader(regex=r"\d+\.\d+").read("took 3.25s", wall_ns=1) == 3.25

    def test_json_path_with_list_index(self) -> None:
        out = json.dumps({"runs": [{"ms": 1.5}, {"ms": 2.5}]})
        assert ValueReader(json_field="runs.1.ms", unit="ms").read(out, wall_ns=1) == 2.5

    @pytest.mark.parametrize(
        ("kwargs", "output", "message"),
        [
            ({"regex": r"t=(\d+)"}, "nothing here", "found nothing"),
            ({"regex": r"t=(\w+)"}, "t=abc", "not a number"),
            ({"json_field": "a.b"}, "not json", "not JSON"),
            ({"json_field": "a.b"}, '{"a": {"c": 1}}', "no 'b'"),
            ({"json_field": "a"}, '{"a": true}', "not a number"),
            ({"json_field": "a"}, '{"a": "inf"}', "not a finite number"),
        ],
    )
    def test_missing_values_are_errors(self, kwargs: dict, output: str, message: str) -> None:
        with pytest.raises(ValueError, match=message):
            ValueReader(**kwargs).read(output, wall_ns=1)

    def test_bad_settings(self) -> None:
        with pytest.raises(ValueError, match="at most one"):
            ValueReader(regex="x", json_field="y")
        with pytest.raises(ValueError, match="not a valid regular expression"):
            ValueReader(regex="(")
        with pytest.raises(ValueError, match="wall time is always in ns"):
            ValueReader(unit="ms")


class TestOptions:
    def test_literals_and_words(self) -> None:
        assert parse_options(["a=1", "b=0.5", "c=true", "d=(0.25, 0.75)", "e=order"]) == {
            "a": 1,
            "b": 0.5,
            "c": True,
            "d": (0.25, 0.75),
            "e": "order",
        }
        assert parse_value('{"A": "1"}') == {"A": "1"}
        assert parse_value("none") is None
        assert parse_options(["block-kind=moving"]) == {"block_kind": "moving"}

    @pytest.mark.parametrize("item", ["novalue", "=3", "two words=1"])
    def test_malformed(self, item: str) -> None:
        with pytest.raises(ValueError, match="key=value"):
            parse_options([item])

    def test_duplicates(self) -> None:
        with pytest.raises(ValueError, match="twice"):
            parse_options(["a=1", "a=2"])


class TestRedaction:
    def test_headers_env_and_urls(self) -> None:
        config = {
            "headers": {"Authorization": "Bearer s3cr3t", "X-Api-Key": "k", "Accept": "*/*"},
            "env": {"AWS_SECRET_ACCESS_KEY": "abc", "GITHUB_TOKEN": "t", "PATH": "/bin"},
            "url": "https://user:pw@host/f?sig=zz&n=1",
            "key": "/home/me/.ssh/id_ed25519",
        }
        text = json.dumps(redact(config))
        for secret in ("s3cr3t", '"k"', "abc", '"t"', "pw@", "zz"):
            assert secret not in text
        out = redact(config)
        assert out["headers"]["Accept"] == "*/*" and out["env"]["PATH"] == "/bin"
        assert out["headers"]["Authorization"] == REDACTED
        assert out["key"] == "/home/me/.ssh/id_ed25519"


class TestMeasurement:
    def test_failures_carry_no_value(self) -> None:
        m = Measurement.failure("exit status 1:\n  boom", unit="ns", cold=None, started_at=T0)
        assert m.value is None and m.status == "error" and m.error == "exit status 1: boom"
        with pytest.raises(ValueError, match="carries no value"):
            Measurement(value=1.0, unit="ns", cold=None, started_at=T0, status="timeout")

    def test_ok_needs_a_finite_value(self) -> None:
        with pytest.raises(ValueError, match="finite value"):
            Measurement(value=math.nan, unit="ns", cold=None, started_at=T0)
        with pytest.raises(ValueError, match="status must be one of"):
            Measurement(value=None, unit="ns", cold=None, started_at=T0, status="maybe")


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
        resumed = Record(path, resume=True)
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
        assert metadata_path(tmp_path / "x.csv").name == "x.meta.json"
        assert COLUMNS[:3] == ("run", "interval", "phase")


def test_quantity_scales_times() -> None:
    assert quantity(1_500.0, "ns") == "1.5 µs"
    assert quantity(2.5e9, "ns") == "2.5 s"
    assert quantity(0.5, "ms") == "500 µs"
    assert quantity(3, "MB") == "3 MB"
