"""Memory and time of reading a large results file, against ``json.load`` of it.

Two bounds of the importers (:func:`perfstats.adapters.records.importers.read`):

* memory: reading a hyperfine export takes at most 4x the file's size in
  peak extra memory (the high-water mark of the resident set, ``VmHWM``,
  after reading, less before it, in a fresh process that has imported the
  library and read a small file);
* time: reading it takes at most 3x the time ``json.load`` takes on it.

The file is written in hyperfine's own layout (``--export-json``: pretty
JSON, two-space indents, one time and one exit code a line): hyperfine runs
once on ``true`` for the layout and the fields, then its runs are repeated
(with jitter) up to the size asked for. Times are read alternately
(``json.load``, then ``read``) so that both see the same machine state;
with ``--busy`` a process spinning on one core runs beside them.

Not part of a paper's reproduction: a check of the library's cost.

Usage::

    python -m benchmarks.importer_bounds [--memory-mb 200] [--time-mb 50] [--repeats 5] [--busy]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: The bounds: peak extra memory per byte of file, and time per json.load time.
MEMORY_BOUND = 4.0
TIME_BOUND = 3.0


def write_hyperfine_export(path: Path, size_bytes: int, *, seed: int = 0) -> int:
    """A hyperfine export of about ``size_bytes`` at ``path``; returns its run count.

    hyperfine runs for real (``true``, 10 runs) for the file's fields and
    layout; its times are then repeated with jitter in two commands until
    the file reaches the size.
    """
    with tempfile.TemporaryDirectory() as tmp:
        real = Path(tmp) / "real.json"
        subprocess.run(["hyperfine", "--runs", "10", "-N", "true", "-n", "true",
                        "--export-json", str(real)], check=True, capture_output=True,
                       timeout=120)  # fmt: skip
        doc = json.loads(real.read_text())
    template = doc["results"][0]
    base = np.asarray(template["times"], dtype=np.float64)
    # A run takes about 30 bytes of times and 10 of exit codes in this layout.
    runs = max(10, size_bytes // 40 // 2)
    rng = np.random.default_rng(seed)
    results = []
    for name in ("true", "true --version"):
        times = rng.choice(base, runs) * rng.lognormal(0.0, 0.05, runs)
        results.append({**template, "command": name, "times": times.tolist(),
                        "exit_codes": [0] * runs})  # fmt: skip
    path.write_text(json.dumps({"results": results}, indent=2))
    return 2 * runs


_MEMORY_PROBE = """
import sys
from perfstats.adapters.records.importers import read


def peak():
    # The high-water mark of this process's own memory (ru_maxrss would
    # carry the parent's over the fork).
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


read(sys.argv[2])  # a small file first: what is loaded on first use is no file's cost
before = peak()
res = read(sys.argv[1])
print(before, peak(), len(res.frame))
"""


def peak_extra_memory(path: Path, small: Path) -> tuple[int, int]:
    """(peak extra bytes, values read) of reading ``path`` in a fresh process."""
    done = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(path), str(small)],
                          check=True, capture_output=True, text=True, timeout=1800)  # fmt: skip
    before, after, n = (int(v) for v in done.stdout.split())
    return after - before, n


def read_times(path: Path, repeats: int) -> tuple[list[float], list[float]]:
    """Wall times of ``json.load`` and of ``read`` on ``path``, alternately."""
    from perfstats.adapters.records.importers import read

    loads, reads = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            json.load(f)
        t1 = time.perf_counter()
        read(path)
        t2 = time.perf_counter()
        loads.append(t1 - t0)
        reads.append(t2 - t1)
    return loads, reads


def _spin() -> None:
    while True:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-mb", type=float, default=200.0)
    parser.add_argument("--time-mb", type=float, default=50.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--busy", action="store_true", help="a spinning process beside")
    args = parser.parse_args(argv)
    hog = None
    if args.busy:
        hog = multiprocessing.Process(target=_spin, daemon=True)
        hog.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            small, big, mid = (Path(tmp) / f"{n}.json" for n in ("small", "big", "mid"))
            write_hyperfine_export(small, 10_000)
            n_big = write_hyperfine_export(big, int(args.memory_mb * 1e6))
            extra, n_read = peak_extra_memory(big, small)
            size = os.path.getsize(big)
            assert n_read == n_big
            print(f"memory: {size / 1e6:.0f} MB hyperfine export, {n_big} runs; peak extra "
                  f"{extra / 1e6:.0f} MB = {extra / size:.2f}x the file (bound {MEMORY_BOUND:g}x)")
            big.unlink()
            write_hyperfine_export(mid, int(args.time_mb * 1e6))
            loads, reads = read_times(mid, args.repeats)
            ratios = [r / j for r, j in zip(reads, loads, strict=True)]
            print(f"time: {os.path.getsize(mid) / 1e6:.0f} MB; json.load median "
                  f"{np.median(loads):.2f} s, read median {np.median(reads):.2f} s; read / "
                  f"json.load per repeat {', '.join(f'{r:.2f}' for r in ratios)}; median "
                  f"{np.median(ratios):.2f}x (bound {TIME_BOUND:g}x)"
                  + ("; beside a spinning process" if args.busy else "; idle"))  # fmt: skip
    finally:
        if hog is not None:
            hog.terminate()
            hog.join()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
