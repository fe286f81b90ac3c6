"""The built-in workload: a short deterministic computation that times itself.

Run as a script (``python workload.py [size] [repeat]``), not imported: the
child process must start fast, so it needs nothing but the standard library.
It prints ``elapsed_ns=<int>``, the fastest of ``repeat`` timed passes of
the computation (as :mod:`timeit` advises: slower passes measure other
processes' interference, not the code), so a run of it measures the
computation rather than interpreter start-up or a busy neighbour.

The defaults are many short passes rather than a few long ones: on a
machine shared with other jobs a pass is undisturbed only if no time slice
goes elsewhere while it runs, which is likelier for a short pass, and the
fastest of many is then almost always such a pass. The fastest of five
passes of twice the length varied several times as much from run to run
on a busy two-CPU VM.
"""

from __future__ import annotations

import sys
import time

DEFAULT_SIZE = 5_000
DEFAULT_REPEAT = 20
PATTERN = r"elapsed_ns=(\d+)"


def compute(size: int) -> int:
    """A linear congruential walk with a running checksum: same work every time.

    Examples
    --------
    >>> compute(10)
    506614
    """
    state, checksum = 12345, 0
    for i in range(size):
        state = (state * 1103515245 + 12345) % 2147483648
        checksum = (checksum + (state >> 16) * (i % 7 + 1)) % 1000003
    return checksum + size


def main(argv: list[str] | None = None) -> int:
    """Time ``compute`` and print the result line."""
    args = sys.argv[1:] if argv is None else argv
    size = int(args[0]) if args else DEFAULT_SIZE
    repeat = int(args[1]) if len(args) > 1 else DEFAULT_REPEAT
    # One untimed pass first, so no timed pass includes the interpreter's
    # first-touch costs (allocations, bytecode caches).
    checksum = compute(size)
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        if compute(size) != checksum:
            raise RuntimeError("the computation is not deterministic")
        elapsed = time.perf_counter_ns() - t0
        best = elapsed if best is None else min(best, elapsed)
    sys.stdout.write(f"elapsed_ns={best} checksum={checksum}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
