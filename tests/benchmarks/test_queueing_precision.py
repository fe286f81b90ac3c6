"""The queueing precision benchmark runs end to end on a tiny setting."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import queueing_precision


@pytest.mark.parametrize("mode", [[], ["--mpd"]])
def test_benchmark_writes_its_table(
    mode: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "rows.json"
    argv = ["queueing_precision", *mode, "--reps", "2", "--n", "300", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    queueing_precision.main()
    rows = json.loads(out.read_text())
    assert [r["n_requests"] for r in rows] == [300]
    key = "mpd_rms_rel_error" if mode else "rms_rel_error"
    assert 0.0 <= rows[0][key] < 1.0
