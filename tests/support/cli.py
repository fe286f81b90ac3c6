"""Run the ``perfstats`` command as a real child process (its own process group)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

PERFSTATS = [sys.executable, "-m", "perfstats.adapters.cli"]


def start(
    args: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    **popen: object,
) -> subprocess.Popen[str]:
    """Start ``perfstats ARGS`` in ``cwd``, output captured as text."""
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [*PERFSTATS, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **popen,
    )


def perfstats(
    args: Sequence[str], cwd: Path, timeout: float = 60, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``perfstats ARGS`` to its end."""
    return subprocess.run(
        [*PERFSTATS, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05) -> None:  # type: ignore[no-untyped-def]
    """Poll ``predicate`` until it is true; fail naming ``what`` when time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def rows(path: Path) -> int:
    """Complete data lines of a CSV (the header excluded); 0 when it is missing."""
    try:
        return max(0, path.read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0
