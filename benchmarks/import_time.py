"""How long ``import perfstats`` takes here against another revision, interleaved.

Each round imports perfstats once from this checkout and once from a
checkout of ``--against`` (a temporary git worktree), each in a fresh
interpreter that times only the import itself; both trees are byte-compiled
first, as an installed package is. Prints the median and the minimum of
each side and their ratio.

    python -m benchmarks.import_time --against 12bb6f9 --runs 15
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = (
    "import sys, time; sys.path.insert(0, sys.argv[1]); "
    "t = time.perf_counter(); import perfstats; print(time.perf_counter() - t)"
)


def import_seconds(tree: Path) -> float:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tree)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    return float(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="git revision to compare with")
    parser.add_argument("--runs", type=int, default=15, help="interleaved rounds (15)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(other), args.against],
            check=True,
        )
        try:
            trees = {"this checkout": REPO, args.against: other}
            for tree in trees.values():
                compileall.compile_dir(tree / "perfstats", quiet=1)
            times: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, tree in trees.items():
                    times[name].append(import_seconds(tree))
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(other)], check=True
            )
    print(f"import perfstats, {args.runs} interleaved rounds (fresh interpreter each)")
    for name, values in times.items():
        print(
            f"  {name:<16} median {1e3 * statistics.median(values):.3f} ms"
            f"  min {1e3 * min(values):.3f} ms"
        )
    mine, theirs = (statistics.median(v) for v in times.values())
    print(f"  ratio this / {args.against}: {mine / theirs:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
