"""``perfstats history``: change points from a CSV of commits and from directories of records."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.ab.inputs import read_history
from perfstats.adapters.cli import main
from perfstats.adapters.records import metadata_path
from perfstats.adapters.targets import workload

from perfstats import history_change_points

WORKLOAD = str(Path(workload.__file__).resolve())
STEP_AT = 20


def _commit(i: int) -> str:
    # Hash-like names whose sorted order is not the history's.
    return hashlib.sha1(str(i).encode()).hexdigest()[:8]


def _history(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def history_csv(tmp_path: Path) -> Path:
    """30 commits x 3 runs of 'parse' (10% slower from commit 20) and 'flat'; rows shuffled."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(30):
        date = pd.Timestamp("2026-01-01", tz="UTC") + pd.Timedelta(days=i)
        for name, step in (("parse", 1.10), ("flat", 1.0)):
            for _ in range(3):
                value = 10.0 * (step if i >= STEP_AT else 1.0) * rng.lognormal(0, 0.01)
                rows.append((_commit(i), date.isoformat(), name, value, "ms"))
    frame = pd.DataFrame(rows, columns=["commit", "date", "benchmark", "value", "unit"])
    path = tmp_path / "history.csv"
    frame.sample(frac=1.0, random_state=1).to_csv(path, index=False)
    return path


def test_csv_history_table_json_and_plot(capsys, history_csv, tmp_path) -> None:
    plot = tmp_path / "history.png"
    code, out, err = _history(capsys, str(history_csv), "--seed", "1", "--plot", str(plot))
    assert code == 0, err
    assert "flat: 30 commits" in out and "0 change points" in out
    assert "parse: 30 commits" in out and "1 change point\n" in out
    row = next(line for line in out.splitlines() if _commit(STEP_AT) in line)
    assert row.split()[0] == str(STEP_AT) and "%" in row
    import matplotlib.image

    image = matplotlib.image.imread(plot)
    assert image.ndim == 3 and image.shape[0] > 400  # two panels, one above the other

    code, out, _ = _history(capsys, str(history_csv), "--seed", "1", "--format", "json")
    assert code == 0
    data = json.loads(out)["benchmarks"]
    assert data["parse"]["commits"] == [_commit(i) for i in range(30)]
    assert data["parse"]["unit"] == "ms" and len(data["parse"]["values"]) == 30
    (point,) = data["parse"]["change_points"]
    assert point["index"] == STEP_AT and point["label"] == _commit(STEP_AT)
    assert point["ci_low"] < 0.10 < point["ci_high"] and point["p_value"] <= 0.05
    assert data["flat"]["change_points"] == []
    # The command reports what the core finds on the same history, in date order.
    frame = pd.read_csv(history_csv)
    ref = history_change_points(frame, position="commit", order_by="date", rng=1)
    assert [p.to_dict() for p in ref["parse"].points] == data["parse"]["change_points"]


def test_csv_without_dates_is_in_commit_order(capsys, tmp_path) -> None:
    rng = np.random.default_rng(2)
    rows = [(f"c{i:02d}", "x", 5.0 * (1.2 if i >= 8 else 1.0) * rng.lognormal(0, 0.01))
            for i in range(16) for _ in range(2)]  # fmt: skip
    path = tmp_path / "h.csv"
    frame = pd.DataFrame(rows, columns=["commit", "benchmark", "value"])
    frame.sample(frac=1.0, random_state=0).to_csv(path, index=False)
    code, out, err = _history(capsys, str(path), "--seed", "3", "--format", "json")
    assert code == 0, err
    (point,) = json.loads(out)["benchmarks"]["x"]["change_points"]
    assert point["label"] == "c08"


def _record(path: Path, size: int) -> None:
    code = main(["run", "--rule", "fixed", "-r", "n=3", "--record", str(path), "--no-progress",
                 "-t", "label=walk", "-t", f"regex={workload.PATTERN}", "-t", "unit=ns",
                 "--", sys.executable, "-I", "-S", WORKLOAD, str(size), "3"])  # fmt: skip
    assert code == 0


def test_directories_of_real_records(capsys, tmp_path) -> None:
    nested, flat = tmp_path / "nested", tmp_path / "flat"
    nested.mkdir()
    flat.mkdir()
    for i in range(10):
        # 4x the work from the 6th commit on: far above this machine's 2x noise.
        folder = nested / _commit(i)
        folder.mkdir()
        _record(folder / "walk.csv", 10_000 if i < 5 else 40_000)
        shutil.copy(folder / "walk.csv", flat / f"{_commit(i)}.csv")
        shutil.copy(metadata_path(folder / "walk.csv"), metadata_path(flat / f"{_commit(i)}.csv"))
    capsys.readouterr()
    frame = read_history(nested)
    assert list(dict.fromkeys(frame["commit"])) == [_commit(i) for i in range(10)]
    assert set(frame["benchmark"]) == {"walk"} and set(frame["unit"]) == {"ns"}
    for source in (nested, flat):
        code, out, err = _history(capsys, str(source), "--seed", "1", "--format", "json")
        assert code == 0, err
        walk = json.loads(out)["benchmarks"]["walk"]
        assert walk["commits"] == [_commit(i) for i in range(10)]
        (point,) = walk["change_points"]
        assert point["index"] == 5 and point["label"] == _commit(5) and point["change"] > 1.0


def test_bad_histories_exit_2(capsys, history_csv, tmp_path) -> None:
    no_commit = tmp_path / "runs.csv"
    pd.read_csv(history_csv).drop(columns="commit").to_csv(no_commit, index=False)
    short = tmp_path / "short.csv"
    short.write_text("commit,benchmark,value\na,x,1.0\nb,x,1.1\nc,x,1.0\n")
    twice, in_folder = tmp_path / "twice", tmp_path / "in_folder"
    (in_folder / "c1").mkdir(parents=True)
    twice.mkdir()
    for name in ("a.csv", "b.csv"):
        (in_folder / "c1" / name).write_text("benchmark,value\nx,1.0\nx,1.1\n")
        (twice / name).write_text("commit,benchmark,value\nc1,x,1.0\nc1,x,1.1\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = [
        (no_commit, "is one set of results, not a history: it needs a 'commit' column"),
        (short, "benchmark 'x': series has 3 value(s)"),
        (twice, "benchmark 'x' appears twice in commit 'c1'"),
        (in_folder, "benchmark 'x' is in"),
        (empty, "holds no results file or commit folder"),
        (tmp_path / "missing", "missing does not exist"),
    ]
    for source, message in cases:
        code, _, err = _history(capsys, str(source))
        assert code == 2 and message in err, (source, err)
    code, _, err = _history(capsys, str(history_csv), "--pvalue", "2")
    assert code == 2 and "pvalue" in err
