"""Two records never share a metadata file; no target name breaks recovery."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from perfstats.adapters import Command, run
from perfstats.adapters.records.record import metadata_path, read_metadata, read_record

from perfstats.rules import Fixed

PASS = [sys.executable, "-c", "pass"]


@pytest.mark.parametrize(("a", "b"), [("a.csv", "a.tsv"), ("a", "a.csv"), ("x.y.csv", "x.y")])
def test_two_records_keep_their_own_metadata(tmp_path: Path, a: str, b: str) -> None:
    run(Command(PASS, label="first"), Fixed(n=3), record=tmp_path / a, progress=False)
    run(Command(PASS, label="second"), Fixed(n=4), record=tmp_path / b, progress=False)
    assert metadata_path(tmp_path / a) != metadata_path(tmp_path / b)
    assert read_metadata(tmp_path / a)["target"]["name"] == "first"
    assert read_metadata(tmp_path / b)["target"]["name"] == "second"
    # Each record resumes against its own metadata: the first is not "another target".
    run(Command(PASS, label="first"), Fixed(n=3), record=tmp_path / a, resume=True, progress=False)


NASTY = 'evil\nname\r\n\r"quoted", \x00nul \x1b[31mred\x1b[0m \x85\u2028end\t'


def test_control_characters_in_a_target_name_survive_recovery(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    run(Command(PASS, label=NASTY), Fixed(n=3), record=path, progress=False)
    df = read_record(path)
    assert df["target"].tolist() == [NASTY] * 3 and df["run"].tolist() == [1, 2, 3]
    # A crash cuts the next row inside the quoted name, right after its newline.
    with open(path, "ab") as f:
        f.write(b'4,1,measure,"evil\n')
    assert read_record(path)["run"].tolist() == [1, 2, 3]
    # Five runs in all now: the same rule with a larger n.
    meta = json.loads(metadata_path(path).read_text())
    meta["rule"]["config"]["n"] = 5
    metadata_path(path).write_text(json.dumps(meta))
    run(Command(PASS, label=NASTY), Fixed(n=5), record=path, resume=True, progress=False)
    df = read_record(path)
    assert df["run"].tolist() == [1, 2, 3, 4, 5]
    assert df["target"].tolist() == [NASTY] * 5
    # Other CSV readers see the same rows and cells.
    assert pd.read_csv(path, keep_default_na=False)["target"].tolist() == [NASTY] * 5


def test_legacy_metadata_read_only_when_it_cannot_be_another_records(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.csv"
    run(Command(PASS, label="first"), Fixed(n=3), record=path, progress=False)
    legacy = tmp_path / "a.meta.json"  # where earlier versions put it
    metadata_path(path).rename(legacy)
    assert read_metadata(path)["target"]["name"] == "first"
    (tmp_path / "a.tsv").write_text("another record\n")
    assert read_metadata(path) == {}
    assert read_metadata(tmp_path / "a.tsv") == {}
