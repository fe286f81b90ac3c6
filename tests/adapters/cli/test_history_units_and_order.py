"""``perfstats history`` on histories without dates and in mixed units.

The histories are tidy CSVs (columns commit, benchmark, value, unit: the
format ``perfstats history`` documents) and directories of them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.ab.inputs import read_history
from perfstats.adapters.cli import main


def _commit(i: int) -> str:
    # Hash-like names whose sorted order is not the history's.
    return hashlib.sha1(f"c{i}".encode()).hexdigest()[:10]


def _history(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _rows(n: int, step_at: int, step: float, seed: int) -> list[tuple[str, str, float]]:
    rng = np.random.default_rng(seed)
    return [(_commit(i), "x", 5.0 * (step if i >= step_at else 1.0) * rng.lognormal(0, 0.01))
            for i in range(n) for _ in range(3)]  # fmt: skip


def test_hash_named_commits_without_dates_keep_the_files_order(capsys, tmp_path: Path) -> None:
    rows = _rows(16, 8, 1.2, seed=4)
    assert sorted({r[0] for r in rows}) != list(dict.fromkeys(r[0] for r in rows))
    path = tmp_path / "h.csv"
    pd.DataFrame(rows, columns=["commit", "benchmark", "value"]).to_csv(path, index=False)
    code, out, err = _history(capsys, str(path), "--seed", "3", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["order"] == "file"
    assert data["benchmarks"]["x"]["commits"] == [_commit(i) for i in range(16)]
    (point,) = data["benchmarks"]["x"]["change_points"]
    assert point["label"] == _commit(8)
    assert point["relative"] and point["change"] == pytest.approx(0.2, abs=0.03)
    code, out, err = _history(capsys, str(path), "--seed", "3")
    assert code == 0, err
    assert "commits in the order the file lists them (not every commit has a date)" in out
    # By name, as asked: the step is scrambled and the output says so.
    code, out, err = _history(capsys, str(path), "--seed", "3", "--order", "name")
    assert code == 0, err
    assert out.rstrip().endswith("commits in name order")


def test_order_that_cannot_be_followed_is_an_input_error(capsys, tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    pd.DataFrame(_rows(6, 3, 1.2, seed=1), columns=["commit", "benchmark", "value"]).to_csv(
        path, index=False)  # fmt: skip
    code, _, err = _history(capsys, str(path), "--order", "date")
    assert code == 2 and "has no date to order by" in err
    folder = tmp_path / "runs"
    folder.mkdir()
    for commit in ("a", "b"):
        (folder / f"{commit}.csv").write_text("benchmark,value\nx,1.0\nx,1.1\n")
    code, _, err = _history(capsys, str(folder), "--order", "file")
    assert code == 2 and "is a directory: its commits have no file order" in err
    assert read_history(folder).attrs["order"] == "name"


def test_same_benchmark_in_ms_then_s_is_compared_in_seconds(capsys, tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    rows = []
    for i in range(16):
        for _ in range(3):
            seconds = 0.8 * rng.lognormal(0, 0.01)
            # The first half written in milliseconds, the second in seconds: no change.
            rows.append((_commit(i), "x", seconds * 1e3 if i < 8 else seconds,
                         "ms" if i < 8 else "s"))  # fmt: skip
    path = tmp_path / "h.csv"
    pd.DataFrame(rows, columns=["commit", "benchmark", "value", "unit"]).to_csv(path, index=False)
    code, out, err = _history(capsys, str(path), "--seed", "2", "--format", "json")
    assert code == 0, err
    x = json.loads(out)["benchmarks"]["x"]
    assert x["unit"] == "s" and x["change_points"] == []
    assert max(x["values"]) < 1.0 < 1e3 * min(x["values"])


def test_units_that_do_not_convert_are_refused_naming_them(capsys, tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    rows = [(_commit(i), "x", 100.0, "B" if i < 3 else "ms") for i in range(6)]
    pd.DataFrame(rows, columns=["commit", "benchmark", "value", "unit"]).to_csv(path, index=False)
    code, _, err = _history(capsys, str(path))
    assert code == 2 and "benchmark 'x' mixes the units ['B', 'ms']" in err
    rows[0] = (rows[0][0], "x", 100.0, None)
    rows[1:3] = [(c, b, v, "ms") for c, b, v, _ in rows[1:3]]
    pd.DataFrame(rows, columns=["commit", "benchmark", "value", "unit"]).to_csv(path, index=False)
    code, _, err = _history(capsys, str(path))
    assert code == 2 and f"none in commit {_commit(0)!r}" in err
