"""Files perfstats replaces are written to a new O_EXCL temporary file in the
destination's folder and renamed into place; a symlink at the destination or at a
predictable temporary name is never followed.

An attacker with write access to the record's folder plants symlinks to a
file outside it; after a real run, a resume and an HTML report, that file is
unchanged and the run's files are regular files with the run's content.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command, read_record, run
from perfstats.adapters.cli import main
from perfstats.adapters.records import metadata_path

from perfstats.rules import Fixed

PRECIOUS = "precious content that must survive\n"


def _outside(tmp_path: Path) -> Path:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text(PRECIOUS)
    return victim


def _plant(link: Path, victim: Path) -> None:
    link.symlink_to(victim)


def _target() -> Command:
    return Command([sys.executable, "-c", "pass"])


def test_metadata_never_written_through_planted_symlinks(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    folder = tmp_path / "records"
    folder.mkdir()
    record = folder / "run.csv"
    # At the destination, and at the temporary names a writer could predict.
    for name in (
        "run.csv.meta.json",
        "run.csv.meta.json.tmp",
        ".run.csv.meta.json.tmp",
        "run.meta.json",
        "run.meta.json.tmp",
    ):
        _plant(folder / name, victim)
    run(_target(), Fixed(n=3), record=record, progress=False)
    assert victim.read_text() == PRECIOUS
    meta = metadata_path(record)
    assert not meta.is_symlink() and stat.S_ISREG(meta.lstat().st_mode)
    # The command's CPU time and peak memory make it a record with series.
    assert json.loads(meta.read_text())["format"] == "perfstats-record/1.1"
    # Resuming rewrites the metadata again: it is read through a link to a
    # copy outside, but never written through it.
    copy = victim.with_name("meta-copy.json")
    os.replace(meta, copy)
    original = copy.read_bytes()
    _plant(meta, copy)
    run(_target(), Fixed(n=3), record=record, resume=True, progress=False)
    assert victim.read_text() == PRECIOUS and copy.read_bytes() == original
    assert not meta.is_symlink() and len(read_record(record)) == 3
    # No temporary file is left behind beside the record.
    leftovers = [p.name for p in folder.iterdir() if not p.is_symlink()]
    assert sorted(set(leftovers) - {"run.csv.lock"}) == [
        "run.csv",
        "run.csv.meta.json",
        "run.csv.series.csv",
    ]


def test_new_files_get_ordinary_permissions(tmp_path: Path) -> None:
    record = tmp_path / "run.csv"
    run(_target(), Fixed(n=3), record=record, progress=False)
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE(metadata_path(record).stat().st_mode)
    assert mode == 0o666 & ~umask


def test_html_report_never_written_through_planted_symlinks(tmp_path: Path, capsys) -> None:
    victim = _outside(tmp_path)
    record = tmp_path / "run.csv"
    run(_target(), Fixed(n=3), record=record, progress=False)
    out = tmp_path / "report.html"
    for name in ("report.html", "report.html.tmp", ".report.html.tmp"):
        _plant(tmp_path / name, victim)
    assert main(["report", str(record), "-o", str(out)]) == 0, capsys.readouterr().err
    assert victim.read_text() == PRECIOUS
    assert not out.is_symlink() and "<!DOCTYPE html>" in out.read_text()


def test_record_csv_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    # A new record where a (dangling or not) link was planted: refused, nothing written.
    for name, points_to in (("new.csv", victim), ("dangling.csv", tmp_path / "outside" / "x")):
        _plant(tmp_path / name, points_to)
        with pytest.raises(ValueError, match="exists"):
            run(_target(), Fixed(n=3), record=tmp_path / name, progress=False)
    assert victim.read_text() == PRECIOUS and not (tmp_path / "outside" / "x").exists()
    # Resuming a record whose CSV was swapped for a link: refused, the target untouched.
    record = tmp_path / "run.csv"
    run(_target(), Fixed(n=3), record=record, progress=False)
    real = tmp_path / "outside" / "run.csv"
    os.replace(record, real)
    before = real.read_bytes() + b"3,1,measure,cut short"  # a torn last line
    real.write_bytes(before)
    _plant(record, real)
    with pytest.raises(ValueError, match="symbolic link"):
        run(_target(), Fixed(n=3), record=record, resume=True, progress=False)
    assert real.read_bytes() == before
