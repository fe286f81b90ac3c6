"""How many of numba's threads a kernel may use, decided per call.

perfstats runs next to the workloads it measures and on shared CI runners,
where a parallel kernel that assumes idle cores is slower than a serial one:
its threads queue behind other processes and the fastest thread waits at
the barrier for the slowest. So every parallel kernel has a serial twin,
and each call picks the number of threads from

* the work: below :data:`PARALLEL_WORK` element visits per thread, thread
  wake-up and the barrier cost more than they save;
* the cores this process may run on (``os.sched_getaffinity``) and numba's
  own limit;
* the cores free **right now**: the kernel's count of runnable tasks (the
  fourth field of ``/proc/loadavg``, an instantaneous snapshot that is cheap
  to read, unlike the one-minute load average which lags by a minute).
  Other runnable tasks take cores away one for one.

Waiting threads must not spin (a spinning worker burns the core another
process needs, and is itself counted as runnable): before numba starts its
OpenMP pool we ask GNU OpenMP for passive waiting, unless the user chose a
policy. We keep numba's OpenMP layer rather than ``workqueue``: OpenMP may
be entered from several Python threads at once, ``workqueue`` aborts the
process when that happens.

A process may also forbid threads altogether: a worker forked from a process
whose OpenMP pool is running must never enter that pool (GNU OpenMP is not
fork-safe), so replay workers switch threads off before their first kernel.

Resamples draw from their own counter-based streams and work is cut into a
fixed number of chunks, so the result is the same for any thread count.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numba

# Must precede the start of numba's OpenMP pool (the first parallel call):
# libgomp reads it once, when it is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

PARALLEL_WORK = 250_000

_allowed = True
# Set only by ``fixed_threads`` (tests and benchmarks): bypasses the load check.
_fixed: int | None = None

T = TypeVar("T")

# Per-thread override: a task on an executor's worker thread runs its
# kernels serially without touching what other threads of the process do.
_local = threading.local()


def allow_threads(flag: bool) -> None:
    """Allow (True) or forbid (False) parallel kernels in this process."""
    global _allowed
    _allowed = bool(flag)


def _forked_child() -> None:
    # A child forked after a parallel kernel ran inherits a thread pool whose
    # threads did not survive the fork (GNU OpenMP is not fork-safe): entering
    # it would hang. Serial kernels give the same numbers, so the child runs
    # those; it may allow threads again only after an exec.
    allow_threads(False)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked_child)


@contextmanager
def one_thread() -> Iterator[None]:
    """Run every kernel serially inside the block (benchmarks compare against it)."""
    global _allowed
    before = _allowed
    _allowed = False
    try:
        yield
    finally:
        _allowed = before


@contextmanager
def fixed_threads(threads: int) -> Iterator[None]:
    """Use exactly ``threads`` threads for every kernel inside the block, whatever the load."""
    global _fixed
    before = _fixed
    _fixed = max(1, int(threads))
    try:
        yield
    finally:
        _fixed = before


def usable_cores() -> int:
    """Cores this process may run on, capped by numba's (thread-local) thread count.

    Asking numba for its thread count starts its pool the first time, so a
    process that ran a large kernel always has a running pool, whichever
    path the load made it take (the state forked workers must survive).
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, numba.get_num_threads()))


# Reading the run queue costs a /proc read (slower still when the CPUs are
# busy, which is exactly when kernels are called most); kernels called back
# to back within this many seconds share one snapshot, which is no staler
# than the scheduler's own noise.
SNAPSHOT_S = 0.005
_snapshot: tuple[float, int] = (-math.inf, 0)


def other_runnable() -> int:
    """Tasks other than the caller that are running or waiting for a CPU now.

    Linux reports the instantaneous count in ``/proc/loadavg`` (it includes
    the caller). Elsewhere we fall back to the one-minute load average,
    which is slow to react but errs towards fewer threads after a busy spell.
    One reading serves the calls of the next :data:`SNAPSHOT_S` seconds.
    """
    global _snapshot
    now = time.monotonic()
    taken, value = _snapshot
    if now - taken < SNAPSHOT_S:
        return value
    value = _read_other_runnable()
    _snapshot = (now, value)
    return value


def _read_other_runnable() -> int:
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/loadavg", "rb") as fh:
                running = int(fh.read().split()[3].split(b"/")[0])
            return max(0, running - 1)
        except (OSError, ValueError, IndexError):
            pass
    try:
        return int(os.getloadavg()[0])
    except (AttributeError, OSError):
        return 0


@contextmanager
def single_threaded() -> Iterator[None]:
    """Run the kernels called in this block (in this thread only) serially."""
    before = getattr(_local, "serial", False)
    _local.serial = True
    try:
        yield
    finally:
        _local.serial = before


def threads_for(work: int) -> int:
    """Threads for a kernel doing ``work`` element visits: 1 unless they pay."""
    if not _allowed or getattr(_local, "serial", False):
        return 1
    if _fixed is not None:
        return _fixed
    if work < 2 * PARALLEL_WORK:
        return 1
    cores = usable_cores()
    if cores == 1:
        return 1
    free = cores - other_runnable()
    return max(1, min(cores, free, work // PARALLEL_WORK))


def use_threads(work: int) -> bool:
    """Whether a kernel doing ``work`` element visits should take its parallel twin."""
    return threads_for(work) > 1


def run_kernel(serial: Callable[..., T], parallel: Callable[..., T], work: int, *args: Any) -> T:
    """Call ``parallel(*args)`` on the threads that pay, else ``serial(*args)``.

    Both must compute the same numbers; only the speed differs.
    """
    threads = threads_for(work)
    if threads == 1:
        return serial(*args)
    before = numba.get_num_threads()
    if before == threads:
        # numba.set_num_threads checks and re-launches its pool, twice per
        # kernel: a cost worth skipping when the count already fits.
        return parallel(*args)
    numba.set_num_threads(threads)
    try:
        return parallel(*args)
    finally:
        numba.set_num_threads(before)
