"""A-B records: measurements of several benchmarks under two or more versions, and their verdicts.

An A-B record is a CSV with one row per measurement and at least these
columns (any others, such as the run record's, are kept and ignored):

========== =============================================================
column     meaning
========== =============================================================
benchmark  the benchmark's name
version    the version measured (e.g. a commit or ``"A"`` / ``"B"``)
value      the measured number (larger is slower)
========== =============================================================

Optional columns:

========== =============================================================
status     ``"ok"`` rows are judged; any other status counts as a failure
phase      only ``"measure"`` rows are judged (``"warmup"`` is left out)
unit       the values' unit (one per record)
pair       duet pairs (ElastiBench): a baseline and a candidate row with
           the same benchmark and pair id were measured together, so the
           pairs are resampled jointly
========== =============================================================

The metadata JSON beside the record (``ab.csv`` -> ``ab.meta.json``) may
set ``baseline`` (the version the others are compared with; default: the
first version in the file), ``level`` (default 0.99), ``statistic``
(default ``"median"``) and ``seed`` (default 0), as ElastiBench's defaults.
A benchmark with fewer than ten judged values in either version gets no
verdict ("too few runs"), as ElastiBench drops such results.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstats.change import RelativeChange, relative_change

REQUIRED = ("benchmark", "version", "value")
MIN_RESULTS = 10
N_RESAMPLES = 10_000


def is_ab_header(columns: Sequence[str]) -> bool:
    """True when a CSV header has the columns of an A-B record.

    Examples
    --------
    >>> from perfstats.adapters.report_ab import is_ab_header
    >>> is_ab_header(["benchmark", "version", "value", "pair"]), is_ab_header(["value"])
    (True, False)
    """
    return set(REQUIRED) <= set(columns)


def read_ab(path: str | Path) -> pd.DataFrame:
    """Read an A-B record: every row, typed, with a boolean ``judged`` column.

    Raises
    ------
    ValueError
        When a required column is missing or a judged value is not a number.
    """
    try:
        frame = pd.read_csv(path, dtype={"benchmark": str, "version": str}, keep_default_na=False)
    except (OSError, pd.errors.ParserError) as exc:
        raise ValueError(f"cannot read the A-B record {path}: {exc}") from None
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError(f"{path} is not an A-B record: it lacks the column(s) {missing}")
    judged = pd.Series(True, index=frame.index)
    if "status" in frame.columns:
        judged &= frame["status"].astype(str) == "ok"
    if "phase" in frame.columns:
        judged &= frame["phase"].astype(str).isin(["measure", ""])
    values = pd.to_numeric(frame["value"].replace("", np.nan), errors="coerce")
    bad = judged & ~np.isfinite(values)
    if bad.any():
        line = int(np.flatnonzero(bad.to_numpy())[0]) + 2
        raise ValueError(f"{path} line {line}: value {frame['value'][line - 2]!r} is not a number")
    out = frame.copy()
    out["value"] = values
    out["judged"] = judged
    return out


@dataclass(frozen=True)
class Verdict:
    """One benchmark's change from the baseline to a candidate version."""

    benchmark: str
    baseline: str
    candidate: str
    n_baseline: int
    n_candidate: int
    statistic_baseline: float
    statistic_candidate: float
    change: RelativeChange | None

    @property
    def verdict(self) -> str:
        """``"slower"``, ``"faster"``, ``"no change"`` or ``"too few runs"``."""
        if self.change is None:
            return "too few runs"
        return self.change.direction if self.change.changed else "no change"


def _statistic(x: np.ndarray, statistic: str | float) -> float:
    if x.size == 0:
        return math.nan
    if statistic == "mean":
        return float(np.mean(x))
    return float(np.quantile(x, 0.5 if statistic == "median" else float(statistic)))


def versions(frame: pd.DataFrame, metadata: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The baseline version and the candidates, in file order.

    Examples
    --------
    >>> import pandas as pd
    >>> from perfstats.adapters.report_ab import versions
    >>> versions(pd.DataFrame({"version": ["b", "a", "b"]}), {})
    ('b', ['a'])
    >>> versions(pd.DataFrame({"version": ["b", "a"]}), {"baseline": "a"})
    ('a', ['b'])
    """
    order = list(dict.fromkeys(frame["version"].astype(str)))
    if len(order) < 2:
        raise ValueError(f"an A-B record needs two versions or more; found {order}")
    baseline = metadata.get("baseline")
    if baseline is None:
        baseline = order[0]
    elif str(baseline) not in order:
        raise ValueError(f"the metadata's baseline {baseline!r} is not a version of the record")
    return str(baseline), [v for v in order if v != str(baseline)]


def verdicts(frame: pd.DataFrame, metadata: Mapping[str, Any]) -> list[Verdict]:
    """Every benchmark's change from the baseline to each candidate (see the module notes)."""
    base, candidates = versions(frame, metadata)
    level = float(metadata.get("level", 0.99))
    statistic: str | float = metadata.get("statistic", "median")
    seed = int(metadata.get("seed", 0) or 0)
    judged = frame[frame["judged"]]
    paired = "pair" in frame.columns
    out = []
    for bench in dict.fromkeys(frame["benchmark"].astype(str)):
        rows = judged[judged["benchmark"].astype(str) == bench]
        for cand in candidates:
            a = rows[rows["version"].astype(str) == base]
            b = rows[rows["version"].astype(str) == cand]
            if paired:
                # Only pairs with both halves judged can be resampled jointly.
                both = a.merge(b, on="pair", suffixes=("_a", "_b"))
                xa = both["value_a"].to_numpy(dtype=np.float64)
                xb = both["value_b"].to_numpy(dtype=np.float64)
            else:
                xa = a["value"].to_numpy(dtype=np.float64)
                xb = b["value"].to_numpy(dtype=np.float64)
            change = None
            if min(xa.size, xb.size) >= MIN_RESULTS:
                change = relative_change(
                    xa, xb, statistic=statistic, level=level, paired=paired,
                    n_resamples=N_RESAMPLES, rng=seed,
                )  # fmt: skip
            out.append(
                Verdict(bench, base, cand, int(xa.size), int(xb.size),
                        _statistic(xa, statistic), _statistic(xb, statistic), change)
            )  # fmt: skip
    return out


__all__ = ["MIN_RESULTS", "REQUIRED", "Verdict", "is_ab_header", "read_ab", "verdicts", "versions"]
