"""An A-B suite: benchmarks, a target, a schedule and the analysis settings.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..records.redaction import redact
from .benchmark import Benchmark
from .interleaving import DUET, SCHEDULES, Call, plan_suite
from .per_version import TargetPerVersion
from .suite_target import SuiteTarget


@dataclass(frozen=True)
class Suite:
    """Everything an A-B performance-change test needs, defaults from ElastiBench.

    Parameters
    ----------
    benchmarks : sequence of Benchmark
        Unique names.
    target : SuiteTarget
        What runs the calls.
    schedule : {"duet", "rmit"}, default "duet"
        See :mod:`perfstats.adapters.ab.interleaving`.
    calls : int, default 15
        Calls per benchmark (duet) or trials (RMIT).
    repeats : int, default 3
        Executions of each version per call: 3 x 15 = 45 results per
        benchmark and version (ElastiBench, Schirmer et al. 2024, Section VI-A).
    concurrency : int, default 150
        Calls in flight at once (ElastiBench: 150).
    level : float, default 0.99
        Level of the bootstrap CI of the relative median change.
    min_results : int, default 10
        Benchmarks with fewer successful results (pairs, for duet) are
        reported as such and not judged (ElastiBench).
    n_resamples : int, default 10000
        Bootstrap resamples per benchmark.
    grouped : bool, default True
        Resample calls, then results within them (two-level bootstrap), so
        that the CI reflects the variation between calls (instances) and
        not only within them.
    by_trial : bool, default True
        RMIT only: pair each trial's baseline and candidate executions of
        the same repeat and read the change from the pairs' ratios, trials
        resampled (:func:`~perfstats.adapters.ab.analysis.analyse`). On a
        machine whose speed drifts, the unpaired comparison of RMIT results
        is several times wider; False compares them unpaired.

    Examples
    --------
    >>> import sys
    >>> from perfstats.adapters.ab.benchmark import Benchmark
    >>> from perfstats.adapters.ab.reporting_command import ReportingCommand
    >>> from perfstats.adapters.ab.suite import Suite
    >>> suite = Suite([Benchmark("a"), Benchmark("b")], ReportingCommand([sys.executable]))
    >>> len(suite.plan(rng=1)), suite.results_per_version
    (30, 45)
    """

    benchmarks: Sequence[Benchmark]
    target: SuiteTarget
    schedule: str = DUET
    calls: int = 15
    repeats: int = 3
    concurrency: int = 150
    level: float = 0.99
    min_results: int = 10
    n_resamples: int = 10000
    grouped: bool = True
    by_trial: bool = True

    def __post_init__(self) -> None:
        benches = tuple(self.benchmarks)
        if not benches or not all(isinstance(b, Benchmark) for b in benches):
            raise ValueError("benchmarks must be a non-empty sequence of Benchmark")
        names = [b.name for b in benches]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"benchmark names must be unique; {dup!r} appears twice")
        object.__setattr__(self, "benchmarks", benches)
        if not isinstance(self.target, SuiteTarget):
            raise ValueError(f"target must be a SuiteTarget; got {self.target!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(
                f"schedule must be one of {', '.join(SCHEDULES)}; got {self.schedule!r}"
            )
        if self.schedule == DUET and not self.target.both_versions:
            raise ValueError(
                f"the duet schedule needs a target that runs both versions in one call; "
                f"{self.target.kind!r} targets run one version per invocation (use rmit)"
            )
        if isinstance(self.target, TargetPerVersion):
            missing = [n for n in names if n not in self.target.targets]
            if missing:
                raise ValueError(f"the target has no targets for benchmark {missing[0]!r}")
        for name, minimum in (
            ("calls", 1),
            ("repeats", 1),
            ("concurrency", 1),
            ("min_results", 1),
            ("n_resamples", 1),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
            if value < minimum:
                raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
            object.__setattr__(self, name, int(value))
        level = self.level
        if (
            isinstance(level, bool)
            or not isinstance(level, (int, float))
            or not (math.isfinite(level) and 0 < level < 1)
        ):
            raise ValueError(f"level must be a number in (0, 1); got {level!r}")
        for flag in ("grouped", "by_trial"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be true or false; got {getattr(self, flag)!r}")

    @property
    def paired(self) -> bool:
        """True for duet: results are baseline-candidate pairs from the same call."""
        return self.schedule == DUET

    @property
    def results_per_version(self) -> int:
        """Planned results per benchmark and version (``calls * repeats``)."""
        return self.calls * self.repeats

    def benchmark(self, name: str) -> Benchmark:
        """The benchmark called ``name``.

        Parameters
        ----------
        name : str
            Name of one of the suite's benchmarks.

        Returns
        -------
        Benchmark
            That benchmark, with its two versions' parameters.

        Raises
        ------
        ValueError
            If ``name`` is none of the suite's benchmarks.
        """
        for bench in self.benchmarks:
            if bench.name == name:
                return bench
        raise ValueError(f"no benchmark {name!r} in the suite")

    def plan(self, rng: Any = None) -> list[Call]:
        """The calls of one run of the suite, in the order they start.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
            Seed of the random orders; the same seed gives the same plan.

        Returns
        -------
        list of Call
            For duet, ``calls`` calls per benchmark, each running both
            versions ``repeats`` times; for RMIT, ``calls`` trials of one
            call per benchmark and version, each running that version
            ``repeats`` times. Calls are numbered from 1 in this order.
        """
        return plan_suite(
            self.schedule,
            [b.name for b in self.benchmarks],
            calls=self.calls,
            repeats=self.repeats,
            rng=rng,
        )

    def config(self) -> dict[str, Any]:
        """The suite as plain data (secrets redacted), for records.

        Returns
        -------
        dict of str to Any
            The schedule and analysis settings under their attribute names,
            the target's configuration under ``"target"`` and, under
            ``"benchmarks"``, each benchmark's name and its two versions'
            parameters; secrets in them are replaced
            (:func:`~perfstats.adapters.records.redaction.redact`).
        """
        return redact(
            {
                "schedule": self.schedule,
                "calls": self.calls,
                "repeats": self.repeats,
                "concurrency": self.concurrency,
                "level": self.level,
                "min_results": self.min_results,
                "n_resamples": self.n_resamples,
                "grouped": self.grouped,
                "by_trial": self.by_trial,
                "target": self.target.config(),
                "benchmarks": [
                    {"name": b.name, "baseline": dict(b.baseline), "candidate": dict(b.candidate)}
                    for b in self.benchmarks
                ],
            }
        )
