"""Fill numba's on-disk cache on CI's second core before the tests need it.

A clean clone has no compiled kernels, and compiling them (a parallel twin
takes seconds each) used to happen inside the tests, one after another, on
one core: about 150 s of a CI run. This script compiles them in a second
process while the first runs the linters and the first test files (the
adapters' tests mostly wait on real services). It runs every docstring
example of the core once with one thread and once with two, which reaches
most kernels in the signatures the library uses, then a few calls the
examples do not make (large samples, both signed-rank forms). Its results
are thrown away; the tests check results. A kernel the tests reach first is
compiled there as before, so a slow or failed warm-up only costs time.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import logging
import os
import pkgutil
import sys
import time
from collections.abc import Callable, Iterator

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np

import perfstats
from perfstats._kernels.threads import fixed_threads, one_thread

log = logging.getLogger("warm_kernels")


def _examples() -> Iterator[doctest.DocTest]:
    finder = doctest.DocTestFinder()
    for info in pkgutil.walk_packages(perfstats.__path__, "perfstats."):
        try:
            module = importlib.import_module(info.name)
        except Exception as exc:  # a module needing an optional extra
            log.info("skipped %s: %s", info.name, exc)
            continue
        yield from finder.find(module)


def _run_examples() -> None:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in _examples():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner.run(test, out=lambda _: None)


def _run_large() -> None:
    rng = np.random.default_rng(0)
    x = np.exp(0.3 * np.cumsum(rng.normal(size=30_000)) / 100.0 + rng.normal(size=30_000))
    for block in (2, 9, 40):
        for kind in ("moving", "circular", "stationary", "superflow"):
            perfstats.bootstrap_distribution(x, 0.5, block_length=block, block_kind=kind,
                                             n_resamples=50, rng=1)  # fmt: skip
    perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="block", n_resamples=50, rng=1)
    for engine in ("order", "chain", "direct"):
        perfstats.percentile_ci(x[:3000], [0.25, 0.5], method="bootstrap", n_resamples=50,
                                rng=1, engine=engine)  # fmt: skip
    perfstats.percentile_ci(x[:3000], [0.25, 0.5], method="exact-bootstrap")
    perfstats.bootstrap_distribution(x[:500], np.std, n_resamples=20, rng=1)
    a, b = rng.normal(size=40), rng.normal(size=40)
    for alternative in ("two-sided", "less", "greater"):
        perfstats.wilcoxon_signedrank(a, b, alternative=alternative)
        perfstats.wilcoxon_signedrank(a - b, alternative=alternative)
        perfstats.wilcoxon_ranksum(a, b, alternative=alternative)
    y = x[:3000]
    perfstats.relative_change(y, y * 1.01, paired=True, n_resamples=200, rng=1)
    perfstats.relative_change(y, y * 1.01, paired=True, per_pair=True, n_resamples=200, rng=1)
    perfstats.relative_change(y, y * 1.01, statistic="mean", n_resamples=200, rng=1)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="warm_kernels: %(message)s")
    start = time.perf_counter()
    steps: list[tuple[str, Callable[[], None]]] = [
        ("examples", _run_examples),
        ("large", _run_large),
    ]
    for threads, context in (("1 thread", one_thread), ("2 threads", lambda: fixed_threads(2))):
        for name, step in steps:
            with context():
                try:
                    step()
                except Exception as exc:  # the tests will report it, with context
                    log.info("%s (%s) stopped: %r", name, threads, exc)
            log.info("%s (%s) done at %.0f s", name, threads, time.perf_counter() - start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
