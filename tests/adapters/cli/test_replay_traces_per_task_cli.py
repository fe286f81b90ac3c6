"""``perfstats replay --traces-per-task K``: fewer, larger tasks, the same result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.cli import main

import perfstats.replay

NAMES = ["cold/Func1", "cold/Func17", "cold/Func33", "warm/Func2", "warm/Func40"]


def _replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def csv(tmp_path: Path, scope_traces: dict[str, np.ndarray]) -> Path:
    path = tmp_path / "traces.csv"
    pd.DataFrame({k: scope_traces[k][:200] for k in NAMES}).to_csv(path, index=False)
    return path


def test_traces_per_task_reaches_replay_and_keeps_the_result(
    capsys: pytest.CaptureFixture[str], csv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = [str(csv), "--rule", "superflow", "--seed", "3", "--json", "--no-progress"]
    code, out, err = _replay(capsys, *argv, "--workers", "1")
    assert code == 0, err
    serial = json.loads(out)
    seen: list[Any] = []
    real = perfstats.replay.replay

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("traces_per_task"))
        return real(*args, **kwargs)

    monkeypatch.setattr(perfstats.replay, "replay", spy)
    code, out, err = _replay(capsys, *argv, "--workers", "2", "--traces-per-task", "3")
    assert code == 0, err
    assert seen == [3]
    assert json.loads(out) == serial
    assert [t["trace"] for t in serial["tests"]] == NAMES


@pytest.mark.parametrize("value", ["0", "-2"])
def test_traces_per_task_must_be_positive(
    capsys: pytest.CaptureFixture[str], csv: Path, value: str
) -> None:
    code, _, err = _replay(capsys, str(csv), "--traces-per-task", value, "--workers", "1")
    assert code == 2
    assert f"traces_per_task must be >= 1, got {value}" in err


def test_traces_per_task_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    assert "--traces-per-task K" in capsys.readouterr().out
