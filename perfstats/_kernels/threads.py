"""When kernels may use numba's thread pool.

Parallel kernels pay off only above a few hundred thousand element visits;
below that thread start-up and the barrier cost more than they save. A
process may also forbid threads altogether: a worker forked from a process
whose OpenMP pool is running must never enter that pool (GNU OpenMP is not
fork-safe), so replay workers switch threads off before their first kernel.
Resamples draw from their own streams, so serial and parallel paths give
identical numbers.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

PARALLEL_WORK = 250_000

_allowed = True
# Per-thread override: a task on an executor's worker thread runs its
# kernels serially without touching what other threads of the process do.
_local = threading.local()


def allow_threads(flag: bool) -> None:
    """Allow (True) or forbid (False) parallel kernels in this process."""
    global _allowed
    _allowed = bool(flag)


@contextmanager
def single_threaded() -> Iterator[None]:
    """Run the kernels called in this block (in this thread) serially."""
    before = getattr(_local, "serial", False)
    _local.serial = True
    try:
        yield
    finally:
        _local.serial = before


def use_threads(work: int) -> bool:
    """Whether a kernel doing ``work`` element visits should run in parallel."""
    return _allowed and not getattr(_local, "serial", False) and work > PARALLEL_WORK
