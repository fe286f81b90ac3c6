"""The A-B part of the HTML report: a suite run's record judged as ``perfstats ab`` judges it.

An A-B record is the CSV that ``perfstats ab --record`` writes
(:mod:`perfstats.adapters.ab.persistence`), one row per execution, with the
columns ``call, trial, slot, benchmark, version, repeat, order, value, unit,
started_at, status, error, extra``; ``version`` is ``"baseline"`` or
``"candidate"``. Its metadata JSON (``suite.csv`` -> ``suite.csv.meta.json``)
holds the suite: schedule (``"duet"`` pairs the two versions' executions of
the same call and repeat), level, minimum results, resamples, grouping and
the seed. The verdicts are :func:`perfstats.adapters.ab.analysis.analyse`'s
with those settings, so the page shows what ``perfstats ab --from-record``
prints.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from perfstats import plots
from perfstats.planning.faas_cost import FaasPrices

from ..ab.analysis import SuiteAnalysis
from ..ab.persistence import COLUMNS
from ..ab.verdicts import VERDICT_COLUMNS, analyse_record, verdict_rows
from .billing import cost_text, run_cost
from .images import figure_html
from .run_sections import failures_section
from .tables import definitions_html, paragraph_html, section_html, table_html


def is_ab_header(columns: Sequence[str]) -> bool:
    """True when a CSV header is that of an A-B record.

    Examples
    --------
    >>> from perfstats.adapters.ab.persistence import COLUMNS
    >>> from perfstats.adapters.report.ab_sections import is_ab_header
    >>> is_ab_header(list(COLUMNS)), is_ab_header(["benchmark", "value"])
    (True, False)
    """
    return tuple(columns) == COLUMNS


def suite_items(
    path: Path,
    measurements: pd.DataFrame,
    metadata: Mapping[str, Any],
    analysis: SuiteAnalysis,
    prices: FaasPrices | None = None,
) -> list[tuple[str, Any]]:
    """``(term, value)`` pairs describing the suite run, for the page's header."""
    suite = metadata.get("suite") if isinstance(metadata.get("suite"), Mapping) else None
    target = (suite or {}).get("target") or {}
    counts = measurements["status"].value_counts()
    ok = int(counts.get("ok", 0))
    judged = analysis.counts()
    return [
        ("record", os.fspath(path)),
        (
            "schedule",
            f"{suite.get('schedule')}, {suite.get('calls')} calls x {suite.get('repeats')} "
            f"repeats, {suite.get('concurrency')} in flight"
            if suite
            else "no suite metadata: judged unpaired with default settings",
        ),
        ("target", f"{target.get('name', '?')} ({target.get('kind', '?')})" if target else None),
        ("seed", metadata.get("seed")),
        (
            "executions",
            f"{len(measurements)} ({ok} ok, {len(measurements) - ok} failed or timed out)",
        ),
        ("time", f"{metadata.get('started_at')} .. {metadata.get('ended_at')}" if suite else None),
        ("cost", cost_text(run_cost(measurements, target, prices=prices), target)),
        (
            "analysis",
            f"{analysis.pairing}, {analysis.level:.0%} CI of the "
            f"relative median change; fewer than {analysis.min_results} results: not judged",
        ),
        ("verdicts", ", ".join(f"{n} {name}" for name, n in judged.items())),
    ]


def ab_sections(record: Path, *, prices: FaasPrices | None = None) -> list[str]:
    """The page sections of an A-B record: the suite run, the verdicts, the failures."""
    measurements, metadata, analysis = analyse_record(record)
    headers = dict(VERDICT_COLUMNS, ci=f"{analysis.level:.0%} CI")
    if not (analysis.paired or analysis.by_trial):
        headers["results"] = "results baseline / candidate"
    columns = list(headers.items())
    explain = (
        "Bootstrap CI of the relative change of the median, candidate / baseline - 1 "
        "(perfstats.relative_change); 'slower' or 'faster' when the CI excludes 0 "
        "(ElastiBench). Liao et al.'s rank-sum test and Cliff's delta are shown beside it."
    )
    parts = [paragraph_html(explain), table_html(verdict_rows(analysis), columns,
                                                          name="verdicts")]  # fmt: skip
    changes = analysis.changes()
    if changes:
        fig = plots.change_table(changes)
        caption = "Each judged benchmark's change with its CI, coloured by verdict."
        parts.append(figure_html(fig, name="change-table", caption=caption))
    return [
        section_html("metadata", "Suite run", definitions_html(suite_items(record, measurements,
                                                               metadata, analysis, prices))),
        section_html("verdicts", "Verdicts", *parts),
        failures_section(measurements),
    ]  # fmt: skip


__all__ = ["ab_sections", "is_ab_header", "suite_items"]
