"""A command that warms up: its first calls are slow, the later ones fast.

Usage: ``python warming.py STATE [slow=40] [slow_ms=30] [fast_ms=8]``.
Each call increments the counter in the file STATE (calls must not overlap),
sleeps ``slow_ms`` for the first ``slow`` calls and ``fast_ms`` after, and
prints ``value=<ms>``, the time the sleep took, measured by the call itself
(so that interpreter start-up on a busy machine does not blur the levels).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    state = Path(argv[0])
    n = int(state.read_text()) + 1 if state.exists() else 1
    state.write_text(str(n))
    plan = {"slow": "40", "slow_ms": "30", "fast_ms": "8"}
    plan.update(arg.split("=", 1) for arg in argv[1:])
    ms = float(plan["slow_ms"]) if n <= int(plan["slow"]) else float(plan["fast_ms"])
    t0 = time.perf_counter()
    time.sleep(ms / 1000.0)
    sys.stdout.write(f"value={(time.perf_counter() - t0) * 1000.0:.6f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
