"""Crash safety: a driver killed with SIGKILL loses no completed measurement."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from perfstats.adapters import read_record
from perfstats.adapters.records.record import metadata_path

PY = sys.executable


def _cli(record, *extra: str) -> list[str]:
    return [
        PY, "-m", "perfstats.adapters.cli", "run", "--rule", "fixed", "-r", "n=30",
        "--record", str(record), "--no-progress", *extra,
        "--", PY, "-I", "-S", "-c", "import time; time.sleep(0.1); print('done')",
    ]  # fmt: skip


def _rows(path) -> int:
    try:
        return max(0, path.read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


def test_sigkill_mid_run_then_resume(tmp_path) -> None:
    path = tmp_path / "run.csv"
    proc = subprocess.Popen(_cli(path), start_new_session=True, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _rows(path) < 8:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the driver wrote no rows"
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    raw = path.read_bytes()
    killed = read_record(path)
    k = len(killed)
    assert 8 <= k < 30
    # Every completed invocation is a whole row: nothing torn, nothing missing.
    assert raw.endswith(b"\n") and raw.count(b"\n") == k + 1
    assert killed["run"].tolist() == list(range(1, k + 1))
    assert (killed["status"] == "ok").all() and killed["value"].notna().all()
    meta = json.loads(metadata_path(path).read_text())
    assert meta["sessions"][0]["ended_at"] is None  # it never got to finish

    done = subprocess.run(_cli(path, "--resume", "--json"), capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["stopped_by"] == "rule" and out["decision"]["n"] == 30
    final = read_record(path)
    assert final["run"].tolist() == list(range(1, 31))
    assert final.iloc[:k].equals(killed)
    assert (final["status"] == "ok").all() and final["run"].is_unique
    meta = json.loads(metadata_path(path).read_text())
    assert len(meta["sessions"]) == 2 and meta["sessions"][1]["stopped_by"] == "rule"
    assert meta["sessions"][1]["invocations"] == 30 - k
