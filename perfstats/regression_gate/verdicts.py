"""A regression gate for a suite of benchmarks: regression, improvement, equivalent or inconclusive.

A CI job that compares a contender (a pull request) with a baseline (the
main branch) must fail only on a real regression, say "equivalent" when the
data show that nothing changed beyond a tolerance, and keep false alarms in
check over hundreds of benchmarks. Per benchmark the gate reads the
bootstrap CI of the relative change of a statistic
(:func:`perfstats.relative_change`, as ElastiBench does), a Wilcoxon rank
test and Cliff's delta; across the suite it controls the false discovery
rate with Benjamini-Hochberg and summarises the change as the geometric mean
of the ratios.
"""

from __future__ import annotations

import fnmatch
import json
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._direction import BETTER, check_better, worse_sign
from .._rng import as_generator
from .._validation import FloatArray, as_sample, check_fraction, check_int, check_level

__all__ = [
    "VERDICTS",
    "BenchmarkVerdict",
    "GateResult",
    "gate",
    "parse_threshold",
]

#: The gate's verdicts; "error" is a benchmark with no successful run on a
#: side (every run failed), which cannot be judged.
VERDICTS = ("regression", "improvement", "equivalent", "inconclusive", "error")

#: Which way a benchmark's values are better: "lower" (a time, a size) or
#: "higher" (a throughput, a rate); the comparison's own notion.
DIRECTIONS = BETTER

GEOMEAN_METHOD = (
    "normal approximation on the log scale: mean of the per-benchmark log ratios, "
    "standard error combined from each benchmark's bootstrap CI (benchmarks independent)"
)
RUNS_NEEDED_METHOD = (
    "projection: the point estimate stays, CI half-widths shrink like 1/sqrt(n) "
    "and the rank test's z-score grows like sqrt(n), both sides grow by the same factor"
)


def parse_threshold(value: Any, name: str = "threshold") -> float:
    """A relative threshold from ``"2%"``, ``"0.02"`` or ``0.02``.

    Parameters
    ----------
    value : str or float
        A fraction (``0.02``, ``"0.02"``) or a percentage with a trailing
        ``%`` (``"2%"``, ``"2.5 %"``). It must lie in [0, 1).
    name : str, default "threshold"
        The parameter named in the error message.

    Returns
    -------
    float
        The threshold as a fraction in [0, 1) (``"2%"`` gives 0.02).

    Raises
    ------
    ValueError
        If ``value`` is not a number or percentage, or lies outside [0, 1).

    Examples
    --------
    >>> from perfstats import parse_threshold
    >>> parse_threshold("2%"), parse_threshold("0.02"), parse_threshold(0.05)
    (0.02, 0.02, 0.05)
    """
    if isinstance(value, str):
        text = value.strip()
        try:
            out = float(text[:-1].strip()) / 100.0 if text.endswith("%") else float(text)
        except ValueError:
            raise ValueError(
                f"{name} must be a fraction such as 0.02 or a percentage such as 2%; got {value!r}"
            ) from None
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        out = float(value)
    else:
        raise ValueError(
            f"{name} must be a fraction such as 0.02 or a percentage such as 2%; got {value!r}"
        )
    if not (math.isfinite(out) and 0.0 <= out < 1.0):
        raise ValueError(f"{name} must be in [0, 1) (0% to 100%), got {value!r}")
    return out


