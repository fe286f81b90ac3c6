"""The README's main job, ``perfstats run``, run several times: does its rule stop it?

Each repetition runs ``perfstats run`` (the bundled workload under
SuperFlow, its defaults) as a child process, exactly as a newcomer would,
and reads its final lines: what stopped it (the rule, or the cap of 500
runs), after how many runs, in how many seconds, and, when it ended at
its cap, why. The last ``--busy`` repetitions run beside a busy process
(``python -c "while True: pass"``, started before and killed after the
repetition), as on a machine shared with another job.

Usage::

    python benchmarks/main_job.py [--repetitions 5] [--busy 1] [--max-n N]
                                  [--out benchmarks/results/main_job.txt] [-- RUN-ARGS]

Arguments after ``--`` go to ``perfstats run`` as they are, to compare
another setting with the default (``-- -t cpus=None``: the bundled workload
unpinned). The result file starts with the command that made it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PERFSTATS = [sys.executable, "-m", "perfstats.adapters.cli", "run", "--no-progress"]
BUSY = [sys.executable, "-c", "while True: pass"]
STOPPED = re.compile(r"^stopped by (\S+) after (\d+) measured runs .* in ([\d.]+) s$", re.M)
HEADER = (
    f"{'run':>3} {'beside':<6} {'load':>5} {'stopped by':<10} {'n':>4} {'time s':>7}  last lines"
)
_INDENT = len(HEADER) - len("last lines")


def main_job(
    max_n: int | None = None, busy: bool = False, extra: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Run ``perfstats run [EXTRA]`` once (beside a busy process when ``busy``); its final lines."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    hog = subprocess.Popen(BUSY) if busy else None
    try:
        args = [*PERFSTATS, *([] if max_n is None else ["--max-n", str(max_n)]), *extra]
        started = time.monotonic()
        done = subprocess.run(args, capture_output=True, text=True, timeout=1800)
        wall = time.monotonic() - started
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    if done.returncode != 0:
        raise RuntimeError(f"perfstats run failed ({done.returncode}): {done.stderr.strip()}")
    found = STOPPED.search(done.stdout)
    if found is None:
        raise RuntimeError(f"no 'stopped by' line in the output:\n{done.stdout}")
    lines = done.stdout.splitlines()
    first = lines.index(found.group(0))
    # The stop line, the decision, and (at a cap) why and what to do: up to the blank line.
    end = lines.index("", first) if "" in lines[first:] else len(lines)
    last = lines[first:end]
    return {
        "stopped_by": found.group(1),
        "n": int(found.group(2)),
        "elapsed_s": float(found.group(3)),
        "wall_s": wall,
        "busy": busy,
        "load": load,
        "target": next((ln for ln in lines if ln.startswith("target ")), ""),
        "last_lines": last,
        "output": done.stdout,
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The runs, one line each, then how many the rule stopped."""
    out = [HEADER]
    for i, r in enumerate(rows, start=1):
        beside = "busy" if r["busy"] else "-"
        out.append(
            f"{i:>3} {beside:<6} {r['load']:>5.1f} {r['stopped_by']:<10} {r['n']:>4} "
            f"{r['elapsed_s']:>7.1f}  " + r["last_lines"][1 if len(r["last_lines"]) > 1 else 0]
        )
        out += [" " * _INDENT + line for line in r["last_lines"][2:]]
    by_rule = sum(r["stopped_by"] == "rule" for r in rows)
    out.append(f"stopped by the rule in {by_rule} of {len(rows)} runs")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5, help="runs of the main job")
    parser.add_argument(
        "--busy", type=int, default=1, help="of them, the last this many beside a busy process"
    )
    parser.add_argument("--max-n", type=int, help="passed on to perfstats run (default: its cap)")
    parser.add_argument("--out", metavar="PATH", help="write the table here, the command on top")
    parser.add_argument("run_args", nargs="*", metavar="RUN-ARGS", help="for perfstats run")
    args = parser.parse_args(argv)
    if args.repetitions < 1 or not 0 <= args.busy <= args.repetitions:
        parser.error("need --repetitions >= 1 and 0 <= --busy <= --repetitions")
    rows = []
    for i in range(args.repetitions):
        busy = i >= args.repetitions - args.busy
        rows.append(main_job(args.max_n, busy, tuple(args.run_args)))
        print(f"run {i + 1}: {rows[-1]['last_lines'][0]}", file=sys.stderr)
    text = table(rows)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    head = f"{rows[0]['target']}; {cpus} usable CPUs; load: the 1-minute load average before a run"
    print(head)
    print(text)
    if args.out:
        command = shlex.join(["python", "benchmarks/main_job.py", *(argv or sys.argv[1:])])
        example = rows[0]["output"].rstrip("\n")
        Path(args.out).write_text(
            f"# command: {command}\n{head}\n{text}\n\nthe output of run 1:\n{example}\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
