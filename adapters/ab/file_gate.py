"""The regression gate on files: a baseline and a contender read, then :func:`perfstats.gate`.

Each side is whatever :func:`~perfstats.adapters.ab.inputs.read_results`
reads (a record, a directory of records, a tidy CSV, another tool's
results); benchmarks are matched by name and those on one side only are
listed in the result. Per-benchmark thresholds come from a config file.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from perfstats import GateResult, gate, parse_threshold

from ..records.redaction import redact_text, remember_environment
from .config import load_config
from .inputs import read_results

__all__ = ["gate_files", "parse_statistic", "read_overrides", "redacted"]

_PERCENTILE = re.compile(r"^[pP](\d+(?:\.\d*)?)$")


def parse_statistic(text: str | float) -> str | float:
    """A statistic as the gate takes it: ``"median"``, ``"mean"``, ``"p90"`` or ``"0.9"``.

    Examples
    --------
    >>> from perfstats.adapters.ab.file_gate import parse_statistic
    >>> parse_statistic("median"), parse_statistic("p90"), parse_statistic("0.99")
    ('median', 0.9, 0.99)
    """
    if not isinstance(text, str):
        return text
    word = text.strip().lower()
    if word in ("median", "mean"):
        return word
    match = _PERCENTILE.match(word)
    try:
        q = float(match.group(1)) / 100.0 if match else float(word)
    except ValueError:
        q = -1.0
    if not 0.0 <= q <= 1.0:
        raise ValueError(
            f"statistic must be median, mean, a percentile such as p90 or a quantile such as "
            f"0.9; got {text!r}"
        )
    return q


def read_overrides(path: str | os.PathLike[str]) -> dict[str, float]:
    """Per-benchmark thresholds from a TOML (or YAML) config file.

    The file holds one table, ``thresholds``, mapping benchmark names or
    glob patterns to thresholds (``"5%"`` or ``0.05``); an exact name wins
    over a pattern, then the first pattern that matches::

        [thresholds]
        "io_*" = "5%"
        parse_large = 0.03

    Raises
    ------
    ValueError
        When the file does not parse, holds another key, or a threshold is
        not one.
    """
    data = load_config(path)
    extra = sorted(set(data) - {"thresholds"})
    if extra:
        raise ValueError(f"config {os.fspath(path)}: unknown key {extra[0]!r}; allowed: thresholds")
    table = data.get("thresholds", {})
    if not isinstance(table, Mapping):
        raise ValueError(
            f"config {os.fspath(path)}: thresholds must be a table of name = threshold"
        )
    return {
        str(name): parse_threshold(value, f"thresholds[{name!r}] in {os.fspath(path)}")
        for name, value in table.items()
    }


def gate_files(
    baseline: str | os.PathLike[str],
    contender: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | None = None,
    names: str = "target",
    statistic: str | float = "median",
    higher_is_better: Sequence[str] = (),
    metric: str = "auto",
    **options: Any,
) -> GateResult:
    """The regression gate on a baseline and a contender read from files.

    Parameters
    ----------
    baseline, contender : str or path-like
        A perfstats record, a directory of records, a tidy CSV
        (``benchmark``, ``value``, optional ``unit``) or a results file of
        another tool (see :func:`~perfstats.adapters.ab.inputs.read_results`).
    config : str or path-like, optional
        A TOML or YAML file with per-benchmark thresholds
        (:func:`read_overrides`); they add to ``overrides`` in ``options``.
    names : {"target", "file"}, default "target"
        Name a record's benchmark by its target or by its file's stem.
    statistic : str or float, default "median"
        ``"median"``, ``"mean"``, ``"p90"`` or a quantile such as ``0.9``.
    higher_is_better : sequence of str, default ()
        Names or glob patterns of benchmarks whose higher values are better,
        whatever their files say (the files' own direction otherwise: a
        JMH throughput, a Go ``MB/s``, a CSV's ``direction`` column).
    metric : str, default "auto"
        Which values of a record with named series to judge (see
        :func:`~perfstats.adapters.ab.inputs.read_results`): each judged
        series as a benchmark, ``"value"`` the primary, or one series.
    **options
        Passed to :func:`perfstats.gate` (``threshold``, ``fdr``, ``level``,
        ``paired``, ``n_resamples``, ``rng``, ``min_equivalent_runs``,
        ``overrides``).

    Returns
    -------
    GateResult
        Benchmarks present on one side only are in ``unmatched_baseline`` and
        ``unmatched_contender``. Each benchmark is judged in the direction
        its files give (a throughput: higher is better) and carries its
        failed runs, both sides together, in ``n_failed``. A benchmark with
        no successful run on a side (every run failed) has the verdict
        ``"error"``, its reason naming the side and the file, and the
        result's exit code is 2.

    Raises
    ------
    ValueError
        On unreadable input, and on whatever :func:`perfstats.gate` refuses
        (fewer than 2 runs, NaN, units that differ between the sides, no
        benchmark in common, ...), and on a benchmark whose two sides
        disagree on which values are better.

    Examples
    --------
    >>> from perfstats.adapters import gate_files
    >>> result = gate_files("base/", "cont/", threshold="2%", rng=0)  # doctest: +SKIP
    >>> result.exit_code(), result.counts  # doctest: +SKIP
    (0, {'regression': 0, 'improvement': 0, 'equivalent': 3, 'inconclusive': 1})
    """
    overrides = dict(options.pop("overrides", None) or {})
    if config is not None:
        overrides.update(read_overrides(config))
    base_all = read_results(baseline, names=names, keep_unrun=True, metric=metric)
    cont_all = read_results(contender, names=names, keep_unrun=True, metric=metric)
    base, cont = base_all[~_unrun(base_all)], cont_all[~_unrun(cont_all)]
    errors: dict[str, str] = {}
    for side, frame in (("baseline", base_all), ("contender", cont_all)):
        for row in frame[_unrun(frame)].itertuples():
            said = f"no successful run in the {side} ({row.failed} failed, in {row.file})"
            name = str(row.benchmark)
            errors[name] = f"{errors[name]}; {said}" if name in errors else said
    directions = _directions(base, cont)
    if isinstance(higher_is_better, str):
        higher_is_better = [higher_is_better]
    for name in directions:
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in higher_is_better):
            directions[name] = "higher"
    result = gate(
        _for_gate(base),
        _for_gate(cont),
        statistic=parse_statistic(statistic),
        overrides=overrides or None,
        directions=directions,
        errors=errors or None,
        **options,
    )
    failed = {**_failed(base_all)}
    for name, count in _failed(cont_all).items():
        failed[name] = failed.get(name, 0) + count
    return dataclasses.replace(
        result,
        benchmarks=tuple(
            dataclasses.replace(b, n_failed=failed.get(b.name, 0)) for b in result.benchmarks
        ),
    )


def _directions(base: Any, cont: Any) -> dict[str, str]:
    """Which values are better, by benchmark; refused when the two sides disagree."""
    found: dict[str, dict[str, str]] = {"baseline": {}, "contender": {}}
    for side, frame in (("baseline", base), ("contender", cont)):
        for name, rows in frame.groupby("benchmark", sort=False):
            ways = sorted(set(rows["direction"]))
            if len(ways) > 1:
                raise ValueError(
                    f"{side} benchmark {name!r} mixes values where {ways[0]} is better and "
                    f"values where {ways[1]} is better"
                )
            found[side][str(name)] = ways[0]
    for name, way in found["baseline"].items():
        other = found["contender"].get(name, way)
        if other != way:
            raise ValueError(
                f"benchmark {name!r}: {way} is better in the baseline but {other} in the "
                "contender (a time on one side, a throughput on the other?)"
            )
    return {**found["contender"], **found["baseline"]}


def _unrun(frame: Any) -> Any:
    # read_results(keep_unrun=True) marks a benchmark whose every run failed
    # by a row without a value and with its failed count; a NaN in a CSV
    # (no failed run) stays a value, which the gate refuses.
    return frame["value"].isna() & (frame["failed"] > 0)


def _failed(frame: Any) -> dict[str, int]:
    # Each row repeats its file's count for the benchmark; a benchmark comes
    # from one file a side.
    counts = frame.groupby("benchmark", sort=False)["failed"].max()
    return {str(k): int(v) for k, v in counts.items()}


def _for_gate(frame: Any) -> Any:
    # The gate's own check then says "mixes units" for a benchmark whose
    # files disagree; a benchmark without a unit is compared as unitless.
    return frame[["benchmark", "value", "unit"]]


def redacted(result: GateResult) -> GateResult:
    """``result`` with the secrets in its names, units and reasons redacted.

    Every output of the gate (the table, Markdown, JSON and JUnit XML) is
    rendered from the redacted result, so they all hide the same things,
    and each renderer escapes ``<redacted>`` for its own format (redacting
    the rendered XML or JSON text instead would break it). The values in
    the environment's secret-looking variables are redacted too.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import gate
    >>> from perfstats.adapters.ab.file_gate import redacted
    >>> x = np.linspace(1.0, 1.1, 10)
    >>> [b.name for b in redacted(gate({"API_TOKEN=abc": x}, {"API_TOKEN=abc": x})).benchmarks]
    ['API_TOKEN=<redacted>']
    """
    remember_environment()
    return dataclasses.replace(
        result,
        benchmarks=tuple(
            dataclasses.replace(
                b,
                name=redact_text(b.name),
                unit=None if b.unit is None else redact_text(b.unit),
                reason=redact_text(b.reason),
            )
            for b in result.benchmarks
        ),
        unmatched_baseline=tuple(redact_text(n) for n in result.unmatched_baseline),
        unmatched_contender=tuple(redact_text(n) for n in result.unmatched_contender),
    )
