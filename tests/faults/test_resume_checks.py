"""Resume checks the record's format and metadata; the format marker is checked on read."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command, run
from perfstats.adapters.cli import main
from perfstats.adapters.records.record import RUN, SERIES_FORMAT, metadata_path, read_record

from perfstats.rules import Fixed

ECHO = [sys.executable, "-c", "print('t=5')"]


def _record(folder: Path, unit: str = "ms") -> Path:
    path = folder / "run.csv"
    run(
        Command(ECHO, regex=r"t=(\d+)", unit=unit),
        Fixed(n=10),
        record=path,
        max_n=3,
        progress=False,
    )
    return path


def _edit_metadata(path: Path, **changes: object) -> None:
    meta = metadata_path(path)
    data = json.loads(meta.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    meta.write_text(json.dumps(data))


def _resume(path: Path, unit: str = "ms", force: bool = False) -> None:
    run(
        Command(ECHO, regex=r"t=(\d+)", unit=unit),
        Fixed(n=10),
        record=path,
        resume=True,
        **({"force": True} if force else {}),  # type: ignore[arg-type]
        progress=False,
    )


def test_resume_of_the_same_experiment_works(tmp_path: Path) -> None:
    path = _record(tmp_path)
    _resume(path)
    assert read_record(path)["run"].tolist() == list(range(1, 11))


def test_record_without_metadata_refused_unless_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record(tmp_path)
    metadata_path(path).unlink()
    before = path.read_bytes()
    argv = [
        "run",
        "--rule",
        "fixed",
        "-r",
        "n=10",
        "--record",
        str(path),
        "--resume",
        "-t",
        r"regex=t=(\d+)",
        "-t",
        "unit=ms",
        "--no-progress",
        "--",
        *ECHO,
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no metadata" in err and "--force" in err, err
    assert path.read_bytes() == before
    assert main([*argv[:8], "--force", *argv[8:]]) == 0
    assert len(read_record(path)) == 10


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "perfstats-record/2"}, "perfstats-record/2"),
        ({"format": "perfstats-ab-record/1"}, "perfstats-ab-record/1"),
        ({"format": None}, "names no format"),
        ({"target": None}, "names no target"),
        ({"rule": None}, "names no rule"),
        ({"rule": {"name": "Fixed", "config": {"n": 11}}}, "'n': 11"),
    ],
)
def test_resume_refuses_a_mismatch_naming_it(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    path = _record(tmp_path)
    _edit_metadata(path, **changes)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"cannot resume|format") as info:
        _resume(path)
    assert message in str(info.value), str(info.value)
    assert path.read_bytes() == before


def test_unit_of_the_rows_checked_even_when_forced(tmp_path: Path) -> None:
    path = _record(tmp_path, unit="ms")
    _edit_metadata(path, target=None)
    with pytest.raises(ValueError, match="'ms', the target's in 'us'"):
        _resume(path, unit="us", force=True)


def test_format_marker_written_and_checked_on_read(tmp_path: Path) -> None:
    path = _record(tmp_path)
    # A command records its CPU time and peak memory as series: format 1.1.
    assert json.loads(metadata_path(path).read_text())["format"] == SERIES_FORMAT
    one = tmp_path / "one.csv"
    run(Command(ECHO, regex=r"t=(\d+)", unit="ms", rusage=False), Fixed(n=10), record=one,
        max_n=3, progress=False)  # fmt: skip
    assert json.loads(metadata_path(one).read_text())["format"] == RUN.marker
    _edit_metadata(path, format="perfstats-record/2")
    with pytest.raises(ValueError, match="format perfstats-record/2 by another version"):
        read_record(path)
