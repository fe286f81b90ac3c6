"""The table of interleaved A-B suite runs of several trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import ab_interleaved


def _run(folder: Path, tree: str, number: int, covered: int) -> None:
    rows = [
        {"suite": "A/A", "schedule": "duet", "target": "command", "benchmarks": 5, "covered": 0},
        {"suite": "A/B+10%", "schedule": "rmit", "target": "http", "benchmarks": 5,
         "covered": covered},
    ]  # fmt: skip
    (folder / f"{tree}_{number}.json").write_text(json.dumps({"rows": rows}))


def test_the_table_shows_each_tree_run_by_run(tmp_path: Path) -> None:
    _run(tmp_path, "old", 1, 5)
    _run(tmp_path, "old", 2, 3)
    _run(tmp_path, "cur", 2, 4)
    (tmp_path / "runs.log").write_text("old 1 rc=0 10s load=2.0\nold 2 rc=0 9s load=12.5\n")
    text = ab_interleaved.table(tmp_path)
    lines = text.splitlines()
    old = next(line for line in lines if line.startswith("old   rmit"))
    cur = next(line for line in lines if line.startswith("cur   rmit"))
    assert old.split()[-2:] == ["5/5", "3/5"]
    assert cur.split()[3:] == ["-", "4/5"]
    assert any(line.split() == ["old", "2.0", "12.5"] for line in lines)
    # The A/A suite is not the +10% one and stays out.
    assert not any("duet" in line for line in lines)


def test_a_folder_without_runs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds no"):
        ab_interleaved.table(tmp_path)
    (tmp_path / "x_y.json").write_text("{}")
    with pytest.raises(ValueError, match="TREE_ROUND"):
        ab_interleaved.load(tmp_path)
