"""An output path equal to an input is refused before anything is written."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command, run
from perfstats.adapters.cli import main
from perfstats.adapters.records.record import metadata_path

from perfstats.rules import Fixed


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "x.csv"
    run(Command([sys.executable, "-c", "pass"]), Fixed(n=3), record=path, progress=False)
    return path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("how", ["same", "dot-path", "symlink", "hardlink", "metadata"])
def test_report_output_equal_to_an_input_is_refused(
    record: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = record.parent
    if how == "same":
        output = str(record)
    elif how == "dot-path":
        output = str(folder / "." / "x.csv")
    elif how == "symlink":
        (folder / "link.html").symlink_to(record)
        output = str(folder / "link.html")
    elif how == "hardlink":
        os.link(record, folder / "hard.html")
        output = str(folder / "hard.html")
    else:
        output = str(metadata_path(record))
    before = _snapshot(folder)
    assert main(["report", str(record), "-o", output]) == 2
    err = capsys.readouterr().err
    assert "is the input" in err and output in err, err
    # Nothing written: every file as it was, no temporary file left.
    assert _snapshot(folder) == before


def test_report_to_another_file_still_works(record: Path) -> None:
    assert main(["report", str(record), "-o", str(record.with_name("r.html"))]) == 0
    assert record.with_name("r.html").read_text().startswith("<!DOCTYPE html>")
