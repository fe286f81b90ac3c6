"""ElastiBench's A-B sensitivity over interleaved runs of three trees of the code.

The local A-B suite (``python -m benchmarks.reproduce_elastibench suites``:
five workloads, an injected +10% and +50%, duet and RMIT schedules, a local
command and an HTTP function as targets) flagged the +10% in 5 of 5
benchmarks in its three committed runs, and in 1-2 of 5 under RMIT on the
command when tried again later. To tell the code from the machine and from
chance, three trees ran the suite in turn, five rounds with the same seed
per round and the order rotated:

* ``old``: the code of the committed runs (``python benchmarks/ab_local.py``);
* ``pre``: the code before the test workloads ran one untimed unit first;
* ``cur``: the code with it.

Each round's runs are ``{tree}_{round}.json`` (the suites command's
``--json``) in a folder, with ``runs.log`` (one line per run: tree, round,
exit status, seconds, the load average at its end). This script tabulates
them: per tree, schedule and target, the benchmarks flagged slower with the
change inside the CI, run by run.

Usage::

    python -m benchmarks.ab_interleaved benchmarks/results/ab_interleaved \\
        > benchmarks/results/ab_interleaved.txt
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SUITE = "A/B+10%"


def load(folder: Path) -> dict[tuple[str, str, str], dict[int, dict[str, Any]]]:
    """``{(tree, schedule, target): {round: row}}`` of the +10% suite."""
    out: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = collections.defaultdict(dict)
    for path in sorted(folder.glob("*_*.json")):
        tree, _, number = path.stem.rpartition("_")
        if not number.isdigit():
            raise ValueError(f"{path.name}: expected TREE_ROUND.json")
        for row in json.loads(path.read_text())["rows"]:
            if row["suite"] == SUITE:
                out[(tree, row["schedule"], row["target"])][int(number)] = row
    if not out:
        raise ValueError(f"{folder} holds no TREE_ROUND.json of the suites command")
    return out


def loads(folder: Path) -> dict[tuple[str, int], float]:
    """The load average at the end of each run, from ``runs.log``."""
    out = {}
    log = folder / "runs.log"
    for line in log.read_text().splitlines() if log.exists() else []:
        tree, number, *_, load = line.split()
        out[(tree, int(number))] = float(load.removeprefix("load="))
    return out


def table(folder: Path) -> str:
    rows = load(folder)
    load_of = loads(folder)
    rounds = sorted({r for runs in rows.values() for r in runs})
    head = f"{'tree':5} {'schedule':8} {'target':8} " + " ".join(f"r{r:<3}" for r in rounds)
    lines = [
        f"+10% flagged slower with the CI covering +10% (of 5 benchmarks), run by run; {SUITE}",
        head,
        "-" * len(head),
    ]
    for (tree, schedule, target), runs in sorted(rows.items()):
        cells = []
        for r in rounds:
            row = runs.get(r)
            cells.append(f"{row['covered']}/{row['benchmarks']:<2}" if row else "  -  ")
        lines.append(f"{tree:5} {schedule:8} {target:8} " + " ".join(cells))
    if load_of:
        lines += ["", "load average at the end of each run (2 CPUs)"]
        for tree in sorted({t for t, _ in load_of}):
            lines.append(
                f"{tree:5} "
                + " ".join(f"{load_of.get((tree, r), float('nan')):5.1f}" for r in rounds)
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the runs' JSON files and runs.log")
    args = parser.parse_args(argv)
    print(table(args.folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
