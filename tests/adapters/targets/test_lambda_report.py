"""AWS Lambda's REPORT line parsed into a LambdaReport."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from perfstats.adapters import parse_report
from perfstats.adapters.targets.lambda_report import find_report

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
