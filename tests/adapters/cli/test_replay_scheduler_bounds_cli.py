"""``perfstats replay --scheduler`` fails clearly and in bounded time when the cluster cannot serve.

Each case runs the real CLI in a child process against a real loopback
peer: a port nobody listens on, a plain TCP server thread that accepts and
never answers, and a real Dask scheduler without workers. The child is
killed when it outlives the bound, so a hang fails the test instead of
stalling the run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from perfstats.adapters.cli import main

# Headroom over --connect-timeout for the interpreter and Dask to start.
STARTUP_S = 30.0


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    path = tmp_path / "traces.csv"
    pd.DataFrame({"a": [1.0, 1.1, 1.2, 1.0], "b": [2.0, 2.1, 2.2, 2.0]}).to_csv(path, index=False)
    return path


def _replay(traces: Path, *argv: str, bound: float) -> tuple[int, str, str, float]:
    """Run ``perfstats replay`` in a child; its status, stdout, stderr and time taken."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "perfstats.adapters.cli", "replay", str(traces), "--no-progress",
         *argv],
        capture_output=True, text=True, timeout=bound, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr, time.monotonic() - started


@pytest.fixture
def silent_listener() -> Iterator[str]:
    """A loopback TCP server that accepts every connection and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stopping.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stopping.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()
    assert held, "the replay never connected to the listener"


def test_a_refused_connection_is_reported_at_once(traces: Path) -> None:
    # A port that was free a moment ago and now refuses: bind, note, close.
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    code, out, err, took = _replay(
        traces, "--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "60",
        bound=STARTUP_S,
    )  # fmt: skip
    assert code == 2, err
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: connection refused" in err
    assert "timed out" not in err.lower() and out == ""
    # Far below the 60 s bound: the refusal is not waited out as a timeout.
    assert took < STARTUP_S


def test_a_listener_that_never_answers_times_out_within_the_bound(
    traces: Path, silent_listener: str
) -> None:
    code, out, err, took = _replay(
        traces, "--scheduler", silent_listener, "--connect-timeout", "2", bound=2 + STARTUP_S
    )
    assert code == 2, err
    assert f"cannot reach the Dask scheduler at {silent_listener}: timed out" in err
    assert "within 2 s (--connect-timeout)" in err and out == ""
    assert took >= 2


def test_a_scheduler_without_workers_is_an_error_after_the_bound(traces: Path) -> None:
    import distributed

    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        code, out, err, took = _replay(
            traces, "--scheduler", address, "--connect-timeout", "2", bound=4 + STARTUP_S
        )
    assert code == 2, err
    assert f"the Dask scheduler at {address} has no workers" in err
    assert "none joined within 2 s (--connect-timeout)" in err and out == ""
    assert took >= 2


@pytest.mark.parametrize("address", ["", "   "], ids=["empty", "blank"])
def test_an_empty_scheduler_address_is_a_usage_error_not_a_local_run(
    capsys, traces: Path, address: str
) -> None:
    code = main(["replay", str(traces), "--no-progress", "--scheduler", address])
    out, err = capsys.readouterr()
    assert code == 2
    assert "--scheduler needs the scheduler's address" in err
    assert out == ""  # nothing was replayed locally


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_a_connect_timeout_that_is_not_positive_is_refused(
    capsys, traces: Path, value: str
) -> None:
    code = main(["replay", str(traces), "--no-progress", "--scheduler", "tcp://127.0.0.1:1",
                 f"--connect-timeout={value}"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2 and "--connect-timeout must be a positive number of seconds" in err
    assert out == ""
