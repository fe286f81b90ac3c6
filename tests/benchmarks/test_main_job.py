"""The main-job benchmark: one short repetition, its table and result file (no timing judged)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import main_job


def test_one_short_repetition_gives_the_table_and_the_file(tmp_path: Path, capsys) -> None:
    out_file = tmp_path / "main_job.txt"
    argv = ["--repetitions", "1", "--busy", "1", "--max-n", "15", "--out", str(out_file)]
    assert main_job.main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("target   builtin workload (command")
    assert printed[1] == main_job.HEADER
    row = re.match(r"^\s+1 busy\s+[\d.]+ (rule|max_n)\s+(\d+)\s+([\d.]+)  decision: ", printed[2])
    assert row, printed[2]
    assert int(row.group(2)) <= 15
    # Fifteen runs cannot bound SuperFlow's intervals: the cap is reached and explained.
    assert row.group(1) == "max_n"
    assert printed[3].strip().startswith("why it ended at max_n: ")
    assert printed[-1] == "stopped by the rule in 0 of 1 runs"
    text = out_file.read_text()
    assert text.startswith(f"# command: python benchmarks/main_job.py {' '.join(argv)}\n")
    assert "\n".join(printed) in text and "the output of run 1:" in text


def test_the_options_are_checked() -> None:
    with pytest.raises(SystemExit):
        main_job.main(["--repetitions", "2", "--busy", "3"])
