"""Start the Functions Framework serving the A-B suite function on loopback."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adapters_support.services import LOOPBACK, free_port, require, stop, wait_for_port

HERE = Path(__file__).resolve().parent
FUNCTION = HERE / "ab_function.py"


@contextmanager
def suite_function(tmp: Path, *, workers: int = 2, threads: int = 1) -> Iterator[str]:
    """The URL of ``ab_function.suite`` served by ``workers`` processes.

    With one thread per worker each process serves one call at a time, as a
    FaaS instance does; more threads let calls share a process.
    """
    ff = require("functions-framework")
    tmp.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {**os.environ, "WORKERS": str(workers), "THREADS": str(threads)}
    with open(tmp / f"ff-{port}.log", "wb") as log:
        proc = subprocess.Popen(
            [ff, "--target=suite", f"--source={FUNCTION}", f"--host={LOOPBACK}", f"--port={port}"],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env,
            start_new_session=True,
        )
    try:
        wait_for_port(port, proc, 30, "functions-framework")
        yield f"http://{LOOPBACK}:{port}/"
    finally:
        stop(proc)
