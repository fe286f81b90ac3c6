"""Replay a stopping rule over recorded traces: where would it have stopped?

A *test* is a trace and a start offset ``s``. The rule sees the runs
``x[s : s + n]`` for ``n`` on its interval grid (every ``rule.interval``
runs, from the first multiple at or above ``rule.min_n``), exactly as a
harness with :class:`perfstats.Monitor` would, and the first ``n`` at which
it says stop is the test's stop point. A rule that never stops within the
runs available (``max_n``, or the end of the trace) is charged all of them
and marked as not stopped: SuperFlow's protocol (Wen et al. 2023, Section 3.3) and
Metior's (He et al. 2021, Section IV-A) both do so.

Tests are independent, so traces are spread over worker processes (forked
where the platform allows it); each worker runs numba single-threaded,
because the processes already fill the cores and nested threads would only
contend. Threads would not help: the rules spend much of their time in
Python between kernel calls, under the GIL.

:func:`sweep` replays many rule configurations at once. Its unit of work is
a trace (or a group of ``traces_per_task`` traces) with *every*
configuration, not one configuration on one trace: on a cluster a task of a
few milliseconds costs as much in scheduling and pickling as it computes,
and a sweep of configurations run one :func:`replay` after another leaves
workers idle at the end of each.

References
----------
.. [Wen2023] J. Wen, Z. Chen, F. Sarro and X. Liu, "SuperFlow: Performance Testing
   for Serverless Computing", arXiv:2306.01620, 2023.
.. [He2021] S. He, T. Liu, P. Lama, J. Lee, I. K. Kim and W. Wang, "Performance
   Testing for Cloud Computing with Dependent Data Bootstrapping", 36th
   IEEE/ACM International Conference on Automated Software Engineering
   (ASE), 2021.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext
from typing import Any

import numpy as np
import pandas as pd

from .._validation import as_sample, check_int
from ..rules.base import Rule
from ._traces import named_traces

COLUMNS = ["trace", "start", "stop_n", "stopped", "checks", "reason"]

RuleSpec = Rule | Mapping[str, Rule]
StartSpec = int | Sequence[int] | Mapping[str, Sequence[int]]
LimitSpec = int | Mapping[str, int] | None


@dataclass(frozen=True)
class _Job:
    """Everything one worker needs to replay one trace."""

    name: str
    rule: Rule
    data: np.ndarray
    starts: tuple[int, ...]
    max_n: int | None


def replay(
    rule: RuleSpec,
    traces: Mapping[str, Any] | Sequence[Any],
    *,
    starts: StartSpec = 0,
    max_n: LimitSpec = None,
    workers: int | None = None,
    progress: bool = True,
    executor: Executor | None = None,
    traces_per_task: int = 1,
) -> pd.DataFrame:
    """Replay ``rule`` over every test (trace, start) and return the stop points.

    Parameters
    ----------
    rule : Rule or mapping of str to Rule
        The stopping rule, or one per trace name (e.g. when the run interval
        depends on the trace, as in Metior's evaluation).
    traces : mapping of str to array_like, or sequence of array_like
        Recorded measurements in collection order; a sequence is named
        ``"0"``, ``"1"``, ...
    starts : int, sequence of int, or mapping of str to sequence of int
        Start offsets of the tests: one for every trace, several for every
        trace, or several per trace name. Default: one test from run 0.
    max_n : int or mapping of str to int, optional
        Most runs a test may use (default: up to the end of the trace).
    workers : int, optional
        Worker processes (default: the number of CPUs). ``1`` replays in this
        process, which is also what happens for a single trace.
    progress : bool, default True
        Show a tqdm progress bar counting tests.
    executor : concurrent.futures.Executor, optional
        Run the traces on this executor instead of local worker processes
        (``workers`` is then ignored): any ``concurrent.futures.Executor``,
        e.g. a ``ProcessPoolExecutor`` of your own or a Dask cluster's
        ``distributed.Client(address).get_executor()``. Each trace (or
        group of ``traces_per_task`` traces) is one task; rule and traces
        are pickled to the worker. For many rule configurations use
        :func:`sweep`, whose tasks carry all of them. The result is
        identical to the serial one, bit for bit: a test depends only on its
        rule, trace and start, and the rules' random streams do not depend
        on where or on how many threads they run. Each task runs numba's
        kernels single-threaded, as local workers do: run one worker
        process per core. The executor is not shut down. A
        ``ProcessPoolExecutor`` of your own should start its workers with
        ``mp_context=multiprocessing.get_context("spawn")`` (or
        ``"forkserver"``) once numba's threads have run in this process:
        forking a process whose OpenMP pool is running is unsafe.
    traces_per_task : int, default 1
        Consecutive traces replayed by one task (on the executor or a local
        worker). Larger tasks cost less scheduling and pickling per test; too
        few tasks leave workers idle. The result does not depend on it.

    Returns
    -------
    pandas.DataFrame
        One row per test, in the order of ``traces`` then ``starts``:
        ``trace`` (str), ``start``, ``stop_n`` (runs used), ``stopped``
        (False when the rule ran out of runs), ``checks`` (judgements made)
        and ``reason`` (the stopping decision's reason, or why it ran out).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.replay import replay
    >>> from perfstats.rules import CIWidth
    >>> rng = np.random.default_rng(0)
    >>> traces = {"a": rng.normal(100, 1, 200), "b": rng.normal(100, 30, 200)}
    >>> rule = CIWidth(error=0.01, interval=5, min_n=10)
    >>> replay(rule, traces, workers=1, progress=False)[["trace", "stop_n", "stopped"]]
      trace  stop_n  stopped
    0     a      10     True
    1     b     200    False
    """
    jobs = _jobs(rule, traces, starts, max_n)
    per_task = check_int(traces_per_task, "traces_per_task")
    tasks = [tuple(range(i, min(i + per_task, len(jobs)))) for i in range(0, len(jobs), per_task)]
    rows = _execute(jobs, tasks, workers, progress, executor)
    return _frame([row for result in rows for row in result], COLUMNS)


def sweep(
    rules: Mapping[str, RuleSpec],
    traces: Mapping[str, Any] | Sequence[Any],
    *,
    starts: StartSpec = 0,
    max_n: LimitSpec = None,
    workers: int | None = None,
    progress: bool = True,
    executor: Executor | None = None,
    traces_per_task: int = 1,
) -> pd.DataFrame:
    """Replay every rule configuration in ``rules`` over every test, one task per trace.

    The frame equals ``replay`` run for each configuration in turn, with a
    ``rule`` column in front, but the work is cut differently: one task
    replays every configuration on one trace (or on ``traces_per_task``
    consecutive traces), so that tasks are large enough for a cluster and
    all of them are in flight at once.

    Parameters
    ----------
    rules : mapping of str to Rule (or to a mapping of trace names to Rule)
        The configurations, by name, e.g. one rule per parameter value. A
        value may itself map trace names to rules, as ``replay``'s ``rule``.
    traces : mapping of str to array_like, or sequence of array_like
        Recorded measurements in collection order, as for :func:`replay`.
    starts : int, sequence of int, or mapping of str to sequence of int
        Start offsets of the tests, as for :func:`replay`.
    max_n : int or mapping of str to int, optional
        Most runs a test may use, as for :func:`replay`.
    workers : int, optional
        Local worker processes (default: the number of CPUs); ``1`` sweeps
        in this process.
    progress : bool, default True
        Show a tqdm progress bar counting tests (over all configurations).
    executor : concurrent.futures.Executor, optional
        Run the tasks on this executor (e.g. a Dask cluster's
        ``Client.get_executor()``) instead of local processes; see
        :func:`replay`. The executor is not shut down.
    traces_per_task : int, default 1
        Consecutive traces per task. The result does not depend on it.

    Returns
    -------
    pandas.DataFrame
        One row per (configuration, test), ordered by ``rules``, then
        ``traces``, then ``starts``: ``rule`` (the configuration's name) and
        the columns of :func:`replay`. Identical, bit for bit, whatever the
        executor, the number of workers or ``traces_per_task``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.replay import sweep
    >>> from perfstats.rules import CIWidth
    >>> rng = np.random.default_rng(0)
    >>> traces = {"a": rng.normal(100, 1, 200), "b": rng.normal(100, 5, 200)}
    >>> rules = {f"error={e}": CIWidth(error=e, interval=5, min_n=10) for e in (0.01, 0.05)}
    >>> sweep(rules, traces, workers=1, progress=False)[["rule", "trace", "stop_n", "stopped"]]
             rule trace  stop_n  stopped
    0  error=0.01     a      10     True
    1  error=0.01     b      95     True
    2  error=0.05     a      10     True
    3  error=0.05     b      10     True
    """
    if not isinstance(rules, Mapping) or not rules:
        raise ValueError(
            "rules must be a non-empty mapping of configuration names to rules; "
            f"got {type(rules).__name__ if not isinstance(rules, Mapping) else 'an empty mapping'}"
        )
    names = [str(k) for k in rules]
    if len(set(names)) != len(names):
        raise ValueError("rules has duplicate names once converted to strings")
    # One validation of the traces for all configurations: the same arrays
    # (not copies) go into every configuration's jobs, so a task pickles each
    # trace once however many configurations it carries.
    per_config = [_jobs(spec, traces, starts, max_n) for spec in rules.values()]
    first = per_config[0]
    jobs = [
        _Job(name=base.name, rule=job.rule, data=base.data, starts=base.starts, max_n=base.max_n)
        for config in per_config
        for base, job in zip(first, config, strict=True)
    ]
    per_task = check_int(traces_per_task, "traces_per_task")
    n_traces = len(first)
    tasks = [
        tuple(
            c * n_traces + t
            for t in range(i, min(i + per_task, n_traces))
            for c in range(len(names))
        )
        for i in range(0, n_traces, per_task)
    ]
    results = _execute(jobs, tasks, workers, progress, executor)
    rows = [(names[j // n_traces], *row) for j, result in enumerate(results) for row in result]
    return _frame(rows, ["rule", *COLUMNS])


def worker_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """Worker processes set up as :func:`replay`'s own, to share between many replays.

    Each :func:`replay` or :func:`sweep` without an ``executor`` starts its
    own workers and stops them at the end (tens of milliseconds each time).
    A script that replays rule after rule can start them once and pass this
    pool as ``executor``: forked where the platform allows it (they start at
    the first replay), never entering numba's thread pool. Their kernels
    load from numba's cache on first use. Shut the pool down when done
    (``with worker_pool() as pool: ...``).

    Parameters
    ----------
    workers : int, optional
        Worker processes (default: the number of CPUs).

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
        A pool of ``workers`` processes (one per CPU by default), started in
        :func:`replay`'s multiprocessing context with its worker initialiser
        (numba kept single-threaded), to pass as ``executor`` and shut down
        by the caller.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.replay import replay, worker_pool
    >>> from perfstats.rules import CIWidth, Fixed
    >>> rng = np.random.default_rng(0)
    >>> traces = {"a": rng.normal(100, 1, 200), "b": rng.normal(100, 30, 200)}
    >>> with worker_pool(2) as pool:
    ...     stops = [replay(rule, traces, progress=False, executor=pool)["stop_n"].tolist()
    ...              for rule in (CIWidth(error=0.01, interval=5, min_n=10), Fixed(n=50))]
    >>> stops
    [[10, 200], [50, 50]]
    """
    n_workers = (os.cpu_count() or 1) if workers is None else check_int(workers, "workers")
    return ProcessPoolExecutor(
        max_workers=n_workers, mp_context=_context(), initializer=_init_worker
    )


def _execute(
    jobs: list[_Job],
    tasks: list[tuple[int, ...]],
    workers: int | None,
    progress: bool,
    executor: Executor | None,
) -> list[list[tuple[Any, ...]]]:
    """Run ``tasks`` (groups of indices into ``jobs``); each job's rows, in ``jobs`` order."""
    n_workers = (os.cpu_count() or 1) if workers is None else check_int(workers, "workers")
    if executor is not None and not isinstance(executor, Executor):
        raise ValueError(
            f"executor must be a concurrent.futures.Executor, got {type(executor).__name__}"
        )
    bar = _progress_bar(sum(len(job.starts) for job in jobs), progress)
    results: dict[int, list[tuple[Any, ...]]] = {}
    try:
        if executor is not None:
            _run_on(executor, jobs, tasks, results, bar)
        elif n_workers == 1 or len(tasks) <= 1:
            for task in tasks:
                _collect(task, _run_task([jobs[j] for j in task]), results, bar)
        else:
            _warm_kernels(jobs)
            _run_parallel(jobs, tasks, min(n_workers, len(tasks)), results, bar)
    finally:
        bar.close()
    return [results[j] for j in range(len(jobs))]


def _frame(rows: list[tuple[Any, ...]], columns: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype({"start": "int64", "stop_n": "int64", "stopped": "bool", "checks": "int64"})


def judgement_grid(rule: Rule, available: int) -> range:
    """Sizes at which ``rule`` is consulted when ``available`` runs exist.

    Parameters
    ----------
    rule : Rule
        The stopping rule; its ``interval`` and ``min_n`` set the grid.
    available : int
        Runs available to the test: the trace's runs from its start offset,
        at most ``max_n``.

    Returns
    -------
    range
        Every multiple of ``rule.interval`` from the first at or above
        ``rule.min_n`` up to ``available`` inclusive; empty when
        ``available`` is below that first multiple.

    Examples
    --------
    >>> from perfstats.replay import judgement_grid
    >>> from perfstats.rules import Fixed
    >>> list(judgement_grid(Fixed(n=4), 10))
    [4, 8]
    """
    step = rule.interval
    first = -(-rule.min_n // step) * step
    return range(first, available + 1, step)


def replay_test(
    rule: Rule, data: Any, *, start: int = 0, max_n: int | None = None
) -> tuple[int, bool, int, str]:
    """Replay one test: ``(stop_n, stopped, checks, reason)``.

    Parameters
    ----------
    rule : Rule
        The stopping rule.
    data : array_like
        One trace, in collection order.
    start : int, default 0
        Offset of the test's first run in ``data``.
    max_n : int, optional
        Most runs the test may use (default: up to the end of ``data``).

    Returns
    -------
    tuple of (int, bool, int, str)
        Runs used, whether the rule stopped, judgements made, and the
        stopping decision's reason (or why the test ran out).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.replay import replay_test
    >>> from perfstats.rules import Fixed
    >>> replay_test(Fixed(n=4), np.arange(1.0, 11.0), start=3)
    (4, True, 1, '4 of 4 runs done')
    """
    x = as_sample(data, "data")
    start = check_int(start, "start", minimum=0, maximum=int(x.size) - 1)
    available = int(x.size) - start
    if max_n is not None:
        available = min(available, check_int(max_n, "max_n", minimum=1))
    last = "no judgement possible"
    checks = 0
    for n in judgement_grid(rule, available):
        decision = rule.check(x[start : start + n])
        checks += 1
        if decision.stop:
            return n, True, checks, decision.reason
        last = decision.reason
    return available, False, checks, f"ran out after {available} runs ({last})"


def _run_job(job: _Job) -> list[tuple[Any, ...]]:
    return [
        (job.name, s, *replay_test(job.rule, job.data, start=s, max_n=job.max_n))
        for s in job.starts
    ]


def _run_task(jobs: list[_Job]) -> list[list[tuple[Any, ...]]]:
    return [_run_job(job) for job in jobs]


def _run_task_single_threaded(jobs: list[_Job]) -> list[list[tuple[Any, ...]]]:
    # On an executor's worker, other workers fill the other cores: kernels
    # that spread over every core would only contend (two Dask workers were
    # slower than one: benchmarks/results/replay_dask.txt). Results do not
    # depend on threads.
    from .._kernels.threads import single_threaded

    with single_threaded():
        return _run_task(jobs)


# Distinct rules warmed before the workers start; a sweep of many
# configurations of one rule mostly shares their kernels.
WARM_RULES = 8


def _warm_kernels(jobs: list[_Job]) -> None:
    """Load the kernels the rules will call into this process before it forks.

    A forked worker inherits every kernel this process has loaded; any other
    it loads from numba's disk cache itself, each worker of every replay
    again (on protocol A, longer than the replay of SuperFlow 1 itself).
    A copy of each rule decides a few prefixes of its
    first trace here, on the judgement grid, so the rule itself is untouched.
    """
    if _context().get_start_method() != "fork":
        return
    seen: set[int] = set()
    for job in jobs:
        if id(job.rule) in seen or len(seen) >= WARM_RULES:
            continue
        seen.add(id(job.rule))
        available = int(job.data.size) - job.starts[0]
        if job.max_n is not None:
            available = min(available, job.max_n)
        grid = judgement_grid(job.rule, available)
        if not grid:
            continue
        rule = copy.deepcopy(job.rule)
        # Small and large prefixes: engines are picked by sample size.
        for n in sorted({grid[0], grid[len(grid) // 2], grid[-1]}):
            rule.check(job.data[job.starts[0] : job.starts[0] + n])


def _init_worker() -> None:
    # One process per core already uses every core; and a worker forked from
    # a process whose numba thread pool runs must not touch that pool.
    from .._kernels.threads import allow_threads

    allow_threads(False)


def _run_parallel(
    jobs: list[_Job],
    tasks: list[tuple[int, ...]],
    n_workers: int,
    results: dict[int, list[tuple[Any, ...]]],
    bar: Any,
) -> None:
    with worker_pool(n_workers) as pool:
        _run_on(pool, jobs, tasks, results, bar)


def _run_on(
    executor: Executor,
    jobs: list[_Job],
    tasks: list[tuple[int, ...]],
    results: dict[int, list[tuple[Any, ...]]],
    bar: Any,
) -> None:
    # Largest tasks first, so that no worker is left with one long task at
    # the end; the caller puts results back in input order.
    order = sorted(tasks, key=lambda task: -sum(_work(jobs[j]) for j in task))
    futures: dict[Future[list[list[tuple[Any, ...]]]], tuple[int, ...]] = {
        executor.submit(_run_task_single_threaded, [jobs[j] for j in task]): task for task in order
    }
    for future in as_completed(futures):
        _collect(futures[future], future.result(), results, bar)


def _collect(
    task: tuple[int, ...],
    rows: list[list[tuple[Any, ...]]],
    results: dict[int, list[tuple[Any, ...]]],
    bar: Any,
) -> None:
    for j, job_rows in zip(task, rows, strict=True):
        results[j] = job_rows
        bar.update(len(job_rows))


def _context() -> BaseContext:
    # A forked worker inherits the compiled kernels and starts in a fraction
    # of a second; a spawned one re-imports numba and loads every kernel from
    # the cache (seconds each), which would dominate a replay of a few
    # seconds. Fork is safe on Linux only (macOS system libraries are not
    # fork-safe, Windows has no fork); elsewhere workers are spawned. Forked
    # workers never enter numba's thread pool (see _init_worker).
    linux = sys.platform.startswith("linux")
    return get_context("fork" if linux and "fork" in get_all_start_methods() else "spawn")


def _work(job: _Job) -> int:
    return len(job.starts) * (job.max_n or int(job.data.size))


def _progress_bar(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not enabled, unit="test", desc="replay")


def _jobs(
    rule: RuleSpec,
    traces: Mapping[str, Any] | Sequence[Any],
    starts: StartSpec,
    max_n: LimitSpec,
) -> list[_Job]:
    named = _named(traces)
    jobs = []
    for name, raw in named:
        data = as_sample(raw, f"traces[{name!r}]")
        jobs.append(
            _Job(
                name=name,
                rule=_pick(rule, name, "rule"),
                data=data,
                starts=_starts_for(starts, name, int(data.size)),
                max_n=_limit_for(max_n, name),
            )
        )
    for job in jobs:
        if not isinstance(job.rule, Rule):
            raise ValueError(
                f"rule must be a perfstats.rules.Rule or a mapping of trace names to rules; "
                f"got {type(job.rule).__name__} for trace {job.name!r}"
            )
    return jobs


def _named(traces: Mapping[str, Any] | Sequence[Any]) -> list[tuple[str, Any]]:
    return list(named_traces(traces).items())


def _pick(spec: Any, name: str, what: str) -> Any:
    if isinstance(spec, Mapping):
        if name not in spec:
            raise ValueError(f"{what} has no entry for trace {name!r}")
        return spec[name]
    return spec


def _starts_for(spec: StartSpec, name: str, size: int) -> tuple[int, ...]:
    chosen = _pick(spec, name, "starts")
    if isinstance(chosen, (int, np.integer)) and not isinstance(chosen, bool):
        values = [int(chosen)]
    else:
        values = [check_int(s, "starts", minimum=0) for s in chosen]
    for s in values:
        if not 0 <= s < size:
            raise ValueError(f"starts must be in [0, {size}) for trace {name!r}; got {s}")
    return tuple(values)


def _limit_for(spec: LimitSpec, name: str) -> int | None:
    chosen = _pick(spec, name, "max_n")
    return None if chosen is None else check_int(chosen, "max_n", minimum=1)
