"""Old rule option spellings on the command line: the same result, and a one-line warning."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from perfstats.adapters.cli import main


@pytest.mark.parametrize(
    ("rule", "old", "new"),
    [
        ("ci-width", "threshold=0.02", "error=0.02"),
        ("superflow", "ci=order", "method=order"),
        ("superflow", "quantiles=(0.5, 0.9)", "q=('p50', 'P90')"),
    ],
)
def test_old_and_new_spellings_replay_alike(
    rule: str,
    old: str,
    new: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    traces = tmp_path / "traces.csv"
    x = np.random.default_rng(4).lognormal(3.0, 0.05, (80, 2))
    np.savetxt(traces, x, delimiter=",", header="a,b", comments="")
    common = ["replay", str(traces), "--rule", rule, "--workers", "1", "--no-progress"]
    common += ["--seed", "1"]
    assert main([*common, "-r", new]) == 0
    new_out = capsys.readouterr()
    assert not caplog.records
    assert main([*common, "-r", old]) == 0
    old_out = capsys.readouterr()
    assert old_out.out == new_out.out
    # The CLI's logging writes this record to stderr as "perfstats: warning: ...".
    (record,) = caplog.records
    message = record.getMessage()
    assert message.startswith("warning: ") and "\n" not in message
    assert f"({old.split('=')[0]}=...) is deprecated" in message
    assert f"use {new.split('=')[0]}=... instead" in message
