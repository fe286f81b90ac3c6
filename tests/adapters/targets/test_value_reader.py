"""How a target reads its value: wall time, a regex or a JSON field."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from perfstats.adapters.targets.values import ValueReader

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


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