@dataclass(frozen=True)
class BenchmarkVerdict:
    """The gate's judgement of one benchmark.

    Parameters
    ----------
    name : str
        Benchmark name.
    unit : str or None
        Unit of the measurements (None when not given).
    n_baseline, n_contender : int
        Runs on each side.
    ratio : float
        ``stat(contender) / stat(baseline)``; above 1 means larger (slower
        for a time, faster for a throughput: see ``direction``).
    ci_low, ci_high : float
        Bootstrap CI of the ratio.
    p_value : float
        Two-sided Wilcoxon rank-sum p-value (signed-rank when paired).
    p_adjusted : float
        Benjamini-Hochberg adjusted p-value over the suite.
    cliffs_delta : float
        ``P(contender > baseline) - P(contender < baseline)``.
    verdict : str
        ``"regression"``, ``"improvement"``, ``"equivalent"``,
        ``"inconclusive"``, or ``"error"`` (no successful run on a side:
        the numbers are NaN, ``reason`` says why).
    runs_needed : int or None
        For an inconclusive benchmark, the further runs per side that would
        likely decide it (see :func:`gate`); None otherwise, or when no
        number of runs would (the estimate sits on the threshold).
    threshold : float
        The threshold delta applied to this benchmark.
    reason : str
        One sentence explaining the verdict.
    direction : {"lower", "higher"}, default "lower"
        Which values are better: "lower" (times), or "higher" (throughputs,
        rates), where a ratio above ``1 + threshold`` is an improvement.
    n_failed : int, default 0
        Runs the tool recorded as failed, left out of the values (set by
        whoever read them; the gate itself sees successful runs only).

    Examples
    --------
    >>> from perfstats import BenchmarkVerdict
    >>> BenchmarkVerdict("sort", "s", 30, 30, 1.052, 1.031, 1.074, 1e-6, 2e-6, 0.61,
    ...                  "regression", None, 0.02, "CI above +2%")
    BenchmarkVerdict('sort': regression, ratio 1.052 [1.031, 1.074], p_adj=2e-06, n=30/30)
    """

    name: str
    unit: str | None
    n_baseline: int
    n_contender: int
    ratio: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    cliffs_delta: float
    verdict: str
    runs_needed: int | None
    threshold: float
    reason: str
    direction: str = "lower"
    n_failed: int = 0

    @property
    def change(self) -> float:
        """Relative change ``ratio - 1``."""
        return self.ratio - 1.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON schema's per-benchmark object (see :meth:`GateResult.to_dict`).

        Returns
        -------
        dict of str to object
            Every field of the verdict under its own name, in the order of the
            class; the derived :attr:`change` is not included. The numbers of an
            ``"error"`` verdict stay NaN here (:meth:`GateResult.to_json` writes
            them as null).
        """
        return {
            "name": self.name,
            "unit": self.unit,
            "n_baseline": self.n_baseline,
            "n_contender": self.n_contender,
            "ratio": self.ratio,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "cliffs_delta": self.cliffs_delta,
            "verdict": self.verdict,
            "runs_needed": self.runs_needed,
            "threshold": self.threshold,
            "reason": self.reason,
            "direction": self.direction,
            "n_failed": self.n_failed,
        }

    def __repr__(self) -> str:
        return (
            f"BenchmarkVerdict({self.name!r}: {self.verdict}, ratio {self.ratio:.4g} "
            f"[{self.ci_low:.4g}, {self.ci_high:.4g}], p_adj={self.p_adjusted:.3g}, "
            f"n={self.n_baseline}/{self.n_contender})"
        )


@dataclass(frozen=True)
class GateResult:
    """The gate's judgement of a suite.

    Parameters
    ----------
    benchmarks : tuple of BenchmarkVerdict
        One per benchmark present on both sides, sorted by name.
    counts : dict of str to int
        Benchmarks per verdict (every verdict present, zeros included).
    geomean : float
        Geometric mean of the per-benchmark ratios, each oriented so that
        above 1 is worse (a higher-is-better benchmark's ratio inverted).
    geomean_low, geomean_high : float
        Its CI (method in ``geomean_method``).
    geomean_method : str
        How that CI was computed.
    statistic : str
        The statistic compared (``"median"``, ``"mean"``, ``"q=0.9"``).
    threshold : float
        Default threshold delta (overrides are in each benchmark's
        ``threshold``).
    fdr : float
        False discovery rate for Benjamini-Hochberg.
    level : float
        Confidence level of the intervals.
    paired : bool
        Whether runs were paired.
    min_equivalent_runs : int
        Fewest runs a side for an "equivalent" verdict.
    unmatched_baseline, unmatched_contender : tuple of str
        Benchmark names present on one side only.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import gate
    >>> rng = np.random.default_rng(1)
    >>> base = {"a": rng.lognormal(0, 0.01, 30), "b": rng.lognormal(0, 0.01, 30)}
    >>> cont = {"a": base["a"] * 1.10, "b": rng.lognormal(0, 0.01, 30)}
    >>> res = gate(base, cont, rng=0, n_resamples=2000)
    >>> res.counts["regression"], res.exit_code(), res.regressed
    (1, 1, True)
    """

    benchmarks: tuple[BenchmarkVerdict, ...]
    counts: dict[str, int]
    geomean: float
    geomean_low: float
    geomean_high: float
    geomean_method: str
    statistic: str
    threshold: float
    fdr: float
    level: float
    paired: bool
    min_equivalent_runs: int
    unmatched_baseline: tuple[str, ...] = field(default=())
    unmatched_contender: tuple[str, ...] = field(default=())

    @property
    def regressed(self) -> bool:
        """True when at least one benchmark is a regression."""
        return self.counts["regression"] > 0

    def exit_code(self, *, strict: bool = False) -> int:
        """The gate's exit code: 0 when the suite passes, else 1, 2 or 3 by its worst verdict.

        A benchmark with no successful run (verdict ``"error"``) makes the
        suite's result an error, as the command line's usage and input
        errors are: the gate cannot vouch for a benchmark it could not judge.

        Parameters
        ----------
        strict : bool, default False
            Whether an inconclusive benchmark also fails the gate.

        Returns
        -------
        int
            2 when a benchmark's verdict is ``"error"``; otherwise 1 when one
            is a regression; otherwise 3 when ``strict`` and one is
            inconclusive; otherwise 0.
        """
        if self.counts.get("error", 0) > 0:
            return 2
        if self.regressed:
            return 1
        if strict and self.counts["inconclusive"] > 0:
            return 3
        return 0

    def __getitem__(self, name: str) -> BenchmarkVerdict:
        for b in self.benchmarks:
            if b.name == name:
                return b
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (the ``--format json`` schema).

        ``{"schema": "perfstats.gate/1", "suite": {...}, "benchmarks": [...],
        "unmatched": {"baseline": [...], "contender": [...]}}``. ``suite`` holds
        ``statistic``, ``threshold``, ``fdr``, ``level``, ``paired``,
        ``min_equivalent_runs``, ``n_benchmarks``, ``counts`` (one entry per
        verdict), ``geomean`` ``{"ratio", "ci_low", "ci_high", "method"}``,
        ``runs_needed_method`` and ``exit_code`` / ``exit_code_strict``.
        Each benchmark is :meth:`BenchmarkVerdict.to_dict`.

        Returns
        -------
        dict of str to object
            The schema above; the benchmarks and the unmatched names keep the
            order they have in the result. Unknown numbers are still NaN;
            :meth:`to_json` replaces them with null.
        """
        return {
            "schema": "perfstats.gate/1",
            "suite": {
                "statistic": self.statistic,
                "threshold": self.threshold,
                "fdr": self.fdr,
                "level": self.level,
                "paired": self.paired,
                "min_equivalent_runs": self.min_equivalent_runs,
                "n_benchmarks": len(self.benchmarks),
                "counts": dict(self.counts),
                "geomean": {
                    "ratio": self.geomean,
                    "ci_low": self.geomean_low,
                    "ci_high": self.geomean_high,
                    "method": self.geomean_method,
                },
                "runs_needed_method": RUNS_NEEDED_METHOD,
                "exit_code": self.exit_code(),
                "exit_code_strict": self.exit_code(strict=True),
            },
            "benchmarks": [b.to_dict() for b in self.benchmarks],
            "unmatched": {
                "baseline": list(self.unmatched_baseline),
                "contender": list(self.unmatched_contender),
            },
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as a JSON string (NaN-free: unknown numbers are null).

        Parameters
        ----------
        indent : int or None, default 2
            Spaces per nesting level, as for :func:`json.dumps`; None writes
            the whole document on one line.

        Returns
        -------
        str
            The ``perfstats.gate/1`` document, in which every NaN or infinite
            number is ``null``.
        """
        return json.dumps(_finite(self.to_dict()), indent=indent)

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}={v}" for k, v in self.counts.items())
        return (
            f"GateResult({len(self.benchmarks)} benchmarks: {counts}; geomean "
            f"{self.geomean:.4g} [{self.geomean_low:.4g}, {self.geomean_high:.4g}])"
        )


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


@dataclass(frozen=True)
class _Side:
    values: dict[str, FloatArray]
    units: dict[str, str | None]


@dataclass(frozen=True)
class _Benchmark:
    """A benchmark present on both sides, with what the gate applies to it."""

    name: str
    unit: str | None
    xb: FloatArray
    xc: FloatArray
    delta: float
    direction: str


def _collect(
    data: Any, units: Mapping[str, str] | None, side: str, *, empty: bool = False
) -> _Side:
    """Benchmark name -> values (and unit) from a mapping, pairs/triples, or a tidy frame."""
    rows: list[tuple[str, Any, str | None]] = []
    if hasattr(data, "columns") and hasattr(data, "groupby"):
        cols = set(data.columns)
        if not {"benchmark", "value"} <= cols:
            raise ValueError(
                f"{side} as a DataFrame needs columns 'benchmark' and 'value'; "
                f"got {sorted(map(str, cols))}"
            )
        for name, grp in data.groupby("benchmark", sort=False):
            unit: str | None = None
            if "unit" in cols:
                found = sorted({str(u) for u in grp["unit"].dropna()})
                if len(found) > 1:
                    raise ValueError(f"{side}[{name!r}] mixes units {found}")
                unit = found[0] if found else None
            rows.append((str(name), grp["value"].to_numpy(), unit))
    elif isinstance(data, Mapping):
        rows = [(str(k), v, None) for k, v in data.items()]
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
        for i, item in enumerate(data):
            if not isinstance(item, tuple) or len(item) not in (2, 3):
                raise ValueError(
                    f"{side}[{i}] must be a (name, values) or (name, values, unit) tuple; "
                    f"got {type(item).__name__}"
                )
            rows.append((str(item[0]), item[1], None if len(item) == 2 else item[2]))
    else:
        raise ValueError(
            f"{side} must be a mapping of benchmark names to values, a sequence of "
            f"(name, values[, unit]) tuples or a DataFrame; got {type(data).__name__}"
        )
    values: dict[str, FloatArray] = {}
    unit_of: dict[str, str | None] = {}
    for name, raw, unit in rows:
        if name in values:
            raise ValueError(f"{side} has the benchmark name {name!r} more than once")
        values[name] = as_sample(raw, f"{side}[{name!r}]")
        unit_of[name] = unit
    if units is not None:
        if not isinstance(units, Mapping):
            raise ValueError(f"{side}_units must be a mapping of names to units, got {units!r}")
        for name, unit in units.items():
            if str(name) in unit_of:
                given = unit_of[str(name)]
                if given is not None and given != unit:
                    raise ValueError(
                        f"{side}[{str(name)!r}] has unit {given!r} in the data "
                        f"but {unit!r} in {side}_units"
                    )
                unit_of[str(name)] = None if unit is None else str(unit)
    if not values and not empty:
        raise ValueError(f"{side} holds no benchmark")
    return _Side(values, unit_of)


def _threshold_for(name: str, default: float, overrides: Mapping[str, Any] | None) -> float:
    if not overrides:
        return default
    if name in overrides:
        return parse_threshold(overrides[name], f"overrides[{name!r}]")
    for pattern, value in overrides.items():
        if fnmatch.fnmatchcase(name, pattern):
            return parse_threshold(value, f"overrides[{pattern!r}]")
    return default


def _z(p: float) -> float:
    """Two-sided p-value -> |z|."""
    from scipy.special import ndtri

    return float(ndtri(1.0 - p / 2.0)) if p < 1.0 else 0.0


def _runs_needed(
    est: float,
    low: float,
    high: float,
    delta: float,
    n_b: int,
    n_c: int,
    p: float,
    p_adj: float,
    fdr: float,
    min_runs: int,
) -> int | None:
    """Further runs per side that would likely decide an inconclusive benchmark.

    ``est``, ``low`` and ``high`` are relative changes. The verdict aimed at
    is the one the point estimate lies on: beyond ``delta`` a regression or
    improvement, inside it equivalence.
    """
    lower, upper = est - low, high - est  # CI half-widths below and above the estimate
    factors: list[float] = []
    if est > delta or est < -delta:
        margin = est - delta if est > delta else -delta - est
        width = lower if est > delta else upper
        factors.append(_square(width / margin))
        if p_adj >= fdr:
            z = _z(p)
            # Keep the Benjamini-Hochberg multiplier p_adj / p as it is.
            target = fdr * p / p_adj if p_adj > 0 else fdr
            factors.append(math.inf if z == 0.0 else _square(_z(target) / z))
    elif -delta < est < delta:
        factors.append(_square(lower / (est + delta)))
        factors.append(_square(upper / (delta - est)))
        factors.append(min_runs / min(n_b, n_c))
    else:
        return None
    f = max(factors)
    if not math.isfinite(f):
        return None
    n = max(n_b, n_c)
    return max(1, math.ceil(n * f) - n)


def _judge(
    bench: _Benchmark,
    *,
    statistic: Any,
    level: float,
    paired: bool,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[float, float, float, float, float]:
    """(estimate, low, high, p-value, Cliff's delta) of one benchmark."""
    from ..comparison.change import relative_change
    from ..comparison.effects import cliffs_delta, wilcoxon_ranksum, wilcoxon_signedrank

    name, xb, xc = bench.name, bench.xb, bench.xc
    if not bool(np.all(xc > 0)):
        # Ratios and their geometric mean are read on the log scale.
        raise ValueError(
            f"benchmark {name!r}: contender values must be positive, got {float(np.min(xc))!r}"
        )
    if paired and xb.size != xc.size:
        raise ValueError(
            f"paired=True needs equal run counts; benchmark {name!r} has "
            f"{xb.size} baseline and {xc.size} contender runs"
        )
    try:
        rc = relative_change(
            xb, xc, statistic=statistic, level=level, paired=paired,
            n_resamples=n_resamples, rng=rng,
        )  # fmt: skip
    except ValueError as exc:
        raise ValueError(f"benchmark {name!r}: {exc}") from None
    if not 1.0 + rc.low > 0.0:
        # The ratio is kept as 1 + change: a contender some 1e16 times faster
        # than the baseline rounds to a ratio of 0, with no logarithm.
        raise ValueError(
            f"benchmark {name!r}: the contender/baseline ratio is below what float64 "
            "resolves as 1 + change (about 1e-16); rescale or check the data"
        )
    if paired:
        diff = xc - xb
        p = 1.0 if not np.any(diff) else wilcoxon_signedrank(xc, xb).pvalue
    else:
        p = wilcoxon_ranksum(xc, xb).pvalue
    d = cliffs_delta(xc, xb).delta
    return rc.estimate, rc.low, rc.high, float(p), float(d)


def _square(v: float) -> float:
    # v * v overflows to inf (an unreachable run count), where v ** 2 raises.
    return v * v


def _verdict(
    low: float, high: float, delta: float, p_adj: float, fdr: float, n: int, min_runs: int
) -> tuple[str, str]:
    pct = f"{delta:.4g}" if delta == 0 else f"{delta * 100:.3g}%"
    if low > delta:
        if p_adj < fdr:
            return "regression", f"CI lies above +{pct} and p_adj < {fdr:g}"
        return "inconclusive", f"CI lies above +{pct} but p_adj = {p_adj:.3g} >= {fdr:g}"
    if high < -delta:
        if p_adj < fdr:
            return "improvement", f"CI lies below -{pct} and p_adj < {fdr:g}"
        return "inconclusive", f"CI lies below -{pct} but p_adj = {p_adj:.3g} >= {fdr:g}"
    if -delta <= low and high <= delta:
        if n >= min_runs:
            return "equivalent", f"CI lies inside [-{pct}, +{pct}]"
        return (
            "inconclusive",
            f"CI lies inside [-{pct}, +{pct}] but only {n} run(s) a side; "
            f"equivalence needs {min_runs}",
        )
    return "inconclusive", f"CI straddles the threshold {pct}"


def gate(
    baseline: Any,
    contender: Any,
    *,
    statistic: str | float = "median",
    threshold: float | str = 0.02,
    fdr: float = 0.05,
    level: float = 0.95,
    paired: bool = False,
    n_resamples: int = 5000,
    rng: Any = None,
    min_equivalent_runs: int = 5,
    overrides: Mapping[str, float | str] | None = None,
    baseline_units: Mapping[str, str] | None = None,
    contender_units: Mapping[str, str] | None = None,
    directions: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
) -> GateResult:
    """Judge every benchmark of a suite: regression, improvement, equivalent or inconclusive.

    Benchmarks are matched by name; those on one side only are listed in
    ``unmatched_baseline`` / ``unmatched_contender``. For each matched
    benchmark, with ``delta`` its threshold:

    * the **ratio** ``stat(contender) / stat(baseline)`` with a percentile
      bootstrap CI at ``level`` (:func:`perfstats.relative_change`; pairs
      resampled jointly when ``paired``, i.e. when the runs were
      interleaved one baseline, one contender);
    * a two-sided **Wilcoxon rank-sum** p-value (signed-rank on the pair
      differences when paired) and **Cliff's delta**;
    * the **verdict**: ``regression`` when the CI of the relative change
      lies above ``+delta`` *and* the Benjamini-Hochberg adjusted p-value is
      below ``fdr``; ``improvement`` likewise below ``-delta``;
      ``equivalent`` when the CI lies inside ``[-delta, +delta]`` (a
      TOST-style statement: with a 95% two-sided CI each one-sided test is
      at 2.5%) and both sides have at least ``min_equivalent_runs`` runs;
      ``inconclusive`` otherwise.
    * **runs_needed** (inconclusive only): the further runs per side after
      which the verdict the point estimate points to would likely be
      reached, projected with the estimate unchanged, CI half-widths
      shrinking like ``1/sqrt(n)``, the rank test's z-score growing like
      ``sqrt(n)`` (with the BH multiplier kept), and equivalence's minimum
      run count; ``n`` is the larger side. None when the estimate sits
      exactly on ``+-delta``, or when the projection reaches no finite
      number of runs.

    Across the suite, p-values are adjusted with Benjamini-Hochberg
    (:func:`perfstats.benjamini_hochberg`), and the **geometric mean** of
    the ratios gets a CI by a normal approximation on the log scale: the
    mean of the log ratios, with the standard error
    ``sqrt(sum se_i**2) / k`` where ``se_i`` is read from benchmark ``i``'s
    bootstrap CI as ``(log ci_high - log ci_low) / (2 z)``. It is the
    uncertainty of this suite's change from measurement noise (the
    benchmarks are fixed, not a sample of all possible benchmarks).

    A benchmark whose ``directions`` entry is ``"higher"`` (a throughput)
    is judged the other way round: a ratio whose CI lies above
    ``1 + delta`` is an improvement, below ``1 - delta`` a regression; the
    geometric mean takes its inverted ratio, so that it reads "above 1 is
    worse" for every benchmark.

    A benchmark with a single run on a side (a tool that keeps one number
    per benchmark, such as asv's ``mem_`` and ``track_`` benchmarks) is
    ``inconclusive``, its reason saying so, its ratio that of the two
    statistics, with no interval, test or ``runs_needed``; it is left out of
    the p-value adjustment and the geometric mean, and the rest of the suite
    is judged.

    Parameters
    ----------
    baseline, contender : mapping, sequence of tuples or DataFrame
        Benchmark name -> 1-D runs (positive, finite; at least 2 a side to be judged); or a
        sequence of ``(name, values)`` / ``(name, values, unit)`` tuples; or
        a tidy DataFrame with columns ``benchmark``, ``value`` and
        optionally ``unit`` (what the importers return).
    statistic : {"median", "mean"} or float, default "median"
        Statistic compared; a float is a quantile.
    threshold : float or str, default 0.02
        The default ``delta``, as a fraction or a percentage string
        (``"2%"``); see :func:`parse_threshold`.
    fdr : float, default 0.05
        False discovery rate for regressions and improvements.
    level : float, default 0.95
        Confidence level of the intervals.
    paired : bool, default False
        The i-th runs of both sides ran together.
    n_resamples : int, default 5000
        Bootstrap resamples per benchmark.
    rng : None, int or numpy.random.Generator
        Seed; benchmarks are resampled in name order from one generator.
    min_equivalent_runs : int, default 5
        Fewest runs a side before "equivalent" may be said.
    overrides : mapping of str to float or str, optional
        Per-benchmark thresholds, by exact name or by glob pattern
        (``"io_*"``); the exact name wins, then the first matching pattern.
    baseline_units, contender_units : mapping of str to str, optional
        Units by benchmark name (in addition to a DataFrame's ``unit``).
    directions : mapping of str to {"lower", "higher"}, optional
        Which values are better, by benchmark name; a benchmark not named is
        "lower" (a time).
    errors : mapping of str to str, optional
        Benchmarks with no successful run on a side (every run failed), by
        name, with the reason. Each gets the verdict ``"error"`` (NaN
        numbers, the reason kept), is left out of the p-value adjustment
        and the geometric mean, and makes :meth:`GateResult.exit_code` 2;
        its values on the other side, if any, are counted, not judged.

    Returns
    -------
    GateResult
        One :class:`BenchmarkVerdict` per benchmark (sorted by name), the
        count of each verdict, the geometric mean of the ratios with its CI,
        the options applied and the names found on one side only;
        :meth:`GateResult.exit_code` turns it into a CI job's exit status.

    Raises
    ------
    ValueError
        When no benchmark has 2 runs a side (nothing to judge), on NaN or
        infinite values, an empty benchmark, a non-positive baseline or
        contender value, a name given twice, units that differ
        between baseline and contender, no benchmark in common (and no
        error), paired runs of unequal count, or a bad option.

    References
    ----------
    Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud FaaS
    Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.

    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a
    practical and powerful approach to multiple testing", Journal of the
    Royal Statistical Society B 57(1), 1995.

    D. J. Schuirmann, "A comparison of the two one-sided tests procedure and
    the power approach for assessing the equivalence of average
    bioavailability", Journal of Pharmacokinetics and Biopharmaceutics
    15(6), 1987.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import gate
    >>> rng = np.random.default_rng(4)
    >>> base = {f"b{i}": rng.lognormal(0, 0.01, 40) for i in range(4)}
    >>> cont = {k: v * (1.08 if k == "b0" else 1.0) for k, v in base.items()}
    >>> cont["b3"] = rng.lognormal(0, 0.01, 3)
    >>> res = gate(base, cont, threshold="2%", rng=1, n_resamples=2000)
    >>> [(b.name, b.verdict) for b in res.benchmarks]
    [('b0', 'regression'), ('b1', 'equivalent'), ('b2', 'equivalent'), ('b3', 'inconclusive')]
    >>> res["b3"].runs_needed is not None
    True

    A throughput that went up by 50% is an improvement:

    >>> ops = {"put": rng.lognormal(10, 0.01, 20)}
    >>> faster = {"put": ops["put"] * 1.5}
    >>> gate(ops, faster, directions={"put": "higher"}, rng=1)["put"].verdict
    'improvement'

    A benchmark whose every contender run failed is an error:

    >>> res = gate(ops, {}, errors={"put": "no successful run (5 failed)"}, rng=1)
    >>> res["put"].verdict, res["put"].reason, res.exit_code()
    ('error', 'no successful run (5 failed)', 2)
    """
    kind: Any = statistic
    if not isinstance(statistic, str):
        kind = check_fraction(statistic, "statistic")
    elif statistic not in ("median", "mean"):
        raise ValueError(
            f"statistic must be 'median', 'mean' or a quantile in [0, 1]; got {statistic!r}"
        )
    delta = parse_threshold(threshold)
    q = check_level(fdr, "fdr")
    lvl = check_level(level)
    b = check_int(n_resamples, "n_resamples", minimum=1)
    min_runs = check_int(min_equivalent_runs, "min_equivalent_runs", minimum=2)
    if not isinstance(paired, (bool, np.bool_)):
        raise ValueError(f"paired must be True or False, got {paired!r}")
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ValueError(f"overrides must be a mapping of names to thresholds, got {overrides!r}")
    if directions is not None and not isinstance(directions, Mapping):
        raise ValueError(
            f"directions must be a mapping of names to 'lower' or 'higher', got {directions!r}"
        )
    for name, way in (directions or {}).items():
        check_better(way, f"directions[{name!r}]")
    if errors is not None and not isinstance(errors, Mapping):
        raise ValueError(f"errors must be a mapping of names to reasons, got {errors!r}")
    failed = {str(k): str(v) for k, v in (errors or {}).items()}
    gen = as_generator(rng)
    base = _collect(baseline, baseline_units, "baseline", empty=bool(failed))
    cont = _collect(contender, contender_units, "contender", empty=bool(failed))
    names = sorted((set(base.values) & set(cont.values)) - set(failed))
    if not names and not failed:
        raise ValueError(
            "baseline and contender share no benchmark name "
            f"(baseline: {sorted(base.values)[:5]}, contender: {sorted(cont.values)[:5]})"
        )
    # A benchmark of one run a side (a tool that keeps one number, such as
    # asv's mem_ and track_ benchmarks) has no spread to judge: its row says
    # so and the rest of the suite is judged. A suite with nothing else to
    # judge is refused, as one with no benchmark in common is.
    single = {
        name: side
        for name in names
        for side, held in (("baseline", base), ("contender", cont))
        if held.values[name].size < _MIN_RUNS
    }
    if single and len(single) == len(names) and not failed:
        name = names[0]
        side = single[name]
        size = (base if side == "baseline" else cont).values[name].size
        raise ValueError(
            f"{side}[{name!r}] has {size} run; the gate needs at least {_MIN_RUNS} runs a "
            "side (no benchmark of the suite has them)"
        )
    benches: list[_Benchmark] = []
    for name in names:
        ub, uc = base.units[name], cont.units[name]
        if ub is not None and uc is not None and ub != uc:
            raise ValueError(
                f"benchmark {name!r} has unit {ub!r} in the baseline but {uc!r} in the contender"
            )
        benches.append(
            _Benchmark(
                name, ub if ub is not None else uc, base.values[name], cont.values[name],
                _threshold_for(name, delta, overrides), _direction_of(name, directions),
            )
        )  # fmt: skip

    from ..comparison.multiple_testing import benjamini_hochberg

    judged = [bench for bench in benches if bench.name not in single]
    raw = [
        _judge(bench, statistic=kind, level=lvl, paired=bool(paired), n_resamples=b, rng=gen)
        for bench in judged
    ]
    p_adj: Any = benjamini_hochberg([r[3] for r in raw]) if raw else []
    verdicts = [_too_few(bench, kind) for bench in benches if bench.name in single]
    for bench, (est, low, high, p, d), pa in zip(judged, raw, p_adj, strict=True):
        nb_, nc_ = bench.xb.size, bench.xc.size
        verdict, reason = _verdict(low, high, bench.delta, float(pa), q, min(nb_, nc_), min_runs)
        if worse_sign(bench.direction) < 0:
            # The verdicts are worded for a change upwards being worse.
            verdict = _FLIPPED.get(verdict, verdict)
            reason += "; higher is better"
        needed = (
            _runs_needed(est, low, high, bench.delta, nb_, nc_, p, float(pa), q, min_runs)
            if verdict == "inconclusive"
            else None
        )
        verdicts.append(
            BenchmarkVerdict(
                name=bench.name, unit=bench.unit, n_baseline=nb_, n_contender=nc_,
                ratio=1.0 + est, ci_low=1.0 + low, ci_high=1.0 + high,
                p_value=p, p_adjusted=float(pa), cliffs_delta=d, verdict=verdict,
                runs_needed=needed, threshold=bench.delta, reason=reason,
                direction=bench.direction,
            )
        )  # fmt: skip
    for name, reason in failed.items():
        verdicts.append(
            _unjudged(
                name, base.units.get(name, cont.units.get(name)),
                int(base.values[name].size) if name in base.values else 0,
                int(cont.values[name].size) if name in cont.values else 0,
                ratio=math.nan, verdict="error", reason=reason,
                threshold=_threshold_for(name, delta, overrides),
                direction=_direction_of(name, directions),
            )
        )  # fmt: skip
    verdicts.sort(key=lambda v: v.name)
    gm, gm_low, gm_high = _geomean(
        [v for v in verdicts if v.verdict != "error" and v.name not in single], lvl
    )
    counts = {v: sum(1 for x in verdicts if x.verdict == v) for v in VERDICTS}
    label = kind if isinstance(kind, str) else f"q={kind:g}"
    return GateResult(
        benchmarks=tuple(verdicts),
        counts=counts,
        geomean=gm,
        geomean_low=gm_low,
        geomean_high=gm_high,
        geomean_method=GEOMEAN_METHOD,
        statistic=label,
        threshold=delta,
        fdr=q,
        level=lvl,
        paired=bool(paired),
        min_equivalent_runs=min_runs,
        unmatched_baseline=tuple(sorted(set(base.values) - set(cont.values) - set(failed))),
        unmatched_contender=tuple(sorted(set(cont.values) - set(base.values) - set(failed))),
    )


_FLIPPED = {"regression": "improvement", "improvement": "regression"}

#: Fewest runs a side for a benchmark to be judged: one run has no spread.
_MIN_RUNS = 2


def _direction_of(name: str, directions: Mapping[str, str] | None) -> str:
    return str((directions or {}).get(name, "lower"))


def _unjudged(
    name: str,
    unit: str | None,
    n_baseline: int,
    n_contender: int,
    *,
    ratio: float,
    verdict: str,
    reason: str,
    threshold: float,
    direction: str,
) -> BenchmarkVerdict:
    """A row with no interval, test or count of further runs (their numbers NaN)."""
    return BenchmarkVerdict(
        name=name, unit=unit, n_baseline=n_baseline, n_contender=n_contender,
        ratio=ratio, ci_low=math.nan, ci_high=math.nan, p_value=math.nan,
        p_adjusted=math.nan, cliffs_delta=math.nan, verdict=verdict, runs_needed=None,
        threshold=threshold, reason=reason, direction=direction,
    )  # fmt: skip


def _too_few(bench: _Benchmark, statistic: Any) -> BenchmarkVerdict:
    """The inconclusive row of a benchmark with fewer than two runs on a side.

    The ratio of the statistics is kept (it is what the data say), with no
    interval, no test and no count of further runs: a tool that recorded one
    number per benchmark would record one number again.
    """
    xb, xc = bench.xb, bench.xc
    sides = [f"{x.size} run in the {side}" for side, x in (("baseline", xb), ("contender", xc))
             if x.size < _MIN_RUNS]  # fmt: skip
    sb, sc = _statistic(xb, statistic), _statistic(xc, statistic)
    return _unjudged(
        bench.name, bench.unit, int(xb.size), int(xc.size),
        ratio=sc / sb if sb > 0.0 and sc > 0.0 else math.nan, verdict="inconclusive",
        reason=f"{' and '.join(sides)}; the gate needs at least {_MIN_RUNS} runs a side "
        "to judge a change (a tool that keeps one number per benchmark gives no spread)",
        threshold=bench.delta, direction=bench.direction,
    )  # fmt: skip


def _statistic(x: FloatArray, statistic: Any) -> float:
    if statistic == "median":
        return float(np.median(x))
    if statistic == "mean":
        return float(np.mean(x))
    return float(np.quantile(x, statistic))


def _geomean(verdicts: list[BenchmarkVerdict], level: float) -> tuple[float, float, float]:
    from scipy.special import ndtri

    if not verdicts:
        return math.nan, math.nan, math.nan
    z = float(ndtri(0.5 + level / 2.0))
    # Oriented so that a log ratio above 0 is worse for every benchmark: a
    # throughput's ratio is inverted (the CI's width on the log scale stays).
    sign = np.array([worse_sign(v.direction) for v in verdicts])
    logs = sign * np.log([v.ratio for v in verdicts])
    # A bootstrap bound can be 0 only for a ratio CI reaching 0 (a contender
    # median of 0); the log scale then has no finite width.
    with np.errstate(divide="ignore"):
        widths = np.log([v.ci_high for v in verdicts]) - np.log([v.ci_low for v in verdicts])
    se = math.sqrt(float(np.sum((widths / (2.0 * z)) ** 2))) / logs.size
    centre = float(np.mean(logs))
    # Beyond exp's range the bound is an infinite ratio, not an error.
    return _exp(centre), _exp(centre - z * se), _exp(centre + z * se)


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf
