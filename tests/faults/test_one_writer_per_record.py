"""Two processes writing one record: the second is refused at once."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from perfstats.adapters.records.record import read_record
from support.cli import perfstats, rows, start, wait_for

SLOW = ["--", "sleep", "0.2"]
# Far more runs than the test waits for: the first writer is stopped by SIGTERM.
LONG = ["run", "--rule", "fixed", "-r", "n=1000", "--record", "run.csv", "--no-progress"]


def test_second_writer_refused_naming_record_and_pid(tmp_path: Path) -> None:
    record = tmp_path / "run.csv"
    first = start([*LONG, *SLOW], tmp_path)
    try:
        wait_for(lambda: rows(record) >= 2, 60, "the first writer's rows")
        for extra in (["--resume"], []):
            second = perfstats([*LONG, *extra, *SLOW], tmp_path)
            assert second.returncode != 0, second.stdout
            assert "run.csv" in second.stderr and f"pid {first.pid}" in second.stderr, second.stderr
            # At once: while the first writer still runs, not after it ended.
            assert first.poll() is None, second.stderr
        os.killpg(first.pid, signal.SIGTERM)
        first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    df = read_record(record)
    assert len(df) >= 2 and df["run"].is_unique, df["run"].tolist()
    assert not (tmp_path / "run.csv.lock").exists()


def test_lock_of_a_killed_writer_does_not_block(tmp_path: Path) -> None:
    record = tmp_path / "run.csv"
    first = start([*LONG, *SLOW], tmp_path)
    wait_for(lambda: rows(record) >= 1, 60, "the first writer's rows")
    first.kill()
    first.wait()
    done = perfstats([*LONG, "--max-n", "3", "--resume", *SLOW], tmp_path)
    assert done.returncode == 0, done.stderr
    assert read_record(record)["run"].is_unique
