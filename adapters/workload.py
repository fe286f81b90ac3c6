"""The built-in workload: a short deterministic computation that times itself.

Run as a script (``python workload.py [size]``), not imported: the child
process must start fast, so it needs nothing but the standard library. It
prints ``elapsed_ns=<int>``, the monotonic time of the computation alone, so
a run of it measures the computation rather than interpreter start-up.
"""

from __future__ import annotations

import sys
import time

DEFAULT_SIZE = 60_000
PATTERN = r"elapsed_ns=(\d+)"


def compute(size: int) -> int:
    """A linear congruential walk with a running checksum: same work every time.

    Examples
    --------
    >>> compute(10)
    1480419
    """
    state, checksum = 12345, 0
    for i in range(size):
        state = (state * 1103515245 + 12345) % 2147483648
        checksum = (checksum + (state >> 16) * (i % 7 + 1)) % 1000003
    return checksum + size


def main(argv: list[str] | None = None) -> int:
    """Time ``compute`` once and print the result line."""
    args = sys.argv[1:] if argv is None else argv
    size = int(args[0]) if args else DEFAULT_SIZE
    # One untimed pass first, so the timed pass does not include the
    # interpreter's first-touch costs (allocations, bytecode caches).
    compute(size // 10)
    t0 = time.perf_counter_ns()
    checksum = compute(size)
    elapsed = time.perf_counter_ns() - t0
    sys.stdout.write(f"elapsed_ns={elapsed} checksum={checksum}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
