"""Several named values read from a command's output, each a series."""

from __future__ import annotations

import sys

import pytest
from perfstats.adapters import Command
from perfstats.adapters.targets.registry import target_by_name
from perfstats.adapters.targets.values import ValueReader, ValueReaders

PY = sys.executable
_REPORT = "import json; print(json.dumps({'lat': {'p99': 4.5}, 'rps': 1200, 'heap': 3e6}))"


def test_several_json_and_regex_readers_become_series() -> None:
    target = Command(
        [PY, "-I", "-S", "-c", _REPORT],
        json_field="lat.p99",
        unit="ms",
        metrics=[
            {"name": "rps", "json_field": "rps", "unit": "1/s", "direction": "higher"},
            ValueReader(name="heap", regex=r'"heap": (?P<value>[0-9.e+]+)', unit="B"),
        ],
    )
    m = target.invoke()
    assert m.ok and m.value == 4.5 and m.unit == "ms"
    rps, heap = m.series["rps"], m.series["heap"]
    assert (rps.value, rps.unit, rps.direction, rps.source) == (1200.0, "1/s", "higher", "output")
    assert (heap.value, heap.unit, heap.direction) == (3e6, "B", "lower")
    assert target.config()["metrics"] == [
        {"name": "rps", "direction": "higher", "json_field": "rps", "unit": "1/s"},
        {"name": "heap", "regex": '"heap": (?P<value>[0-9.e+]+)', "unit": "B"},
    ]


def test_a_value_missing_from_one_run_is_a_series_error_not_a_failed_run() -> None:
    target = Command(
        ["sh", "-c", "echo t=3"],
        metrics=[
            {"name": "t", "regex": r"t=(\d+)", "unit": "ms"},
            {"name": "rps", "regex": r"rps=(\d+)"},
        ],
    )
    m = target.invoke()
    assert m.ok and m.unit == "ns"
    assert m.series["t"].value == 3.0
    rps = m.series["rps"]
    assert rps.value is None and not rps.ok
    assert rps.error == "rps: regex 'rps=(\\\\d+)' found nothing in the output 't=3'"


def test_the_single_reader_api_is_unchanged() -> None:
    reader = ValueReader(regex=r"took (\d+)", unit="ms")
    assert reader.name is None and reader.direction == "lower"
    assert reader.read("took 7", wall_ns=1) == 7.0
    assert reader.config() == {"regex": r"took (\d+)", "unit": "ms"}
    assert ValueReader().config() == {"value": "wall time", "unit": "ns"}
    # The existing single-reader target keeps giving one number and no output series.
    m = Command(["sh", "-c", "echo took 7"], regex=r"took (\d+)", unit="ms", rusage=False).invoke()
    assert m.value == 7.0 and dict(m.series) == {}


def test_a_list_of_one() -> None:
    readers = ValueReaders([ValueReader(name="x", json_field="x", unit="s")])
    assert len(readers) == 1 and readers[0].name == "x"
    assert [r.name for r in readers] == ["x"]
    assert readers.read_all('{"x": 2}')["x"].value == 2.0


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        ("rps", "must be a list of readers"),
        ({"name": "rps"}, "must be a list of readers"),
        ([{"regex": "x"}], "needs a name and a regex or json_field"),
        ([{"name": "rps"}], "needs a name and a regex or json_field"),
        ([{"name": "rps", "regex": "x", "colour": "red"}], "got 'colour'"),
        ([{"name": "", "regex": "x"}], "non-empty string"),
        ([{"name": "a", "regex": "x", "direction": "up"}], "direction must be one of"),
        ([{"name": "a", "regex": "("}], "not a valid regular expression"),
        ([{"name": "a", "regex": "x"}, {"name": "a", "json_field": "y"}], "given twice"),
        ([{"name": "cpu_user", "regex": "x"}], "taken by a series the target records"),
        ([{"name": "perf_cycles", "regex": "x"}], "taken by a series the target records"),
        ([42], "must be a ValueReader or a mapping"),
    ],
)
def test_bad_metric_readers_are_refused(metrics, message) -> None:
    with pytest.raises(ValueError, match=message):
        Command(["true"], metrics=metrics)


def test_the_command_line_options_reach_the_target() -> None:
    target = target_by_name(
        "command",
        ["sh", "-c", "echo rps=5"],
        {
            "metrics": [{"name": "rps", "regex": r"rps=(\d+)", "direction": "higher"}],
            "rusage": False,
            "perf": ["task-clock"],
            "energy": False,
        },
    )
    m = target.invoke()
    assert m.ok and m.series["rps"].value == 5.0
    assert sorted(m.series) == ["perf_task-clock", "rps"]
