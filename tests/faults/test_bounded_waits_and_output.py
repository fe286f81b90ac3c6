"""An HTTP timeout bounds the whole request; a target's output is bounded in memory."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from perfstats.adapters import HttpFunction
from perfstats.adapters.records.measurement import TIMEOUT
from support.services import LOOPBACK


@contextmanager
def trickling_server(head: bytes) -> Iterator[str]:
    """A loopback server that answers ``head`` at once, then one byte every 0.5 s for 20 s."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((LOOPBACK, 0))
    listener.listen(4)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                try:
                    conn.sendall(head)
                    for _ in range(40):
                        if stop.wait(0.5):
                            return
                        conn.sendall(b"x")
                except OSError:
                    continue  # the client hung up: serve the next one

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://{LOOPBACK}:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        listener.close()
        thread.join(5)


@pytest.mark.parametrize(
    "head",
    [b"", b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"],
    ids=["trickled-headers", "trickled-body"],
)
def test_http_timeout_bounds_the_whole_request(head: bytes) -> None:
    with trickling_server(head) as url:
        target = HttpFunction(url, method="GET", timeout=2)
        t0 = time.monotonic()
        m = target.invoke()
        took = time.monotonic() - t0
        target.close()
    assert m.status == TIMEOUT, m
    assert took < 2.5, f"the 2 s request took {took:.1f} s"


# The driver measured in a fresh interpreter: its peak RSS with a target that
# prints BYTES per run, against the same driver with a quiet target.
DRIVER = """
import resource, sys
from perfstats.adapters import Command, run
from perfstats.rules import Fixed
argv = [sys.executable, "-c", sys.argv[1]]
result = run(Command(argv, timeout=120), Fixed(n=3), progress=False)
assert (result.measurements.status == "ok").all(), result.measurements.error.tolist()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
print(result.measurements.extra.iloc[-1])
"""
LOUD = (
    "import sys\nchunk = b'y' * (1 << 20)\n"
    "for _ in range(100):\n    sys.stdout.buffer.write(chunk)\n"
)
QUIET = "pass"


def _peak(program: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, program], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    peak, extra = done.stdout.strip().splitlines()[-2:]
    return int(peak), extra


def test_loud_target_adds_little_to_the_drivers_memory(tmp_path: Path) -> None:
    quiet, _ = _peak(QUIET)
    loud, extra = _peak(LOUD)
    added = (loud - quiet) / 2**20
    assert added < 50, f"a target printing 100 MB per run added {added:.0f} MB to the driver"
    # What was left out is counted: 100 MiB printed, the last 4 MiB kept.
    assert json.loads(extra)["stdout_dropped"] == 100 * 2**20 - 4 * 2**20
