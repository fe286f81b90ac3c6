"""OS errors name their cause and file, broken pipes end quietly, bad cells are placed."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command, run
from perfstats.adapters.cli import main
from support.cli import PERFSTATS, perfstats

from perfstats.rules import Fixed


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "run.csv"
    run(Command([sys.executable, "-c", "pass"]), Fixed(n=40), record=path, progress=False)
    return path


def _small_files() -> None:
    # Files may grow to 16 KiB: the record's rows soon pass that, as on a full disk.
    resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def test_a_failed_record_write_names_cause_and_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [*PERFSTATS, "run", "--rule", "fixed", "-r", "n=2000", "--record", "run.csv",
         "--no-progress", "--", "true"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, preexec_fn=_small_files,
    )  # fmt: skip
    assert done.returncode != 0
    assert "File too large: run.csv" in done.stderr, done.stderr
    assert "None" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_full_standard_output_names_it(record: Path) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*PERFSTATS, "report", str(record)], stdout=full, stderr=subprocess.PIPE, text=True,
            timeout=120,
        )  # fmt: skip
    assert done.returncode != 0
    assert "No space left on device: standard output" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_broken_pipe_exits_quietly(record: Path) -> None:
    # The reader is gone before perfstats writes (true reads nothing): the
    # first write meets a closed pipe, as a long output meets ``head -1``.
    done = subprocess.run(
        f"{' '.join(PERFSTATS)} report {record} --json | true; "
        'echo "status=${PIPESTATUS[0]}" >&2',
        shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    *noise, status = done.stderr.strip().splitlines()
    assert status in ("status=141", "status=1"), done.stderr
    assert not noise, done.stderr


@pytest.mark.parametrize("cell", ["yes", "no", "none", "None", "True", "nan", "abc"])
def test_non_numeric_cell_named_by_file_line_and_column(
    tmp_path: Path, cell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.csv"
    path.write_text(f"a,b\n1,2\n3,4\n5,{cell}\n")
    for argv in (["replay", str(path), "--workers", "1", "--no-progress"],
                 ["compare", str(path), str(path), "--column", "b"]):  # fmt: skip
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{path} line 4, column 'b': '{cell}' is not a" in err, err


def test_non_numeric_cell_in_a_record_named(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = record.read_text().splitlines(keepends=True)
    cells = lines[3].split(",")
    cells[4] = "yes"  # the value column
    bad = tmp_path / "bad.csv"
    bad.write_text("".join([*lines[:3], ",".join(cells), *lines[4:]]))
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad} line 4, column 'value': 'yes' is not a number" in err, err


def test_header_only_record_is_empty(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text(record.read_text().splitlines(keepends=True)[0])
    for argv in (["report", str(empty)], ["report", str(empty), "-o", str(tmp_path / "r.html")]):
        assert main(argv) == 2
        assert "is empty" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
    done = perfstats(["report", str(empty)], tmp_path)
    assert done.returncode != 0 and "is empty" in done.stderr
