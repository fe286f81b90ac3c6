"""A command whose n-th invocation does what the test planned.

Usage: ``python scripted.py STATE [fail=2,5] [sleep=3:1.5] [value=n|const]``.
Each call increments the counter in the file STATE (calls must not overlap),
then fails (exit 1) if n is listed under ``fail``, sleeps if listed under
``sleep``, and prints ``value=<v>`` where v is ``100 + n`` by default.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    state = Path(argv[0])
    n = int(state.read_text()) + 1 if state.exists() else 1
    state.write_text(str(n))
    plan = dict(arg.split("=", 1) for arg in argv[1:])
    fails = {int(x) for x in plan.get("fail", "").split(",") if x}
    sleeps = dict(item.split(":") for item in plan.get("sleep", "").split(",") if item)
    if str(n) in sleeps:
        time.sleep(float(sleeps[str(n)]))
    if n in fails:
        sys.stderr.write(f"planned failure of call {n}\n")
        return 1
    sys.stdout.write(f"value={100 + n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
