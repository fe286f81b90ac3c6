"""A record written before an option rename resumes under the new name; a real change is refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command, run
from perfstats.adapters.records.record import metadata_path, read_record

from perfstats.rules import CIWidth

# Values that vary, so the CI rule never stops before max_n.
ECHO = [sys.executable, "-c", "import random; print('t=%d' % random.randint(1, 10**6))"]


def _run(path: Path, rule: CIWidth, *, resume: bool, max_n: int) -> None:
    run(
        Command(ECHO, regex=r"t=(\d+)", unit="ms"),
        rule,
        record=path,
        resume=resume,
        max_n=max_n,
        progress=False,
    )


def _as_before_the_rename(path: Path) -> None:
    # What the record's metadata said when CIWidth's option was "threshold".
    meta = metadata_path(path)
    data = json.loads(meta.read_text())
    config = data["rule"]["config"]
    config["threshold"] = config.pop("error")
    meta.write_text(json.dumps(data))


def test_old_option_names_in_a_record_resume(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    _run(path, CIWidth(error=1e-9, min_n=2), resume=False, max_n=3)
    _as_before_the_rename(path)
    _run(path, CIWidth(error=1e-9, min_n=2), resume=True, max_n=5)
    assert read_record(path)["run"].tolist() == [1, 2, 3, 4, 5]


def test_a_renamed_option_with_another_value_is_still_a_difference(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    _run(path, CIWidth(error=1e-9, min_n=2), resume=False, max_n=3)
    _as_before_the_rename(path)
    with pytest.raises(ValueError, match=r"the rule differs.*'error': 1e-09.*'error': 0.5"):
        _run(path, CIWidth(error=0.5, min_n=2), resume=True, max_n=5)
