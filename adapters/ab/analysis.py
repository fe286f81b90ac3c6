"""Judge every benchmark of an A-B suite run, and compare two runs' verdicts.

Per benchmark (ElastiBench, Schirmer et al. 2024, Section VI-A, and Liao et al. 2025):

* the 99% bootstrap CI of the relative change of the median,
  :func:`perfstats.relative_change`, resampled by call first when
  ``grouped``; for duet runs it is paired (a pair is the baseline and
  candidate execution of the same repeat in the same call) and by default
  the median of the per-pair ratios, so that each pair's shared instance
  state cancels before the pairs are pooled; for RMIT runs with
  ``by_trial`` (the suites' default) the trial is the block: the baseline
  and candidate executions of the same trial and repeat form a pair, read
  the same way and resampled by trial;
* the verdict read off that CI: ``"slower"`` (above 0), ``"faster"`` (below
  0) or ``"no change"``; a benchmark with fewer than ``min_results``
  successful results (pairs, for duet) is ``"too few results"`` and is not
  judged, as ElastiBench drops results with fewer than 10 measurements;
* Liao et al.'s evidence beside it: the Wilcoxon rank-sum test and Cliff's
  delta of candidate against baseline.

:func:`suite_agreement` compares two runs of a suite with ElastiBench's
agreement, one-sided and two-sided coverage (:func:`perfstats.change_agreement`).

References
----------
.. [Liao2025] Liao et al., "Early Detection of Performance Regressions by Bridging Local
   Performance Data and Architectural Models", ICSE 2025; see the References of
   :mod:`perfstats.system.propagation`.
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfstats.comparison.change import (
    ChangeAgreement,
    RelativeChange,
    change_agreement,
    relative_change,
)
from perfstats.comparison.effects import CliffsDelta, RankTest, cliffs_delta, wilcoxon_ranksum

from ..records.measurement import OK
from .interleaving import BASELINE, CANDIDATE, DUET

SLOWER = "slower"
FASTER = "faster"
NO_CHANGE = "no change"
TOO_FEW = "too few results"
VERDICTS = (SLOWER, FASTER, NO_CHANGE, TOO_FEW)
# Liao et al. (2025): a change needs rank-sum p < 0.05 and a non-negligible delta.
LIAO_ALPHA = 0.05


@dataclass(frozen=True)
class BenchmarkVerdict:
    """What a suite run says about one benchmark.

    Parameters
    ----------
    benchmark : str
        Name of the benchmark.
    verdict : {"slower", "faster", "no change", "too few results"}
        Where the CI of the relative median change lies: above 0
        (``"slower"``), below 0 (``"faster"``) or around it (``"no change"``);
        ``"too few results"`` when fewer than the analysis' ``min_results``
        successful results left the benchmark unjudged.
    n_baseline, n_candidate : int
        Successful results used (for duet, both are the number of pairs).
    failed : int
        Executions of this benchmark that failed or timed out.
    change : RelativeChange or None
        The bootstrap CI of the relative median change; None when not judged.
    ranksum : RankTest or None
        Wilcoxon rank-sum test of candidate against baseline.
    cliffs : CliffsDelta or None
        Cliff's delta of candidate against baseline (positive: slower).

    Examples
    --------
    >>> from perfstats.adapters.ab.analysis import BenchmarkVerdict
    >>> BenchmarkVerdict("sort", "too few results", 4, 4, 41, None, None, None).judged
    False
    """

    benchmark: str
    verdict: str
    n_baseline: int
    n_candidate: int
    failed: int
    change: RelativeChange | None
    ranksum: RankTest | None
    cliffs: CliffsDelta | None

    @property
    def judged(self) -> bool:
        """True when there were enough results to judge."""
        return self.change is not None

    @property
    def liao_changed(self) -> bool | None:
        """Liao et al.'s verdict (rank-sum p < 0.05, Cliff's delta not negligible)."""
        if self.ranksum is None or self.cliffs is None:
            return None
        return bool(self.ranksum.pvalue < LIAO_ALPHA and not self.cliffs.negligible)

    def to_dict(self) -> dict[str, Any]:
        """One flat row: verdict, estimate and CI, test, effect size."""
        c, r, d = self.change, self.ranksum, self.cliffs
        nan = math.nan
        return {
            "benchmark": self.benchmark,
            "verdict": self.verdict,
            "n_baseline": self.n_baseline,
            "n_candidate": self.n_candidate,
            "failed": self.failed,
            "estimate": c.estimate if c else nan,
            "low": c.low if c else nan,
            "high": c.high if c else nan,
            "level": c.level if c else nan,
            "ranksum_p": r.pvalue if r else nan,
            "cliffs_delta": d.delta if d else nan,
            "magnitude": d.magnitude if d else "",
            "liao_changed": self.liao_changed,
        }


@dataclass(frozen=True)
class SuiteAnalysis:
    """The verdicts of one suite run, in benchmark order.

    Parameters
    ----------
    verdicts : tuple of BenchmarkVerdict
        One verdict per benchmark, in the order :func:`analyse` judged them.
    paired : bool
        True when the run was a duet and its results were paired by call
        and repeat.
    level : float
        Level of the bootstrap CIs (e.g. 0.99).
    min_results : int
        Fewest successful results (pairs, when paired) a benchmark needed to
        be judged rather than ``"too few results"``.
    by_trial : bool, default False
        True when an RMIT run's results were paired by trial and repeat and
        resampled by trial (never together with ``paired``).

    Examples
    --------
    >>> from perfstats.adapters.ab.analysis import BenchmarkVerdict, SuiteAnalysis
    >>> a = SuiteAnalysis((BenchmarkVerdict("x", "too few results", 2, 2, 0, None, None,
    ...                                      None),), paired=True, level=0.99, min_results=10)
    >>> a.counts(), a.pairing
    ({'slower': 0, 'faster': 0, 'no change': 0, 'too few results': 1}, 'paired by call (duet)')
    """

    verdicts: tuple[BenchmarkVerdict, ...]
    paired: bool
    level: float
    min_results: int
    by_trial: bool = False

    @property
    def pairing(self) -> str:
        """How baseline and candidate results were matched, in words."""
        if self.paired:
            return "paired by call (duet)"
        if self.by_trial:
            return "paired by trial (RMIT blocks)"
        return "unpaired"

    def verdict(self, benchmark: str) -> BenchmarkVerdict:
        """The verdict of ``benchmark``.

        Parameters
        ----------
        benchmark : str
            Name of the benchmark.

        Returns
        -------
        BenchmarkVerdict
            What the run says about it, also when it was not judged
            (``"too few results"``).

        Raises
        ------
        ValueError
            When the analysis has no benchmark of that name.
        """
        for v in self.verdicts:
            if v.benchmark == benchmark:
                return v
        raise ValueError(f"no benchmark {benchmark!r} in the analysis")

    def changes(self) -> dict[str, RelativeChange]:
        """The relative changes of the judged benchmarks, by name.

        Returns
        -------
        dict of str to RelativeChange
            The bootstrap CI of each judged benchmark's relative median
            change, in benchmark order; benchmarks with ``"too few results"``
            are left out, so it is empty when none was judged.
        """
        return {v.benchmark: v.change for v in self.verdicts if v.change is not None}

    def counts(self) -> dict[str, int]:
        """How many benchmarks got each verdict.

        Returns
        -------
        dict of str to int
            Every verdict, ``"slower"``, ``"faster"``, ``"no change"`` and
            ``"too few results"`` in this order, with its number of
            benchmarks (0 included).
        """
        return {name: sum(v.verdict == name for v in self.verdicts) for name in VERDICTS}

    def to_frame(self) -> pd.DataFrame:
        """One row per benchmark (see :meth:`BenchmarkVerdict.to_dict`).

        Returns
        -------
        pandas.DataFrame
            The columns of :meth:`BenchmarkVerdict.to_dict`, one row per
            benchmark in benchmark order; a benchmark not judged has NaN for
            the estimate, CI, level, p-value and Cliff's delta, an empty
            ``magnitude`` and ``liao_changed`` None. With no benchmark, the
            frame has neither rows nor columns.
        """
        return pd.DataFrame([v.to_dict() for v in self.verdicts])


def _verdict(change: RelativeChange) -> str:
    return {"slower": SLOWER, "faster": FASTER}.get(change.direction, NO_CHANGE)


def _samples(
    rows: pd.DataFrame, paired: bool, by_trial: bool
) -> tuple[np.ndarray, np.ndarray, Any]:
    """Baseline and candidate values of one benchmark, with their call (or trial) labels."""
    ok = rows[rows["status"] == OK]
    if paired or by_trial:
        block = "call" if paired else "trial"
        if block not in ok.columns:
            raise ValueError(f"pairing by {block} needs a {block!r} column in the record")
        wide = ok.pivot_table(
            index=[block, "repeat"], columns="version", values="value", aggfunc="first"
        )
        for version in (BASELINE, CANDIDATE):
            if version not in wide.columns:
                wide[version] = np.nan
        # A pair whose partner failed is no pair: both halves are left out.
        wide = wide.dropna(subset=[BASELINE, CANDIDATE]).sort_index()
        labels = wide.index.get_level_values(block).to_numpy()
        return wide[BASELINE].to_numpy(), wide[CANDIDATE].to_numpy(), labels
    ordered = ok.sort_values(["call", "order"])
    base = ordered[ordered["version"] == BASELINE]
    cand = ordered[ordered["version"] == CANDIDATE]
    groups = (base["call"].to_numpy(), cand["call"].to_numpy())
    return base["value"].to_numpy(), cand["value"].to_numpy(), groups


def _judge(
    name: str,
    rows: pd.DataFrame,
    *,
    paired: bool,
    by_trial: bool,
    level: float,
    min_results: int,
    n_resamples: int,
    grouped: bool,
    per_pair: bool,
    rng: np.random.Generator,
) -> BenchmarkVerdict:
    failed = int((rows["status"] != OK).sum())
    base, cand, groups = _samples(rows, paired, by_trial)
    matched = paired or by_trial
    if min(base.size, cand.size) < min_results:
        return BenchmarkVerdict(name, TOO_FEW, base.size, cand.size, failed, None, None, None)
    try:
        change = relative_change(
            base,
            cand,
            level=level,
            paired=matched,
            groups=groups if grouped else None,
            per_pair=bool(matched and per_pair),
            n_resamples=n_resamples,
            rng=rng,
        )
        ranksum = wilcoxon_ranksum(cand, base)
        cliffs = cliffs_delta(cand, base)
    except ValueError as exc:
        raise ValueError(f"benchmark {name!r}: {exc}") from None
    return BenchmarkVerdict(
        name, _verdict(change), base.size, cand.size, failed, change, ranksum, cliffs
    )


def analyse(
    measurements: pd.DataFrame,
    *,
    paired: bool,
    by_trial: bool = False,
    level: float = 0.99,
    min_results: int = 10,
    n_resamples: int = 10000,
    grouped: bool = True,
    per_pair: bool = True,
    benchmarks: Sequence[str] | None = None,
    rng: Any = None,
) -> SuiteAnalysis:
    """Judge every benchmark of a suite run's record.

    Parameters
    ----------
    measurements : pandas.DataFrame
        The record (:func:`~perfstats.adapters.ab.persistence.read_ab_record`,
        or :attr:`SuiteRun.measurements`): one row per execution.
    paired : bool
        True for a duet run: pairs are the baseline and candidate executions
        of the same call and repeat, and :func:`perfstats.relative_change`
        resamples them jointly.
    by_trial : bool, default False
        For an RMIT run (``paired=False``): pair the baseline and candidate
        executions of the same trial and repeat, and resample trials. An
        RMIT trial runs every version within a short time, so it is a block
        in the sense of a randomized complete block design (Abedi & Brecht
        2017): the machine's state of the moment, shared by the pair,
        cancels in its ratio. Left False, RMIT results are compared as two
        independent samples resampled by call, as ElastiBench compares its
        VM runs. :class:`~perfstats.adapters.ab.suite.Suite` turns it on.
    level : float, default 0.99
        Level of the CI (ElastiBench).
    min_results : int, default 10
        Fewer successful results (pairs) than this: ``"too few results"``.
    n_resamples : int, default 10000
        Bootstrap resamples.
    grouped : bool, default True
        Resample calls, then results within them (two-level bootstrap).
    per_pair : bool, default True
        For a duet run (or ``by_trial``), the change is the median of the per-pair ratios
        candidate / baseline (``relative_change(..., per_pair=True)``):
        each ratio cancels the state its two executions shared, which the
        ratio of the two versions' medians does not when that state jumps
        between calls. False compares the medians of the two versions over
        jointly resampled pairs. Ignored for unpaired runs.
    benchmarks : sequence of str, optional
        Order of the verdicts (and benchmarks with no row at all, which are
        then ``"too few results"``); default: sorted names in the record.
    rng : None, int or numpy.random.Generator
        Seed of the bootstraps.

    Returns
    -------
    SuiteAnalysis
        The verdict of every benchmark (in the order of ``benchmarks``), with
        the pairing, level and ``min_results`` they were reached with.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from perfstats.adapters.ab.analysis import analyse
    >>> rng = np.random.default_rng(0)
    >>> base = rng.lognormal(0, 0.02, 45)
    >>> cand = base * 1.1 * rng.lognormal(0, 0.01, 45)
    >>> rows = pd.DataFrame({
    ...     "call": np.repeat(np.arange(1, 16), 3).tolist() * 2,
    ...     "repeat": [1, 2, 3] * 30, "order": [1] * 90, "benchmark": "k",
    ...     "version": ["baseline"] * 45 + ["candidate"] * 45,
    ...     "value": np.concatenate([base, cand]), "status": "ok"})
    >>> v = analyse(rows, paired=True, rng=1).verdict("k")
    >>> v.verdict, v.change.contains(0.10), v.liao_changed
    ('slower', True, True)
    """
    gen = np.random.default_rng(rng)
    names = list(benchmarks) if benchmarks is not None else sorted(set(measurements["benchmark"]))
    verdicts = []
    for name in names:
        rows = measurements[measurements["benchmark"] == name]
        verdicts.append(
            _judge(
                name,
                rows,
                paired=paired,
                by_trial=by_trial,
                level=level,
                min_results=min_results,
                n_resamples=n_resamples,
                grouped=grouped,
                per_pair=per_pair,
                rng=gen,
            )
        )
    return SuiteAnalysis(
        tuple(verdicts), bool(paired), float(level), int(min_results), bool(by_trial and not paired)
    )


def analysis_settings(suite: Mapping[str, Any] | None) -> dict[str, Any]:
    """Keyword arguments of :func:`analyse` for a record's suite metadata.

    A record written before a setting existed is judged the way it was then
    (for ``by_trial``: unpaired); no metadata at all means the defaults,
    unpaired.

    Examples
    --------
    >>> from perfstats.adapters.ab.analysis import analysis_settings
    >>> opts = analysis_settings({"schedule": "rmit", "by_trial": True, "level": 0.95})
    >>> opts["paired"], opts["by_trial"], opts["level"], opts["min_results"]
    (False, True, 0.95, 10)
    """
    s: Mapping[str, Any] = suite if isinstance(suite, Mapping) else {}
    return {
        "paired": s.get("schedule") == DUET,
        "by_trial": bool(s.get("by_trial", False)),
        "level": float(s.get("level", 0.99)),
        "min_results": int(s.get("min_results", 10)),
        "n_resamples": int(s.get("n_resamples", 10000)),
        "grouped": bool(s.get("grouped", True)),
    }


def suite_agreement(first: SuiteAnalysis, second: SuiteAnalysis) -> ChangeAgreement:
    """ElastiBench's agreement and coverage between two runs of a suite.

    Over the benchmarks judged in both runs: the share whose verdicts agree
    (both no change, or a change in the same direction), and the one-sided
    and two-sided coverage of the estimates by the other run's CIs
    (Schirmer et al. 2024, Section VI-A; :func:`perfstats.change_agreement`).

    Examples
    --------
    >>> from perfstats.adapters.ab.analysis import suite_agreement
    >>> suite_agreement(run_a.analyse(), run_b.analyse()).agree  # doctest: +SKIP
    1.0
    """
    return change_agreement(first.changes(), second.changes())
