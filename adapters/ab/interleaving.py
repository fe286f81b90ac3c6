"""The order of an A-B suite's calls: duet and RMIT schedules.

A *call* is one invocation of the target; it runs one or more *executions*
(one version of one benchmark, timed once) in a given order.

* **duet** (ElastiBench, Schirmer et al. 2024, after Bulej et al.'s duet benchmarking):
  every call runs both versions of one benchmark, ``repeats`` times each,
  so both share the instance and its performance state. Each repeat is a
  baseline-candidate pair run back to back in a random order, so neither
  version always runs first. Calls come in rounds, one call per benchmark
  per round, in a fresh random order each round.
* **RMIT**, randomized multiple interleaved trials (Abedi & Brecht 2017,
  used by ElastiBench's VM baseline and, as repeated trials, by Liao et
  al. 2025): every call runs one version of one benchmark ``repeats``
  times; a trial runs every benchmark and version once, in a fresh random
  order, and the suite runs ``calls`` trials.

Call numbers follow the plan's order, which is the order calls are started.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
.. [Liao2025] Liao et al., "Early Detection of Performance Regressions by Bridging Local
   Performance Data and Architectural Models", ICSE 2025; see the References of
   :mod:`perfstats.system.propagation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

BASELINE = "baseline"
CANDIDATE = "candidate"
VERSIONS = (BASELINE, CANDIDATE)
DUET = "duet"
RMIT = "rmit"
SCHEDULES = (DUET, RMIT)


@dataclass(frozen=True)
class Execution:
    """One timed run of one version inside a call.

    Parameters
    ----------
    version : {"baseline", "candidate"}
    repeat : int
        1-based: the how-manieth run of this version in its call.

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import Execution
    >>> Execution("baseline", 1)
    Execution(version='baseline', repeat=1)
    """

    version: str
    repeat: int


@dataclass(frozen=True)
class Call:
    """One planned invocation of the target.

    Parameters
    ----------
    call : int
        1-based position in the plan, the order in which calls start.
    trial : int
        The round (duet) or trial (RMIT) it belongs to, 1-based.
    slot : int
        Its 1-based position within the trial's random order.
    benchmark : str
    executions : tuple of Execution
        What the call runs, in this order.

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import Call, Execution
    >>> c = Call(1, 1, 1, "sort", (Execution("candidate", 1), Execution("baseline", 1)))
    >>> c.versions
    ('baseline', 'candidate')
    """

    call: int
    trial: int
    slot: int
    benchmark: str
    executions: tuple[Execution, ...]

    @property
    def versions(self) -> tuple[str, ...]:
        """The versions this call runs, in :data:`VERSIONS` order."""
        present = {e.version for e in self.executions}
        return tuple(v for v in VERSIONS if v in present)


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def _names(benchmarks: Sequence[str]) -> list[str]:
    names = list(benchmarks)
    if not names:
        raise ValueError("benchmarks must name at least one benchmark")
    if not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"benchmark names must be non-empty strings; got {names!r}")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"benchmark names must be unique; {dup!r} appears twice")
    return names


def duet_plan(
    benchmarks: Sequence[str], *, calls: int, repeats: int, rng: Any = None
) -> list[Call]:
    """Plan a duet suite: ``calls`` calls per benchmark, both versions in each.

    Parameters
    ----------
    benchmarks : sequence of str
        Unique benchmark names.
    calls : int
        Calls per benchmark (ElastiBench: 15).
    repeats : int
        Baseline-candidate pairs per call (ElastiBench: 3).
    rng : None, int or numpy.random.Generator
        Seed of the random orders.

    Returns
    -------
    list of Call

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import duet_plan
    >>> plan = duet_plan(["a", "b"], calls=15, repeats=3, rng=1)
    >>> len(plan), len(plan[0].executions), plan[0].versions
    (30, 6, ('baseline', 'candidate'))
    """
    names = _names(benchmarks)
    n_calls = _positive(calls, "calls")
    n_repeats = _positive(repeats, "repeats")
    gen = np.random.default_rng(rng)
    plan: list[Call] = []
    for trial in range(1, n_calls + 1):
        for slot, i in enumerate(gen.permutation(len(names)), start=1):
            executions: list[Execution] = []
            for repeat in range(1, n_repeats + 1):
                pair = list(VERSIONS) if gen.random() < 0.5 else list(reversed(VERSIONS))
                executions.extend(Execution(v, repeat) for v in pair)
            plan.append(Call(len(plan) + 1, trial, slot, names[int(i)], tuple(executions)))
    return plan


def rmit_plan(
    benchmarks: Sequence[str], *, calls: int, repeats: int, rng: Any = None
) -> list[Call]:
    """Plan an RMIT suite: ``calls`` trials, each running every benchmark and version.

    Each trial calls every (benchmark, version) once, in a random order of
    its own; a call runs its version ``repeats`` times. The arguments are
    those of :func:`duet_plan`, with ``calls`` counting trials (calls per
    benchmark and version) and ``repeats`` the runs of the one version.

    Returns
    -------
    list of Call

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import rmit_plan
    >>> plan = rmit_plan(["a", "b"], calls=15, repeats=3, rng=1)
    >>> len(plan), [c.trial for c in plan[:5]], len(plan[0].executions)
    (60, [1, 1, 1, 1, 2], 3)
    """
    names = _names(benchmarks)
    n_calls = _positive(calls, "calls")
    n_repeats = _positive(repeats, "repeats")
    gen = np.random.default_rng(rng)
    units = [(name, version) for name in names for version in VERSIONS]
    plan: list[Call] = []
    for trial in range(1, n_calls + 1):
        for slot, i in enumerate(gen.permutation(len(units)), start=1):
            name, version = units[int(i)]
            executions = tuple(Execution(version, r) for r in range(1, n_repeats + 1))
            plan.append(Call(len(plan) + 1, trial, slot, name, executions))
    return plan


def plan_suite(
    schedule: str, benchmarks: Sequence[str], *, calls: int, repeats: int, rng: Any = None
) -> list[Call]:
    """The plan of ``schedule`` (``"duet"`` or ``"rmit"``).

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import plan_suite
    >>> len(plan_suite("rmit", ["a"], calls=2, repeats=1, rng=0))
    4
    """
    if schedule == DUET:
        return duet_plan(benchmarks, calls=calls, repeats=repeats, rng=rng)
    if schedule == RMIT:
        return rmit_plan(benchmarks, calls=calls, repeats=repeats, rng=rng)
    raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}; got {schedule!r}")
