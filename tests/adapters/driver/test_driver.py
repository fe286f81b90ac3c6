"""The driver on real local processes: intervals, failures, records, resume."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters import Command, TargetFailed, read_record, run
from perfstats.adapters.records.record import metadata_path
from perfstats.adapters.targets.builtin import builtin_target
from support.services import HERE

from perfstats.rules import Fixed

PY = sys.executable
SCRIPTED = str(HERE / "scripted.py")


def scripted(state: Path, *plan: str, timeout: float | None = None) -> Command:
    """A command printing value=100+n on its n-th call, failing or sleeping as planned."""
    return Command(
        [PY, "-I", "-S", SCRIPTED, str(state), *plan],
        regex=r"value=(\d+)",
        unit="ms",
        timeout=timeout,
        label="scripted",
    )


def test_run_until_the_rule_stops_and_record_everything(tmp_path) -> None:
    path = tmp_path / "run.csv"
    result = run(builtin_target(size=2000, repeat=2), "fixed", rule_options={"n": 12},
                 record=path, progress=False, rng=7)  # fmt: skip
    assert result.decision.stop and result.stopped_by == "rule" and result.decision.n == 12
    df = read_record(path)
    assert len(df) == 12 and df["run"].tolist() == list(range(1, 13))
    assert (df["status"] == "ok").all() and (df["phase"] == "measure").all()
    assert (df["interval"] == 1).all() and (df["unit"] == "ns").all()
    assert df["target"].unique().tolist() == ["builtin workload"]
    np.testing.assert_array_equal(df["value"].to_numpy(), result.values)
    pd.testing.assert_frame_equal(df, result.measurements)
    meta = json.loads(metadata_path(path).read_text())
    assert meta["seed"] == 7 and meta["rule"] == {"name": "Fixed", "config": {"n": 12}}
    assert meta["target"]["kind"] == "command" and meta["target"]["regex"]
    session = meta["sessions"][0]
    assert {"cpu_model", "cores_logical", "memory_bytes", "os", "kernel"} <= set(session["machine"])
    assert session["software"]["python"] and session["software"]["packages"]["numpy"]
    assert session["stopped_by"] == "rule" and session["ended_at"] >= session["started_at"]
    assert session["decision"]["stop"] is True


def test_failures_are_recorded_and_never_judged(tmp_path) -> None:
    result = run(scripted(tmp_path / "s", "fail=2,5"), Fixed(n=6), record=tmp_path / "r.csv",
                 progress=False)  # fmt: skip
    df = result.measurements
    assert len(df) == 8 and df["run"].tolist() == list(range(1, 9))
    failed = df[df["status"] != "ok"]
    assert failed["run"].tolist() == [2, 5] and failed["value"].isna().all()
    assert failed["error"].str.contains("planned failure of call").all()
    # The rule saw exactly the six successful values, in run order.
    assert result.values.tolist() == [101.0, 103.0, 104.0, 106.0, 107.0, 108.0]
    assert result.decision.n == 6
    assert read_record(tmp_path / "r.csv")["status"].tolist().count("error") == 2


def test_consecutive_failures_stop_the_run_with_a_clear_error(tmp_path) -> None:
    path = tmp_path / "r.csv"
    with pytest.raises(TargetFailed) as info:
        run(Command(["sh", "-c", "echo disk full >&2; exit 4"], label="broken"), Fixed(n=10),
            record=path, progress=False, max_failures=3)  # fmt: skip
    message = str(info.value)
    assert "'broken'" in message and "command" in message and "3 times in a row" in message
    assert "exit status 4: disk full" in message
    df = read_record(path)
    assert df["status"].tolist() == ["error"] * 3 and df["value"].isna().all()
    assert info.value.result.stopped_by == "failures"
    assert json.loads(metadata_path(path).read_text())["sessions"][0]["stopped_by"] == "failures"


def test_a_success_resets_the_failure_count(tmp_path) -> None:
    result = run(scripted(tmp_path / "s", "fail=1,2,4,5"), Fixed(n=3), progress=False,
                 max_failures=3)  # fmt: skip
    assert result.stopped_by == "rule" and len(result.measurements) == 7


def test_timeouts_are_recorded_as_such(tmp_path) -> None:
    result = run(scripted(tmp_path / "s", "sleep=2:5", timeout=1.0), Fixed(n=3), progress=False)
    df = result.measurements
    assert df["status"].tolist() == ["ok", "timeout", "ok", "ok"]
    assert "timed out after 1 s" in df["error"].iloc[1]
    assert result.values.tolist() == [101.0, 103.0, 104.0]


def test_max_n_caps_the_run(tmp_path) -> None:
    result = run(scripted(tmp_path / "s"), Fixed(n=100), max_n=7, progress=False)
    assert result.stopped_by == "max_n" and result.decision.stop
    assert result.decision.details["max_n_reached"] and len(result.measurements) == 7


def test_max_seconds_stops_starting_new_runs() -> None:
    t0 = time.monotonic()
    result = run(Command(["sleep", "0.2"]), Fixed(n=1000), max_seconds=1.0, progress=False)
    assert result.stopped_by == "max_seconds" and not result.decision.stop
    assert 2 <= len(result.measurements) <= 6 and time.monotonic() - t0 < 4


def test_warmup_runs_are_recorded_but_not_judged(tmp_path) -> None:
    result = run(scripted(tmp_path / "s"), Fixed(n=4), warmup=3, progress=False)
    df = result.measurements
    assert df["phase"].tolist() == ["warmup"] * 3 + ["measure"] * 4
    assert df["interval"].tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert result.values.tolist() == [104.0, 105.0, 106.0, 107.0]


def test_concurrency_runs_invocations_in_parallel() -> None:
    result = run(Command(["sleep", "0.5"]), Fixed(n=8), concurrency=4, progress=False)
    df = result.measurements
    assert sorted(df["run"]) == list(range(1, 9)) and (df["status"] == "ok").all()
    # From the record itself, not a stopwatch: count the invocations running
    # at each start; with 4 in flight some must overlap (one at a time none
    # would), and never more than 4.
    start = df["started_at"].astype("int64").to_numpy() * 1000  # us -> ns
    end = start + df["value"].to_numpy()
    in_flight = [int(((start <= s) & (s < end)).sum()) for s in start]
    assert 2 <= max(in_flight) <= 4


def test_spacing_waits_between_invocations(tmp_path) -> None:
    result = run(scripted(tmp_path / "s"), Fixed(n=3), spacing=0.6, progress=False)
    starts = result.measurements["started_at"]
    gaps = starts.diff().dt.total_seconds().dropna()
    assert (gaps >= 0.6).all()


def test_resume_continues_numbering_and_feeds_the_rule_first(tmp_path) -> None:
    path = tmp_path / "r.csv"
    options = {"interval": 4, "error": 1e-9}  # never satisfied: only max_n stops it
    first = run(scripted(tmp_path / "s", "fail=3"), "superflow", rule_options=options,
                record=path, max_n=6, progress=False, rng=11)  # fmt: skip
    assert first.stopped_by == "max_n" and len(first.measurements) == 7
    second = run(scripted(tmp_path / "s", "fail=3"), "superflow", rule_options=options,
                 record=path, resume=True, max_n=12, progress=False)  # fmt: skip
    df = read_record(path)
    assert df["run"].tolist() == list(range(1, 14))
    ok = df[df["status"] == "ok"]
    # Intervals count successful values: 4 per interval.
    assert ok["interval"].tolist() == [1] * 4 + [2] * 4 + [3] * 4
    assert second.values.tolist() == [float(100 + n) for n in range(1, 14) if n != 3]
    assert second.decision.n == 12 and second.seed == 11
    meta = json.loads(metadata_path(path).read_text())
    assert len(meta["sessions"]) == 2 and meta["rule"]["config"]["rng"] == 11


def test_resume_refuses_another_rule_or_target(tmp_path) -> None:
    path = tmp_path / "r.csv"
    run(scripted(tmp_path / "s"), Fixed(n=2), record=path, progress=False)
    with pytest.raises(ValueError, match="the rule differs"):
        run(scripted(tmp_path / "s"), Fixed(n=3), record=path, resume=True, progress=False)
    with pytest.raises(ValueError, match="the target differs"):
        run(Command(["true"]), Fixed(n=2), record=path, resume=True, progress=False)
    with pytest.raises(ValueError, match="already exists"):
        run(scripted(tmp_path / "s"), Fixed(n=2), record=path, progress=False)


def test_resume_of_a_finished_record_runs_nothing(tmp_path) -> None:
    path = tmp_path / "r.csv"
    run(scripted(tmp_path / "s"), Fixed(n=3), record=path, progress=False)
    again = run(scripted(tmp_path / "s"), Fixed(n=3), record=path, resume=True, progress=False)
    assert again.decision.stop and len(read_record(path)) == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"concurrency": 0}, "concurrency"),
        ({"spacing": -1}, "spacing"),
        ({"max_n": 0}, "max_n"),
        ({"max_seconds": float("nan")}, "max_seconds"),
        ({"warmup": -2}, "warmup"),
        ({"max_failures": 0}, "max_failures"),
        ({"rng": -5}, "rng"),
        ({"resume": True}, "needs the record"),
    ],
)
def test_bad_settings_are_refused(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        run(Command(["true"]), Fixed(n=1), progress=False, **kwargs)


def test_unknown_rule_and_bad_rule_options(tmp_path) -> None:
    with pytest.raises(ValueError, match="rule must be one of"):
        run(Command(["true"]), "no-such-rule", progress=False, record=tmp_path / "a.csv")
    assert not (tmp_path / "a.csv").exists()
    with pytest.raises(ValueError, match="error must be"):
        run(Command(["true"]), "superflow", rule_options={"error": "big"}, progress=False)
    with pytest.raises(ValueError, match="bad option"):
        run(Command(["true"]), "superflow", rule_options={"colour": 1}, progress=False)
