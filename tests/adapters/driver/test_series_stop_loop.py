"""The stop loop over many named series: one rule each, stop_when, subsets, misses, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from perfstats.adapters import Measurement, Target, run
from perfstats.adapters.records.measurement import utc_now
from perfstats.adapters.records.record import SERIES_FORMAT, read_metadata, read_record, series_path
from perfstats.adapters.records.series_table import read_series, series_values
from support.series_suite import NOISE, Suite

from perfstats.rules import CIWidth, Fixed


def test_every_series_stops_by_its_rule_the_quiet_ones_first(tmp_path: Path) -> None:
    suite = Suite(seed=1)
    path = tmp_path / "suite.csv"
    result = run(suite, CIWidth(error=0.01), record=path, max_n=400, progress=False)
    assert result.stopped_by == "rule"
    assert set(result.decisions) == {"value", *NOISE}
    assert all(d.stop for d in result.decisions.values()) and result.capped == ()
    n = {name: result.decisions[name].n for name in NOISE}
    assert n["quiet"] < n["mid"] < n["noisy"]
    # Once a benchmark stopped, the suite ran only the ones still going.
    subsets = [c for c in suite.calls if c is not None]
    assert subsets and all("quiet" not in c for c in subsets)
    every_round_everything = len(suite.calls) * len(NOISE)
    assert suite.executions <= 0.7 * every_round_everything
    # The record keeps every series of every run, and the metadata describes them.
    meta = read_metadata(path)
    assert meta["format"] == SERIES_FORMAT and meta["primary"] == "value"
    assert meta["series"]["noisy"] == {"unit": "ns", "direction": "lower", "source": "suite"}
    session = meta["sessions"][-1]
    assert {k: v["n"] for k, v in session["series"].items() if k in NOISE} == n
    table = read_series(path)
    for name in NOISE:
        judged = series_values(read_record(path), table, name)
        assert judged.size >= n[name]
        assert np.array_equal(result.series_values(name)[: n[name]], judged[: n[name]])
    assert len(read_record(path)) == len(suite.calls)


def test_stop_when_any_ends_with_the_first_series(tmp_path: Path) -> None:
    result = run(Suite(seed=2), CIWidth(error=0.01), stop_when="any", max_n=400, progress=False)
    assert result.stopped_by == "rule"
    stopped = [name for name, d in result.decisions.items() if d.stop]
    assert "noisy" not in stopped and stopped
    assert not result.decisions["noisy"].stop


def test_stop_when_a_named_series_and_its_cap(tmp_path: Path) -> None:
    result = run(Suite(seed=3), CIWidth(error=0.001), stop_when="noisy", max_n=30, progress=False)
    assert result.stopped_by == "max_n"
    assert "noisy" in result.capped
    assert result.decision is result.decisions["noisy"]
    assert result.decision.details["max_n_reached"] is True


def test_a_suite_that_cannot_select_runs_everything(tmp_path: Path) -> None:
    suite = Suite(seed=4, selects=False)
    result = run(suite, CIWidth(error=0.01), max_n=400, progress=False)
    assert all(c is None for c in suite.calls)
    assert suite.executions == len(suite.calls) * len(NOISE)
    # The stopped series keep being recorded, but are no longer judged.
    quiet = result.decisions["quiet"]
    assert result.series_values("quiet").size > quiet.n


def test_a_missing_or_failed_series_is_recorded_failed_for_that_run(tmp_path: Path) -> None:
    suite = Suite(seed=5, missing={"mid": {3}}, failing={"noisy": {4, 5}})
    path = tmp_path / "miss.csv"
    result = run(suite, Fixed(n=10), record=path, progress=False)
    table = read_series(path)
    failed = table[table["status"] == "error"]
    assert failed[["run", "series", "error"]].values.tolist() == [
        [3, "mid", "not in this run's output"],
        [4, "noisy", "noisy crashed"],
        [5, "noisy", "noisy crashed"],
    ]
    assert np.isnan(failed["value"]).all()
    # A series with misses needs more runs for its own ten values.
    assert result.decisions["noisy"].n == 10 and result.decisions["mid"].n == 10
    assert len(read_record(path)) == 12
    assert result.series_values("noisy").size == 10


def test_a_series_that_keeps_missing_is_abandoned_not_waited_for(tmp_path: Path) -> None:
    suite = Suite({"a": 0.01, "gone": 0.01}, seed=6, missing={"gone": set(range(3, 500))})
    result = run(suite, Fixed(n=20), max_failures=4, progress=False)
    assert result.stopped_by == "rule"
    assert set(result.abandoned) == {"gone"}
    assert result.abandoned["gone"] == "not in this run's output"
    assert len(suite.calls) == 20


def test_stop_when_must_name_a_series_the_target_gives() -> None:
    with pytest.raises(ValueError, match=r"stop_when names the series 'nosuch'.*'quiet'"):
        run(Suite(seed=7), Fixed(n=5), stop_when="nosuch", progress=False)
    with pytest.raises(ValueError, match="stop_when must be"):
        run(Suite(seed=7), Fixed(n=5), stop_when="", progress=False)


def test_a_multi_series_record_resumes_every_series(tmp_path: Path) -> None:
    path = tmp_path / "resume.csv"
    first = run(Suite(seed=8), Fixed(n=20), record=path, max_n=12, rng=1, progress=False)
    assert first.stopped_by == "max_n"
    assert set(first.capped) == {"value", *NOISE}
    # The same suite, resumed without a cap: every series continues from its 12 values.
    second = run(Suite(seed=9), Fixed(n=20), record=path, resume=True, progress=False)
    assert second.stopped_by == "rule"
    for name in ("value", *NOISE):
        assert second.decisions[name].n == 20
        assert np.array_equal(second.series_values(name)[:12], first.series_values(name))
    assert read_record(path)["run"].tolist() == list(range(1, 21))
    assert read_metadata(path)["format"] == SERIES_FORMAT


def test_a_record_of_format_one_resumes_as_before(tmp_path: Path) -> None:
    class One(Target):
        kind, name = "one", "one number"

        def __init__(self) -> None:
            self.rng = np.random.default_rng(0)

        def invoke(self) -> Measurement:
            return Measurement(float(self.rng.normal(10.0, 0.1)), "ns", None, utc_now())

        def _config(self) -> dict[str, Any]:
            return {}

    path = tmp_path / "one.csv"
    run(One(), Fixed(n=8), record=path, max_n=5, progress=False)
    assert json.loads((tmp_path / "one.csv.meta.json").read_text())["format"] == (
        "perfstats-record/1"
    )
    result = run(One(), Fixed(n=8), record=path, resume=True, progress=False)
    assert result.stopped_by == "rule" and result.decision.n == 8
    assert not series_path(path).exists()
    assert read_metadata(path)["format"] == "perfstats-record/1"
    assert result.series_names == ("value",) and result.series.empty


def test_auto_warmup_judges_every_series_from_the_steady_state(tmp_path: Path) -> None:
    suite = Suite({"a": 0.01, "b": 0.02}, seed=13, slow_first=12)
    result = run(suite, Fixed(n=20), warmup="auto", record=tmp_path / "w.csv", progress=False)
    warmup = result.metadata["sessions"][-1]["warmup"]
    assert warmup["start_run"] == 13
    for name in ("value", "a", "b"):
        assert result.decisions[name].stop and result.decisions[name].n == 20
        judged = result.series_values(name)
        # No warm-up value (twice as slow) is judged.
        assert judged.max() < 1.5 * np.median(judged)


def test_the_series_stop_when_names_keeps_missing_and_the_run_fails(tmp_path: Path) -> None:
    from perfstats.adapters import TargetFailed

    suite = Suite({"a": 0.01, "b": 0.01}, seed=14, missing={"b": set(range(3, 500))})
    path = tmp_path / "gone.csv"
    with pytest.raises(TargetFailed, match=r"series 'b' .* missed 3 runs in a row") as caught:
        run(suite, Fixed(n=20), stop_when="b", max_failures=3, record=path, progress=False)
    assert caught.value.result.stopped_by == "failures"
    assert caught.value.result.abandoned == {"b": "not in this run's output"}
    assert read_metadata(path)["sessions"][-1]["series"]["b"]["abandoned"]


def test_several_in_flight_keep_each_series_in_run_order(tmp_path: Path) -> None:
    path = tmp_path / "parallel.csv"
    result = run(Suite(seed=15), Fixed(n=12), concurrency=3, record=path, progress=False)
    table = read_series(path)
    for name in NOISE:
        mine = table[table["series"] == name].sort_values("run")
        assert np.array_equal(result.series_values(name), mine["value"].to_numpy())
        assert result.decisions[name].n == 12
