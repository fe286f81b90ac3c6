"""The verdicts of a recorded suite run: its record judged with its suite's settings, one row each.

One copy for every place that shows verdicts: ``perfstats ab`` prints
:func:`verdict_rows` as a text table and the HTML report
(:mod:`perfstats.adapters.report.ab_sections`) as an HTML one, both from the
analysis :func:`analyse_record` makes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .analysis import SuiteAnalysis, analyse, analysis_settings
from .persistence import read_ab_metadata, read_ab_record

# The columns of :func:`verdict_rows`, and their headers when shown.
VERDICT_COLUMNS = (
    ("benchmark", "benchmark"),
    ("results", "results"),
    ("failed", "failed"),
    ("change", "median change"),
    ("ci", "CI"),
    ("ranksum", "rank-sum p"),
    ("cliffs", "Cliff's delta"),
    ("liao", "Liao et al."),
    ("verdict", "verdict"),
)


def analyse_record(
    path: str | os.PathLike[str], *, level: float | None = None, rng: Any = None
) -> tuple[pd.DataFrame, dict[str, Any], SuiteAnalysis]:
    """Read an A-B record and judge it with the settings of its suite.

    Without suite metadata the record is judged unpaired with the defaults
    of :func:`~perfstats.adapters.ab.analysis.analyse`.

    Parameters
    ----------
    path : path
        The record CSV (its metadata beside it).
    level : float, optional
        Level of the change CI instead of the suite's.
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap instead of the recorded one.

    Returns
    -------
    tuple
        The measurements, the metadata and the analysis.

    Examples
    --------
    >>> from perfstats.adapters.ab.verdicts import analyse_record
    >>> analyse_record("no-such-suite.csv")
    Traceback (most recent call last):
    ...
    ValueError: record no-such-suite.csv does not exist
    """
    measurements = read_ab_record(path)
    metadata = read_ab_metadata(path)
    suite = metadata.get("suite")
    settings: Mapping[str, Any] = suite if isinstance(suite, Mapping) else {}
    names = [
        str(b["name"])
        for b in settings.get("benchmarks", [])
        if isinstance(b, Mapping) and "name" in b
    ]
    options = analysis_settings(settings)
    if level is not None:
        options["level"] = level
    analysis = analyse(
        measurements,
        **options,
        benchmarks=names or None,
        rng=metadata.get("seed") if rng is None else rng,
    )
    return measurements, metadata, analysis


def verdict_rows(analysis: SuiteAnalysis) -> list[dict[str, Any]]:
    """One display row per benchmark: verdict, counts, change and CI, Liao's evidence.

    ``results`` is ``"baseline / candidate"`` successful results, or the
    number of pairs when the analysis pairs them; the row's ``_class`` is the
    verdict when it is a change (for styling).

    Examples
    --------
    Twelve duet calls in which the candidate always takes 1.5 ms, the
    baseline 1 ms:

    >>> from perfstats.adapters.ab import AB, analyse, duet_plan, rows_of
    >>> from perfstats.adapters.records import Measurement, frame, utc_now
    >>> def timed(version):
    ...     return Measurement(1.5 if version == "candidate" else 1.0, "ms", None, utc_now())
    >>> plan = duet_plan(["k"], calls=12, repeats=1, rng=0)
    >>> rows = [r for c in plan for r in rows_of(c, [timed(e.version) for e in c.executions])]
    >>> row = verdict_rows(analyse(frame(rows, AB), paired=True, rng=0))[0]
    >>> row["verdict"], row["results"], row["ci"], row["cliffs"]
    ('slower', '12', '[+50.00%, +50.00%]', '+1.000 (large)')
    """
    rows = []
    for v in analysis.verdicts:
        c, r, d = v.change, v.ranksum, v.cliffs
        paired = analysis.paired or analysis.by_trial
        rows.append(
            {
                "benchmark": v.benchmark,
                "verdict": v.verdict,
                "results": str(v.n_baseline) if paired else f"{v.n_baseline} / {v.n_candidate}",
                "change": signed_percent(c.estimate) if c else "",
                "ci": f"[{signed_percent(c.low)}, {signed_percent(c.high)}]" if c else "",
                "ranksum": f"{r.pvalue:.3g}" if r else "",
                "cliffs": f"{d.delta:+.3f} ({d.magnitude})" if d else "",
                "liao": "" if v.liao_changed is None else
                        ("changed" if v.liao_changed else "no change"),
                "failed": v.failed,
                "_class": v.verdict if v.verdict in ("slower", "faster") else "",
            }
        )  # fmt: skip
    return rows


def signed_percent(x: float) -> str:
    """A relative change as a signed percentage (``+1.25%``); infinities as they are.

    Examples
    --------
    >>> signed_percent(0.0125), signed_percent(-0.5), signed_percent(float("inf"))
    ('+1.25%', '-50.00%', 'inf')
    """
    return f"{100 * x:+.2f}%" if math.isfinite(x) else str(x)
