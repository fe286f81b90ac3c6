"""Start the Functions Framework serving the A-B suite function on loopback."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from support.services import LOOPBACK, free_port, require, stop, wait_for_port

HERE = Path(__file__).resolve().parent
FUNCTION = HERE / "ab_function.py"


@contextmanager
def suite_function(
    tmp: Path, *, workers: int = 2, threads: int = 1, cpus: Sequence[int] | None = None
) -> Iterator[str]:
    """The URL of ``ab_function.suite`` served by ``workers`` processes.

    With one thread per worker each process serves one call at a time, as a
    FaaS instance does; more threads let calls share a process. ``cpus``
    pins the server and its workers to those CPUs.
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
        if cpus is not None:
            os.sched_setaffinity(proc.pid, cpus)
        wait_for_port(port, proc, 30, "functions-framework")
        if cpus is not None:
            # Workers forked before the master was pinned are pinned too.
            for pid in _session(proc.pid):
                os.sched_setaffinity(pid, cpus)
        yield f"http://{LOOPBACK}:{port}/"
    finally:
        stop(proc)


def _session(sid: int) -> list[int]:
    """The live processes of session ``sid`` (Linux ``/proc``)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command: state ppid pgrp session ...
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid:
            pids.append(int(entry.name))
    return pids
