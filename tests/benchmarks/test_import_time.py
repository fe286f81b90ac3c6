"""The import-time comparison runs against a revision and prints both sides and their ratio."""

from __future__ import annotations

import re

import pytest

from benchmarks import import_time


def test_import_time_against_head_prints_both_sides(capsys: pytest.CaptureFixture[str]) -> None:
    assert import_time.main(["--against", "HEAD", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 interleaved rounds" in out
    medians = re.findall(r"median (\d+\.\d+) ms", out)
    assert len(medians) == 2 and all(float(m) > 0 for m in medians)
    assert re.search(r"ratio this / HEAD: \d+\.\d{3}", out)
