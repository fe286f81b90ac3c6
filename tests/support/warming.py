"""A command that warms up: its first calls are slow, the later ones fast.

Usage: ``python warming.py STATE [slow=40] [slow_ms=30] [fast_ms=8]``.
Each call increments the counter in the file STATE (calls must not overlap),
sleeps ``slow_ms`` for the first ``slow`` calls and ``fast_ms`` after, and
prints ``value=<ms>``: that level with a jitter of up to 2% drawn from the
call's number. The value is not the measured sleep: on a loaded CI runner an
8 ms sleep was seen to take 40-60 ms, which the warm-up detector rightly
reads as a level shift; the tests are about the driver, not the runner.
"""

from __future__ import annotations

import random
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
    time.sleep(ms / 1000.0)
    jitter = 1.0 + 0.02 * random.Random(n).uniform(-1.0, 1.0)
    sys.stdout.write(f"value={ms * jitter:.6f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
