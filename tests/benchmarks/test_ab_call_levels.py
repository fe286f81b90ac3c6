"""The call-level diagnosis of the local A-B suite's RMIT schedule."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd
import pytest

from benchmarks import ab_call_levels


def _rows(values: dict[int, list[float]], version: str = "baseline") -> pd.DataFrame:
    out = []
    for call, vals in values.items():
        for i, v in enumerate(vals, 1):
            out.append(
                {"call": call, "order": i, "benchmark": "k", "version": version,
                 "value": v, "status": "ok"}
            )  # fmt: skip
    return pd.DataFrame(out)


def test_a_slow_process_has_a_level_above_one_and_failures_do_not_count() -> None:
    rows = _rows({1: [10.0, 10.0], 2: [10.0, 10.0], 3: [14.0, 16.0]})
    failed = rows.iloc[[0]].assign(value=1000.0, status="failed", order=3)
    levels = ab_call_levels.call_levels(pd.concat([rows, failed], ignore_index=True))
    assert levels["level"].tolist() == pytest.approx([1.0, 1.0, 1.5])
    assert levels["spread"].tolist() == pytest.approx([1.0, 1.0, 16.0 / 14.0])


def test_levels_are_relative_to_each_version_so_the_change_itself_is_no_level() -> None:
    base = _rows({1: [10.0], 2: [10.0]}, "baseline")
    cand = _rows({3: [11.0], 4: [11.0]}, "candidate")
    levels = ab_call_levels.call_levels(pd.concat([base, cand], ignore_index=True))
    assert levels["level"].tolist() == pytest.approx([1.0] * 4)


def test_lag1_tells_phases_from_single_slow_processes() -> None:
    phases = np.repeat([1.0, 1.4, 1.0, 1.4], 10)
    singles = np.ones(40)
    singles[[5, 17, 29]] = 1.5
    assert ab_call_levels.lag1(phases) > 0.7
    assert abs(ab_call_levels.lag1(singles)) < 0.2
    assert math.isnan(ab_call_levels.lag1(np.array([1.0, 2.0])))


def test_quick_run_reports_both_schedules(capsys: pytest.CaptureFixture[str]) -> None:
    assert ab_call_levels.main(["--quick", "--runs", "1", "--benchmarks", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out if line.startswith(("rmit", "duet"))]
    assert [r[0] for r in rows] == ["rmit", "duet"]
    for r in rows:
        assert r[1] == "4" and 0 <= int(r[3]) <= 1
        median_level = float(r[6])
        assert 0.5 < median_level < 2.0
        # Four trials of three repeats give 12 pairs, enough for a verdict
        # and so for an interval, whose median width is the second last column.
        assert float(r[-2]) > 0


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit, match="--runs"):
        ab_call_levels.main(["--runs", "0"])
    with pytest.raises(SystemExit, match="--benchmarks"):
        ab_call_levels.main(["--benchmarks", "9"])


def test_a_setting_is_schedule_trials_and_calls_in_flight() -> None:
    assert ab_call_levels.parse_setting("duet:30:2") == ("duet", 30, 2)
    for bad, why in (("duet:30", "SCHEDULE:TRIALS:FLIGHT"), ("fifo:30:2", "duet or rmit"),
                     ("rmit:x:1", "integers"), ("rmit:1:1", "at least 2 trials")):  # fmt: skip
        with pytest.raises(argparse.ArgumentTypeError, match=why):
            ab_call_levels.parse_setting(bad)
    with pytest.raises(SystemExit, match="once"):
        ab_call_levels.main(["--setting", "duet:15:2", "--setting", "duet:15:2"])
