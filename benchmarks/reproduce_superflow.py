"""Protocol A: stopping rules on 130 serverless traces (SuperFlow, Tables 2 and 3).

Every rule replays the prefixes ``x[:n]``, ``n = 10, 15, ..., 1000``, of each
of the 65 functions' cold-start and warm-start traces; its stop point is
scored against all 1,000 runs with SuperFlow's metrics (accuracy = PT4Cloud
similarity, credibility at P25/P50/P75/P90, cost = mean stop n). The paper's
figures and those of the public reference code (measured on these files,
see ``shared/reference/ANCHORS.md``) are printed beside ours.

Usage::

    python -m benchmarks.reproduce_superflow --json a.json
    python -m benchmarks.reproduce_superflow --quick            # 26 traces, for CI
    python -m benchmarks.reproduce_superflow --interval 3 4 5 10 20   # RQ2 / RQ4
    python -m benchmarks.reproduce_superflow --error 0.05 0.04 0.03 0.02 0.01  # RQ3

The paper's sweeps, figures and side studies are subcommands, each with its
stored table, JSON and figures (the command is at the top of each file)::

    python -m benchmarks.reproduce_superflow rq1 --plot-dir benchmarks/results  # Figs. 3-4
    python -m benchmarks.reproduce_superflow rq2 --plot-dir benchmarks/results  # Figs. 5-6
    python -m benchmarks.reproduce_superflow rq3 --plot-dir benchmarks/results  # Figs. 8-10
    python -m benchmarks.reproduce_superflow rq4 --plot-dir benchmarks/results  # Figs. 11-12
    python -m benchmarks.reproduce_superflow normality      # Section 4.3's Shapiro-Wilk
    python -m benchmarks.reproduce_superflow credibility    # Table 3's P25 rows

The traces are read from ``$PERFSTATS_DATA/scope`` (default
``../shared/data/scope`` beside the repository) by ``benchmarks/_traces.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import Executor
from contextlib import ExitStack
from pathlib import Path
from typing import Any, cast

import numpy as np
from scipy import stats

# The perfstats of this checkout, not whichever one is installed (an
# editable install of another checkout would otherwise be timed).
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import STARTS, data_root, load_scope  # noqa: E402
from perfstats.replay import replay, worker_pool  # noqa: E402
from perfstats.replay.scoring import accuracy, score_distribution  # noqa: E402
from perfstats.rules import (  # noqa: E402
    CIWidth,
    Fixed,
    KSHalves,
    Metior,
    PT4Cloud,
    Rule,
    SuperFlow,
)

PERCENTILES = ("25", "50", "75", "90")
FIRST_FIVE = ("SuperFlow-1", "SuperFlow-2", "SuperFlow-3", "PT4Cloud", "Metior")

#: Tables 2 and 3 of the SuperFlow paper (000_*): accuracy and credibility, %.
PAPER: dict[tuple[str, str], dict[str, Any]] = {
    ("PT4Cloud", "cold"): {"accuracy": 51.30, "credible": (12.31, 12.31, 15.38, 21.54)},
    ("PT4Cloud", "warm"): {"accuracy": 45.97, "credible": (23.08, 9.23, 13.85, 18.46)},
    ("Metior", "cold"): {"accuracy": 61.04, "credible": (24.62, 23.08, 29.23, 18.46)},
    ("Metior", "warm"): {"accuracy": 53.58, "credible": (23.08, 24.62, 27.69, 30.77)},
    ("SuperFlow-1", "cold"): {"accuracy": 97.43, "credible": (92.31, 90.77, 90.77, 95.38)},
    ("SuperFlow-1", "warm"): {"accuracy": 97.14, "credible": (93.85, 90.77, 90.77, 92.31)},
    ("SuperFlow-2", "cold"): {"accuracy": 96.01, "credible": (80.00, 81.54, 78.46, 83.08)},
    ("SuperFlow-2", "warm"): {"accuracy": 95.68, "credible": (80.00, 80.00, 76.92, 84.62)},
    ("SuperFlow-3", "cold"): {"accuracy": 96.09, "credible": (80.00, 76.92, 78.46, 78.46)},
    ("SuperFlow-3", "warm"): {"accuracy": 95.75, "credible": (83.08, 78.46, 80.00, 84.62)},
}

#: The public reference code run with protocol A on these files (ANCHORS.md).
REFERENCE_CODE: dict[tuple[str, str], dict[str, Any]] = {
    ("SuperFlow-1", "cold"): {
        "accuracy": 97.39,
        "credible": (89.2, 93.8, 90.8, 92.3),
        "stop_n": 282.2,
    },
    ("SuperFlow-1", "warm"): {
        "accuracy": 97.12,
        "credible": (86.2, 92.3, 93.8, 89.2),
        "stop_n": 293.5,
    },
    ("PT4Cloud", "cold"): {"accuracy": 61.12, "credible": (12.3, 10.8, 18.5, 29.2), "stop_n": 12.6},
    ("PT4Cloud", "warm"): {"accuracy": 43.45, "credible": (16.9, 20.0, 18.5, 12.3), "stop_n": 12.5},
    ("Metior", "cold"): {"accuracy": 69.60, "credible": (26.2, 18.5, 23.1, 27.7), "stop_n": 28.1},
    ("Metior", "warm"): {"accuracy": 57.08, "credible": (26.2, 24.6, 24.6, 21.5), "stop_n": 30.4},
}

#: The paper's sweeps, cold starts: mean accuracy (%) at the ends of the range.
PAPER_SWEEPS = """\
Paper, cold starts (000_*, Sections 3.5, 5.3 and 5.4):
* run interval 3 -> 20 (RQ2/RQ4): PT4Cloud 45.78 -> 79.46, Metior 56.37 -> 78.93;
  SuperFlow 1 97.21 to 97.71, SuperFlow 2 93.47 to 96.96, SuperFlow 3 93.01 to 96.91
  (warm: PT4Cloud 34.60 -> 75.42, Metior 48.01 -> 74.39).
* r = 5% -> 1% (RQ3): SuperFlow 1 80.95 -> 97.43, SuperFlow 2 57.83 -> 96.01,
  SuperFlow 3 57.43 -> 96.09 (warm: 72.37 -> 97.14, 52.96 -> 95.68, 52.56 -> 95.75).
"""

NOTES = """\
Why figures differ from the paper:
* SuperFlow-1, PT4Cloud and Metior are deterministic or nearly so, and ours
  equal the public reference code's on these files (SuperFlow-1 and PT4Cloud
  to the digit). PT4Cloud's and Metior's paper figures differ from the same
  code on the same data, so that gap lies between the paper and its own
  replication package, not in our implementation.
* SuperFlow-2 and -3 (and Metior) are random: the paper reports one run.
  Accuracy moves by about a point between seeds, mostly through a few traces
  on which a lucky resample stops the test at 15-20 runs (e.g. cold Func35,
  whose first 20 runs miss its tail: similarity 0). Credibility at P75/P90
  is lower than the paper's by up to ~10 points for the same reason.
* SuperFlow-3 here uses the reference code's block scheme
  (block_kind="superflow": floor((n - b) / b) blocks from n - b starts, so
  resamples are shorter than n and intervals wider). With the rule's default
  textbook moving blocks it stops a little earlier and scores 93.3-94.2 over
  seeds 0-4, 1.8-2.6 points under the paper. Metior uses the same scheme,
  as its public artifact does: with it Metior scores 69.4 / 57.4 (cold /
  warm; reference code 69.60 / 57.08) and stops at 28.5 / 30.9 (28.1 /
  30.4); with textbook blocks, 68.5 / 54.7 at 26.1 / 29.5.
* Sets under 11 points (the first judgements) are too short for
  Politis-White; SuperFlow-3 and Metior use blocks of 1 there.
* The reasons per figure come from these studies (same script): the
  credibility rows and SuperFlow 2 and 3 over 20 seeds from `credibility`
  (superflow_credibility.txt), the sweeps of Figures 3-12 from `rq1` to `rq4`,
  the Shapiro-Wilk share of Section 4.3 from `normality`.
"""


def techniques(*, interval: int = 5, error: float = 0.01, seed: int = 0) -> dict[str, Rule]:
    """The rules of the comparison, with the papers' defaults."""

    def superflow(ci: str) -> SuperFlow:
        return SuperFlow(method=ci, error=error, interval=interval, rng=seed)

    # SHARP's rules look at every prefix on the same grid as the others;
    # their own minimum sizes (5 and 15 runs) are kept where the grid allows.
    first = 2 * interval
    return {
        "SuperFlow-1": superflow("order-normal"),
        "SuperFlow-2": superflow("bootstrap"),
        "SuperFlow-3": SuperFlow(
            method="block", block_kind="superflow", error=error, interval=interval, rng=seed
        ),
        "PT4Cloud": PT4Cloud(threshold=0.90, interval=interval),
        "Metior": Metior(
            error=0.03,
            statistic="median",
            interval=interval,
            block_kind="superflow",
            block_from="previous",  # the reference code's block length
            rng=seed,
        ),
        "SHARP-KS": KSHalves(threshold=0.1, interval=interval, min_n=first),
        "SHARP-CI-0.05": CIWidth(error=0.05, interval=interval, min_n=max(15, first)),
        "SHARP-CI-0.01": CIWidth(error=0.01, interval=interval, min_n=max(15, first)),
        "Fixed-100": Fixed(n=100),
        "SuperFlow-order": superflow("order"),
        "SuperFlow-exact-bootstrap": superflow("exact-bootstrap"),
    }


def run(
    rules: dict[str, Rule],
    data: dict[str, dict[str, np.ndarray]],
    *,
    workers: int | None = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Replay and score every rule on every start; one row per (technique, start).

    With more than one worker, every replay runs on one pool of worker
    processes started by the first replay (and counted in its seconds):
    a pool per replay spent about 50 ms starting and warming it each time,
    about a tenth of protocol A.
    """
    n_workers = (os.cpu_count() or 1) if workers is None else workers
    with ExitStack() as stack:
        pool = stack.enter_context(worker_pool(n_workers)) if n_workers > 1 else None
        return [
            _scored(name, start, rule, traces, pool, n_workers, progress)
            for name, rule in rules.items()
            for start, traces in data.items()
        ]


def _scored(
    name: str,
    start: str,
    rule: Rule,
    traces: dict[str, np.ndarray],
    pool: Executor | None,
    workers: int,
    progress: bool,
) -> dict[str, Any]:
    t0 = time.perf_counter()
    stops = replay(rule, traces, workers=workers, progress=progress, executor=pool)
    seconds = time.perf_counter() - t0
    scored = score_distribution(stops, traces, q=[0.25, 0.5, 0.75, 0.9])
    return {
        "technique": name,
        "start": start,
        "accuracy": round(100.0 * float(scored["accuracy"].mean()), 2),
        "credible": {
            p: round(100.0 * float(scored[f"credible_P{p}"].mean()), 2) for p in PERCENTILES
        },
        "mean_stop_n": round(float(scored["stop_n"].mean()), 2),
        "stopped_pct": round(100.0 * float(scored["stopped"].mean()), 2),
        "traces": len(traces),
        "seconds": round(seconds, 3),
    }


def _cell(value: float, anchor: float | None) -> str:
    return f"{value:6.2f}" + (f" ({anchor:6.2f})" if anchor is not None else " " * 9)


def table(rows: list[dict[str, Any]], *, anchors: bool = True) -> str:
    """Ours beside the paper (in parentheses) and the reference code's stop n.

    The anchors hold for the default configuration only (interval 5, r = 1%).
    """
    head = (
        f"{'technique':26} {'start':5} {'accuracy (paper)':>17} "
        + " ".join(f"{'P' + p + ' (paper)':>16}" for p in PERCENTILES)
        + f" {'stop n (ref)':>15} {'seconds':>8}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        key = (row["technique"], row["start"])
        paper = PAPER.get(key) if anchors else None
        ref = REFERENCE_CODE.get(key) if anchors else None
        cells = [_cell(row["accuracy"], paper["accuracy"] if paper else None)]
        for j, p in enumerate(PERCENTILES):
            cells.append(_cell(row["credible"][p], paper["credible"][j] if paper else None))
        stop = f"{row['mean_stop_n']:7.1f}" + (f" ({ref['stop_n']:5.1f})" if ref else " " * 8)
        lines.append(
            f"{row['technique']:26} {row['start']:5} {cells[0]:>17} "
            + " ".join(f"{c:>16}" for c in cells[1:])
            + f" {stop:>15} {row['seconds']:8.2f}"
        )
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]], *, anchors: bool = True) -> str:
    """Mean of cold and warm per technique, and the time of the first five."""
    lines = []
    for name in dict.fromkeys(r["technique"] for r in rows):
        mine = [r for r in rows if r["technique"] == name]
        acc = float(np.mean([r["accuracy"] for r in mine]))
        cred = [float(np.mean([r["credible"][p] for r in mine])) for p in PERCENTILES]
        paper = [PAPER.get((name, s)) if anchors else None for s in STARTS]
        note = ""
        if all(paper):
            pacc = float(np.mean([p["accuracy"] for p in paper if p]))
            note = f"  (paper {pacc:.2f})"
        lines.append(
            f"{name:26} mean accuracy {acc:6.2f}{note}; credible "
            + " / ".join(f"{c:.1f}" for c in cred)
        )
    first = sum(r["seconds"] for r in rows if r["technique"] in FIRST_FIVE)
    lines.append(f"protocol A, first five techniques: {first:.1f} s")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Every figure of Tables 2 and 3 beside ours, with the difference and a reason.

#: SuperFlow 2 and 3 over 20 seeds (``credibility --seeds 20``, stored in
#: superflow_credibility.txt): ``(technique, start) -> {metric: (min, max)}``,
#: accuracy in % and credibility as % of the 65 functions.
SEED_RANGES: dict[tuple[str, str], dict[str, tuple[float, float]]] = {
    ("SuperFlow-2", "cold"): {
        "accuracy": (95.63, 96.06),
        "25": (80.00, 89.23),
        "50": (83.08, 89.23),
        "75": (69.23, 76.92),
        "90": (70.77, 76.92),
    },
    ("SuperFlow-2", "warm"): {
        "accuracy": (94.15, 95.95),
        "25": (69.23, 76.92),
        "50": (78.46, 87.69),
        "75": (76.92, 81.54),
        "90": (81.54, 89.23),
    },
    ("SuperFlow-3", "cold"): {
        "accuracy": (95.21, 95.66),
        "25": (78.46, 86.15),
        "50": (76.92, 83.08),
        "75": (67.69, 75.38),
        "90": (67.69, 73.85),
    },
    ("SuperFlow-3", "warm"): {
        "accuracy": (93.22, 93.59),
        "25": (66.15, 73.85),
        "50": (75.38, 83.08),
        "75": (75.38, 81.54),
        "90": (78.46, 90.77),
    },
}

#: SuperFlow 1's credibility cells that differ from Table 3, from the
#: ``credibility`` study: can a reading of the check or stops moved by up to
#: two run intervals reach the paper's count?
SF1_REACH: dict[tuple[str, str], str] = {
    ("cold", "25"): "reached only with stops up to 2 intervals off the code's",
    ("cold", "90"): "reached only with stops up to 3 intervals off the code's",
    ("warm", "25"): "no reading of the check; needs 5 stops 1-4 intervals off",
    ("warm", "90"): "reached only with stops 1 interval off the code's",
}


def gap_reason(technique: str, start: str, metric: str, ours: float, paper: float) -> str:
    """A one-line reason for a gap at the default configuration, or "unexplained"."""
    ref = REFERENCE_CODE.get((technique, start))
    j = PERCENTILES.index(metric) if metric != "accuracy" else None
    if abs(ours - paper) < 0.005:
        return "same"
    if ref is not None:
        r = float(ref["accuracy"] if j is None else ref["credible"][j])
        base = "the paper is off its own code"
        if abs(ours - r) < 0.06:
            reason = f"ours = reference code; {base}"
        elif abs(ours - r) <= 100 * 2 / 65 + 0.01:
            reason = f"random: reference code {r:.2f} ({ours - r:+.2f}); {base}"
        else:
            return f"unexplained (reference code {r:.2f})"
        extra = SF1_REACH.get((start, metric)) if technique == "SuperFlow-1" else None
        return f"{reason}; {extra}" if extra else reason
    rng = SEED_RANGES.get((technique, start), {}).get(metric)
    if rng is not None:
        lo, hi = rng
        if lo - 0.005 <= paper <= hi + 0.005:
            return f"random: the paper's figure is within our 20 seeds' {lo:.2f}-{hi:.2f}"
        return f"unexplained: outside our 20 seeds' {lo:.2f}-{hi:.2f}"
    return "unexplained"


def paper_gaps(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The default configuration's rows beside Tables 2 and 3 (the paper's techniques)."""
    gaps = []
    for row in rows:
        paper = PAPER.get((row["technique"], row["start"]))
        if paper is None:
            continue
        for metric in ("accuracy", *PERCENTILES):
            ours = row["accuracy"] if metric == "accuracy" else row["credible"][metric]
            p = float(
                paper["accuracy"]
                if metric == "accuracy"
                else paper["credible"][PERCENTILES.index(metric)]
            )
            gaps.append(
                {
                    "technique": row["technique"],
                    "start": row["start"],
                    "metric": metric,
                    "ours": ours,
                    "paper": p,
                    "difference": round(ours - p, 2),
                    "reason": gap_reason(row["technique"], row["start"], metric, ours, p),
                }
            )
    head = f"{'technique':12} {'start':5} {'metric':6} {'ours':>7} {'paper':>7} {'diff':>7}  reason"
    lines = [head, "-" * len(head)]
    for g in gaps:
        label = "acc" if g["metric"] == "accuracy" else "P" + g["metric"]
        lines.append(
            f"{g['technique']:12} {g['start']:5} {label:6} {g['ours']:7.2f} {g['paper']:7.2f} "
            f"{g['difference']:+7.2f}  {g['reason']}"
        )
    return "\n".join(lines), gaps


# ---------------------------------------------------------------------------
# The paper's sweeps (RQ1-RQ4, Figures 3-6 and 8-12) as subcommands.

METRICS = ("accuracy", "25", "50", "75", "90")
DETERMINISTIC = ("PT4Cloud", "SuperFlow-1")

#: What the paper's text gives of each swept figure (the plots' points are
#: not in the text): ``(sweep, technique, start, value) -> {metric: %}``.
#: The default configuration's points are Tables 2 and 3.
PAPER_POINTS: dict[tuple[str, str, str, float], dict[str, float]] = {
    ("rq1", "PT4Cloud", "cold", 0.98): {
        "accuracy": 59.91,
        "25": 18.46,
        "50": 24.62,
        "75": 20.00,
        "90": 20.00,
    },
    ("rq1", "PT4Cloud", "warm", 0.98): {
        "accuracy": 53.28,
        "25": 20.00,
        "50": 13.85,
        "75": 13.85,
        "90": 24.62,
    },
    ("rq1", "Metior", "cold", 0.05): {"accuracy": 53.73, "50": 20.00},
    ("rq1", "Metior", "cold", 0.01): {"accuracy": 87.29, "50": 58.46},
    ("rq1", "Metior", "warm", 0.05): {"accuracy": 47.97, "50": 16.92},
    ("rq1", "Metior", "warm", 0.01): {"accuracy": 87.67, "50": 61.54},
    ("rq2", "PT4Cloud", "cold", 3): {"accuracy": 45.78},
    ("rq2", "PT4Cloud", "cold", 20): {"accuracy": 79.46},
    ("rq2", "PT4Cloud", "warm", 3): {"accuracy": 34.60},
    ("rq2", "PT4Cloud", "warm", 20): {"accuracy": 75.42},
    ("rq2", "Metior", "cold", 3): {"accuracy": 56.37},
    ("rq2", "Metior", "cold", 20): {"accuracy": 78.93, "50": 30.77},
    ("rq2", "Metior", "warm", 3): {"accuracy": 48.01},
    ("rq2", "Metior", "warm", 20): {"accuracy": 74.39, "50": 44.62},
    ("rq3", "SuperFlow-1", "cold", 0.05): {
        "accuracy": 80.95,
        "25": 29.23,
        "50": 32.31,
        "75": 36.92,
        "90": 36.92,
    },
    ("rq3", "SuperFlow-2", "cold", 0.05): {
        "accuracy": 57.83,
        "25": 13.85,
        "50": 32.31,
        "75": 23.08,
        "90": 20.00,
    },
    ("rq3", "SuperFlow-3", "cold", 0.05): {
        "accuracy": 57.43,
        "25": 13.85,
        "50": 33.85,
        "75": 26.15,
        "90": 20.00,
    },
    ("rq3", "SuperFlow-1", "warm", 0.05): {"accuracy": 72.37},
    ("rq3", "SuperFlow-2", "warm", 0.05): {"accuracy": 52.96},
    ("rq3", "SuperFlow-3", "warm", 0.05): {"accuracy": 52.56},
}

#: RQ4 gives ranges over intervals 3-20 (cold): ``technique -> {metric: (lo, hi)}``.
PAPER_RANGES_RQ4: dict[str, dict[str, tuple[float, float]]] = {
    "SuperFlow-1": {
        "accuracy": (97.21, 97.71),
        "25": (86.15, 92.31),
        "50": (87.69, 92.31),
        "75": (84.62, 90.77),
        "90": (89.23, 95.38),
    },
    "SuperFlow-2": {
        "accuracy": (93.47, 96.96),
        "25": (80.00, 86.15),
        "50": (78.46, 83.08),
        "75": (70.77, 81.54),
        "90": (78.46, 89.23),
    },
    "SuperFlow-3": {
        "accuracy": (93.01, 96.91),
        "25": (80.00, 86.15),
        "50": (76.92, 83.08),
        "75": (69.23, 80.00),
        "90": (76.92, 89.23),
    },
}

#: One-line reasons for the gaps of the sweeps, from the studies of this
#: script (``(sweep, technique, start, value, metric)``; ``None`` as value or
#: metric matches any). A gap with no entry prints "unexplained".
SWEEP_REASONS: dict[tuple[str, str, str | None, float | None, str | None], str] = {}


def _paper_value(sweep: str, technique: str, start: str, value: float, metric: str) -> float | None:
    point = PAPER_POINTS.get((sweep, technique, start, value))
    if point is not None and metric in point:
        return point[metric]
    table = PAPER.get((technique, start)) if _at_default(sweep, technique, value) else None
    if table is None:
        return None
    if metric == "accuracy":
        return float(table["accuracy"])
    return float(table["credible"][PERCENTILES.index(metric)])


def _at_default(sweep: str, technique: str, value: float) -> bool:
    if sweep in ("rq2", "rq4"):
        return value == 5
    if sweep == "rq3":
        return value == 0.01
    return {"PT4Cloud": 0.90, "Metior": 0.03}.get(technique) == value


def _reason(
    sweep: str,
    technique: str,
    start: str,
    value: float,
    metric: str,
    cells: list[dict[str, Any]] | None = None,
) -> str:
    for key in (
        (sweep, technique, start, value, metric),
        (sweep, technique, start, value, None),
        (sweep, technique, start, None, metric),
        (sweep, technique, None, None, metric),
        (sweep, technique, start, None, None),
        (sweep, technique, None, None, None),
    ):
        if key in SWEEP_REASONS:
            return SWEEP_REASONS[key]
    # Otherwise say how far the paper is from ours at the default point of
    # the same technique, start and metric, where the gap is explained.
    for c in cells or []:
        if (c["technique"], c["start"]) == (technique, start) and _at_default(
            sweep, technique, c["value"]
        ):
            paper = _paper_value(sweep, technique, start, c["value"], metric)
            if paper is not None:
                off = paper - c[metric]["mean"]
                return f"unexplained (paper - ours at the default: {off:+.2f})"
    return "unexplained"


def _metior(error: float, interval: int, seed: int) -> Metior:
    return Metior(
        error=error,
        statistic="median",
        interval=interval,
        block_kind="superflow",
        block_from="previous",
        rng=seed,
    )


#: ``sweep -> (figure label, parameter, values, {technique: factory(value, seed)})``.
SWEEPS: dict[str, tuple[str, str, tuple[float, ...], dict[str, Any]]] = {
    "rq1-pt4cloud": (
        "Figure 3",
        "p0",
        (0.90, 0.92, 0.94, 0.96, 0.98),
        {"PT4Cloud": lambda v, seed: PT4Cloud(threshold=v, interval=5)},
    ),
    "rq1-metior": (
        "Figure 4",
        "e0",
        (0.05, 0.04, 0.03, 0.02, 0.01),
        {"Metior": lambda v, seed: _metior(v, 5, seed)},
    ),
    "rq2": (
        "Figures 5-6",
        "interval",
        (3, 4, 5, 10, 20),
        {
            "PT4Cloud": lambda v, seed: PT4Cloud(threshold=0.90, interval=int(v)),
            "Metior": lambda v, seed: _metior(0.03, int(v), seed),
        },
    ),
    "rq3": (
        "Figures 8-10",
        "r",
        (0.05, 0.04, 0.03, 0.02, 0.01),
        {
            name: (lambda v, seed, name=name: techniques(error=v, seed=seed)[name])
            for name in ("SuperFlow-1", "SuperFlow-2", "SuperFlow-3")
        },
    ),
    "rq4": (
        "Figures 11-12",
        "interval",
        (3, 4, 5, 10, 20),
        {
            name: (lambda v, seed, name=name: techniques(interval=int(v), seed=seed)[name])
            for name in ("SuperFlow-1", "SuperFlow-2", "SuperFlow-3")
        },
    ),
}

#: The subcommand's sweeps and the paper's figure number of each technique.
SUBCOMMAND_SWEEPS = {
    "rq1": ("rq1-pt4cloud", "rq1-metior"),
    "rq2": ("rq2",),
    "rq3": ("rq3",),
    "rq4": ("rq4",),
}
FIGURE_OF = {
    ("rq1", "PT4Cloud"): 3,
    ("rq1", "Metior"): 4,
    ("rq2", "PT4Cloud"): 5,
    ("rq2", "Metior"): 6,
    ("rq3", "SuperFlow-1"): 8,
    ("rq3", "SuperFlow-2"): 9,
    ("rq3", "SuperFlow-3"): 10,
    ("rq4", "SuperFlow-1"): 11,
    ("rq4", "SuperFlow-2"): 12,
}


def sweep_rows(
    subcommand: str,
    data: dict[str, dict[str, np.ndarray]],
    *,
    seeds: Sequence[int] = (0, 1, 2),
    names: Sequence[str] | None = None,
    values: Sequence[float] | None = None,
    workers: int = 1,
    partial: Path | None = None,
) -> list[dict[str, Any]]:
    """One row per (technique, value, seed, start); random rules over ``seeds``.

    With ``partial``, the rows so far are written there after every cell, so
    that a long sweep run in the background can be read while it runs.
    """
    rows: list[dict[str, Any]] = []
    for key in SUBCOMMAND_SWEEPS[subcommand]:
        _, param, grid, factories = SWEEPS[key]
        for name, factory in factories.items():
            if names and name not in names:
                continue
            for value in values if values is not None else grid:
                for seed in seeds[:1] if name in DETERMINISTIC else seeds:
                    block = run({name: factory(value, seed)}, data, workers=workers)
                    for row in block:
                        row.update({"param": param, "value": value, "seed": seed})
                    rows.extend(block)
                    if partial is not None:
                        partial.write_text(json.dumps({"partial": True, "rows": rows}, indent=1))
    return rows


def aggregate(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean, min and max over seeds per (technique, param, value, start)."""
    groups: dict[tuple[str, str, float, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["technique"], r["param"], r["value"], r["start"]), []).append(r)
    out = []
    for (name, param, value, start), rs in groups.items():
        cell: dict[str, Any] = {
            "technique": name,
            "param": param,
            "value": value,
            "start": start,
            "seeds": [r["seed"] for r in rs],
            "mean_stop_n": round(float(np.mean([r["mean_stop_n"] for r in rs])), 1),
        }
        for m in METRICS:
            v = [r["accuracy"] if m == "accuracy" else r["credible"][m] for r in rs]
            cell[m] = {"mean": round(float(np.mean(v)), 2), "min": min(v), "max": max(v)}
        out.append(cell)
    return out


def _fmt_value(param: str, value: float) -> str:
    return f"{int(value)}" if param == "interval" else f"{100 * value:g}%"


def sweep_table(subcommand: str, cells: list[dict[str, Any]]) -> str:
    """Ours (mean over seeds, [min-max]) per value; the paper's figure where its text gives one."""
    lines = []
    head = (
        f"{'technique':12} {'start':5} {'param':>9} "
        + " ".join(f"{('acc' if m == 'accuracy' else 'P' + m):>20}" for m in METRICS)
        + f" {'stop n':>7}"
    )
    lines += [head, "-" * len(head)]
    for c in cells:
        parts = []
        for m in METRICS:
            s = c[m]
            txt = f"{s['mean']:.2f}"
            if s["min"] != s["max"]:
                txt += f" [{s['min']:.1f}-{s['max']:.1f}]"
            parts.append(f"{txt:>20}")
        lines.append(
            f"{c['technique']:12} {c['start']:5} "
            f"{c['param'] + '=' + _fmt_value(c['param'], c['value']):>9} "
            + " ".join(parts)
            + f" {c['mean_stop_n']:7.1f}"
        )
    return "\n".join(lines)


def sweep_gaps(subcommand: str, cells: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Every figure the paper's text gives, ours beside it, the difference and the reason."""
    gaps = []
    for c in cells:
        for m in METRICS:
            paper = _paper_value(subcommand, c["technique"], c["start"], c["value"], m)
            if paper is None:
                continue
            s = c[m]
            inside = s["min"] <= paper <= s["max"]
            default = _at_default(subcommand, c["technique"], c["value"])
            gaps.append(
                {
                    "technique": c["technique"],
                    "start": c["start"],
                    "param": c["param"],
                    "value": c["value"],
                    "metric": m,
                    "ours": s["mean"],
                    "ours_min": s["min"],
                    "ours_max": s["max"],
                    "paper": paper,
                    "difference": round(s["mean"] - paper, 2),
                    "reason": (
                        gap_reason(c["technique"], c["start"], m, s["mean"], paper)
                        if default and (c["technique"], c["start"]) in REFERENCE_CODE
                        else "random: the paper's figure is within our seeds' range"
                        if inside and s["min"] != s["max"]
                        else f"unexplained: outside our {len(c['seeds'])} seeds' range "
                        "(Table 3 over 20 seeds: superflow_credibility.txt)"
                        if default
                        else _reason(subcommand, c["technique"], c["start"], c["value"], m, cells)
                    ),
                }
            )
    head = (
        f"{'technique':12} {'start':5} {'param':>9} {'metric':8} {'ours':>7} {'paper':>7} "
        f"{'diff':>7}  reason"
    )
    lines = [head, "-" * len(head)]
    for g in gaps:
        lines.append(
            f"{g['technique']:12} {g['start']:5} "
            f"{g['param'] + '=' + _fmt_value(g['param'], g['value']):>9} "
            f"{('acc' if g['metric'] == 'accuracy' else 'P' + g['metric']):8} "
            f"{g['ours']:7.2f} {g['paper']:7.2f} {g['difference']:+7.2f}  {g['reason']}"
        )
    if subcommand == "rq4":
        lines.append("")
        lines.append("RQ4 gives ranges over intervals 3-20 (cold starts):")
        lines.append(
            f"{'technique':12} {'metric':8} {'ours range':>15} {'paper range':>15} "
            f"{'diff lo/hi':>13}  reason"
        )
        for name, ranges in PAPER_RANGES_RQ4.items():
            mine = [c for c in cells if c["technique"] == name and c["start"] == "cold"]
            if not mine:
                continue
            for m, (plo, phi) in ranges.items():
                lo = min(c[m]["mean"] for c in mine)
                hi = max(c[m]["mean"] for c in mine)
                label = "acc" if m == "accuracy" else "P" + m
                lowest = mine[int(np.argmin([c[m]["mean"] for c in mine]))]
                if plo - 0.005 <= lo and hi <= phi + 0.005:
                    why = "within the paper's range"
                else:
                    why = (
                        "unexplained (the text gives the range only); our lowest at "
                        f"interval {int(lowest['value'])}"
                    )
                lines.append(
                    f"{name:12} {label:8} {f'{lo:.2f}-{hi:.2f}':>15} "
                    f"{f'{plo:.2f}-{phi:.2f}':>15} {f'{lo - plo:+.2f}/{hi - phi:+.2f}':>13}  {why}"
                )
    return "\n".join(lines), gaps


def sweep_figures(subcommand: str, cells: list[dict[str, Any]], folder: Path) -> list[Path]:
    """One PNG per technique: ours (mean, seed range shaded) and the paper's points, cold | warm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for name in dict.fromkeys(c["technique"] for c in cells):
        mine = [c for c in cells if c["technique"] == name]
        param = mine[0]["param"]
        fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
        for ax, start in zip(axes, STARTS, strict=True):
            cs = sorted((c for c in mine if c["start"] == start), key=lambda c: c["value"])
            if param != "interval" and cs:
                cs = cs[::-1]  # stricter to the right, as the paper draws them
            xs = list(range(len(cs)))
            for k, m in enumerate(METRICS):
                label = "accuracy" if m == "accuracy" else f"credible P{m}"
                mean = [c[m]["mean"] for c in cs]
                ax.plot(xs, mean, marker="o", color=f"C{k}", label=label)
                lo = [c[m]["min"] for c in cs]
                hi = [c[m]["max"] for c in cs]
                if lo != hi:
                    ax.fill_between(xs, lo, hi, color=f"C{k}", alpha=0.15)
                pts = [
                    (x, _paper_value(subcommand, name, start, c["value"], m))
                    for x, c in zip(xs, cs, strict=True)
                ]
                pts = [(x, p) for x, p in pts if p is not None]
                if pts:
                    ax.scatter(
                        [x for x, _ in pts],
                        [p for _, p in pts],
                        marker="x",
                        s=60,
                        color=f"C{k}",
                        label=None,
                    )
            ax.set_xticks(xs, [_fmt_value(param, c["value"]) for c in cs])
            ax.set_xlabel(param)
            ax.set_title(f"{name}, {start} starts")
            ax.set_ylim(0, 100)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("% (mean accuracy; % of functions credible)")
        axes[1].legend(
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize=8,
            title="lines: ours (band: seeds)\nx: the paper's text",
        )
        figure = FIGURE_OF.get((subcommand, name))
        fig.suptitle(
            f"SuperFlow paper {subcommand.upper()}"
            + (f", Figure {figure}" if figure else " (no figure in the paper)")
            + f": {name} by {param} (65 functions)"
        )
        fig.tight_layout()
        slug = name.lower().replace("-", "")
        path = folder / f"superflow_{subcommand}_{slug}_{param}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


_COLD_PATTERN = """\
* A pattern across the sweeps that the data here do not explain: where the
  rules stop early (tens of runs), the paper's cold-start accuracies lie 3 to
  10 points below ours for every rule (PT4Cloud at p0 90% -9.8, Metior at e0
  3% -8.5 and at 5% -8.7, SuperFlow 1 / 2 / 3 at r 5% -3.2 / -7.7 / -6.7),
  its warm-start ones within 2.5 points (Metior at e0 3% +4.0 the
  exception). At the defaults our PT4Cloud and SuperFlow 1 equal the public
  reference code's figures on these files to the digit, so the paper's cold
  figures are below its own code's on the published traces: the cold traces
  behind the paper probably differ in their early runs from the published
  ones (the SCOPE repository holds two invocation scripts and three versions
  of its data file). The gaps are marked "unexplained" below the default.
"""

#: Notes printed under each sweep's table: what the gaps come from.
SWEEP_NOTES: dict[str, str] = {
    "rq1": """\
What Figures 3 and 4 show here:
* PT4Cloud (Figure 3) is deterministic: at p0 90% ours equals the reference
  code. From p0 90% to 98% our accuracy rises 61.1 -> 66.6 (cold) and
  43.5 -> 51.5 (warm), the paper's 51.30 -> 59.91 and 45.97 -> 53.28: a rise
  of the same size from another start, and credibility stays under a third
  of the functions at every p0, as in the paper.
* Metior (Figure 4), over three seeds: 62.4 -> 90.6 (cold) and 47.0 -> 86.9
  (warm) from e0 5% to 1%, the paper's 53.73 -> 87.29 and 47.97 -> 87.67.
  Warm agrees within a point at both ends; cold is 3.3 to 8.7 above, as at
  e0 3% where ours is within 0.05 of the reference code (69.56 / 69.60).
  The paper's finding holds: even at 1% Metior stays near or under 90%.
"""
    + _COLD_PATTERN,
    "rq2": """\
What Figures 5 and 6 show here:
* Intervals 3 -> 20: PT4Cloud 51.2 -> 82.0 (cold) and 36.9 -> 70.0 (warm),
  the paper's 45.78 -> 79.46 and 34.60 -> 75.42; Metior 61.5 -> 83.1 and
  47.7 -> 70.7, the paper's 56.37 -> 78.93 and 48.01 -> 74.39. The same
  monotone rise and the same conclusion (no interval brings either above
  about 83%); the ends differ by up to 5.5 points, unexplained.
"""
    + _COLD_PATTERN,
    "rq3": """\
What Figures 8 to 10 show here:
* From r 5% to 1% SuperFlow 1 rises 84.2 -> 97.4 (cold) and 70.6 -> 97.1
  (warm), the paper's 80.95 -> 97.43 and 72.37 -> 97.14; SuperFlow 2 and 3
  rise from about 65 (cold) and 53 (warm) to 94-96, the paper's 57.8 / 57.4
  and 53.0 / 52.6 to 95.7-96.1. The warm ends agree within 1.8 points; at r
  1% the gaps are those of Table 3 (reason per row).
"""
    + _COLD_PATTERN,
    "rq4": """\
What Figures 11 and 12 show here:
* SuperFlow's accuracy barely moves from interval 3 to 20 (ranges below),
  as in the paper; SuperFlow 1's credibility range is the paper's within
  a few points. At interval 5 the gaps are those of Table 3.
""",
}


def _emit(lines: list[str], out: Path | None) -> None:
    text = "\n".join(lines).rstrip() + "\n"
    print(text, end="")
    if out is not None:
        out.write_text(text)


def command_line(argv: Sequence[str]) -> str:
    return "python -m benchmarks.reproduce_superflow " + " ".join(argv)


def sweep_main(subcommand: str, argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=f"reproduce_superflow {subcommand}",
        description=f"The SuperFlow paper's {subcommand.upper()} sweep ("
        + ", ".join(SWEEPS[k][0] for k in SUBCOMMAND_SWEEPS[subcommand])
        + ").",
    )
    parser.add_argument("--json", type=Path, help="write the rows here (also while running)")
    parser.add_argument("--plot-dir", type=Path, help="write the figures (PNG) to this folder")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        help="seeds of the random rules (deterministic ones run once)",
    )
    parser.add_argument("--techniques", nargs="+", help="subset of the sweep's techniques")
    parser.add_argument("--values", type=float, nargs="+", help="subset of the swept values")
    parser.add_argument("--every", type=int, default=1, help="every n-th function only")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--out", type=Path, help="also write the text to this file")
    args = parser.parse_args(argv)
    data = load_scope(data_root(), every=args.every)
    t0 = time.perf_counter()
    rows = sweep_rows(
        subcommand,
        data,
        seeds=args.seeds,
        names=args.techniques,
        values=args.values,
        workers=args.workers,
        partial=args.json,
    )
    cells = aggregate(rows)
    out = [f"# command: {command_line([subcommand, *argv])}", ""]
    out.append(
        f"{subcommand.upper()}: {len(data['cold'])} functions x cold/warm; random rules "
        f"(Metior, SuperFlow-2, -3) over seeds {', '.join(map(str, args.seeds))}: mean "
        "[min-max]; deterministic ones (PT4Cloud, SuperFlow-1) once."
    )
    out.append(sweep_table(subcommand, cells))
    text, gaps = sweep_gaps(subcommand, cells)
    out += [
        "",
        "The paper's figures (its text; the plots' other points are not given) beside ours:",
        text,
        "",
        SWEEP_NOTES.get(subcommand, ""),
        f"{len(rows)} replays in {time.perf_counter() - t0:.0f} s",
    ]
    figures: list[Path] = []
    if args.plot_dir:
        args.plot_dir.mkdir(parents=True, exist_ok=True)
        figures = sweep_figures(subcommand, cells, args.plot_dir)
        out += [f"figure: {path}" for path in figures]
    _emit(out, args.out)
    if args.json:
        payload = {
            "command": command_line([subcommand, *argv]),
            "seeds": args.seeds,
            "every": args.every,
            "cells": cells,
            "gaps": gaps,
            "rows": rows,
            "figures": [str(p) for p in figures],
        }
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


# ---------------------------------------------------------------------------
# Section 4.3's normality study (Shapiro-Wilk on 50 runs).

#: Section 4.3: "over 90%" of the functions reject normality on 50 runs, cold and warm.
PAPER_NORMALITY_PCT = 90.0


def _rejects(x: np.ndarray, alpha: float) -> bool:
    return bool(stats.shapiro(x).pvalue < alpha)


def normality_study(
    data: dict[str, dict[str, np.ndarray]],
    *,
    alpha: float = 0.05,
    window: int = 50,
    draws: int = 200,
    seed: int = 0,
) -> dict[str, Any]:
    """Share of functions whose runs reject normality, read in the ways the paper may have.

    Per start: the first ``window`` runs; each of the ``1000 / window``
    consecutive windows; rejection in at least one window; longer prefixes;
    other levels; a log transform; the runs rounded to 1 and 10 ms (ties);
    and ``draws`` i.i.d. subsamples of ``window`` runs per function (the
    test's power at this size on the function's whole distribution, time
    order removed).
    """
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for start, traces in data.items():
        names = list(traces)
        X = [traces[k] for k in names]
        n_win = min(len(x) for x in X) // window

        def pct(flags: Sequence[bool]) -> float:
            return round(100.0 * float(np.mean(flags)), 2)

        windows = [
            [_rejects(x[i * window : (i + 1) * window], alpha) for x in X] for i in range(n_win)
        ]
        first = windows[0]
        per_function = np.mean(np.array(windows, dtype=float), axis=0)
        iid = [
            float(
                np.mean(
                    [
                        _rejects(rng.choice(x, size=window, replace=False), alpha)
                        for _ in range(draws)
                    ]
                )
            )
            for x in X
        ]
        keep = [
            {
                "function": names[i],
                "cv_pct": round(100 * float(np.std(X[i][:window]) / np.mean(X[i][:window])), 2),
                "skew_first": round(float(stats.skew(X[i][:window])), 2),
                "p_first": round(float(stats.shapiro(X[i][:window]).pvalue), 3),
                "windows_rejected": int(round(per_function[i] * n_win)),
                "iid_power_pct": round(100 * iid[i], 1),
            }
            for i in range(len(X))
            if not first[i]
        ]
        out[start] = {
            "functions": len(X),
            "first_window_pct": pct(first),
            "first_window_count": int(sum(first)),
            "windows_pct": [pct(w) for w in windows],
            "any_window_pct": pct([any(w[i] for w in windows) for i in range(len(X))]),
            "majority_of_windows_pct": pct([per_function[i] > 0.5 for i in range(len(X))]),
            "prefix_pct": {
                n: pct([_rejects(x[:n], alpha) for x in X]) for n in (20, 30, 50, 100, 200, 1000)
            },
            "alpha_pct": {a: pct([_rejects(x[:window], a) for x in X]) for a in (0.01, 0.05, 0.10)},
            "log_first_window_pct": pct([_rejects(np.log(x[:window]), alpha) for x in X]),
            "rounded_first_window_pct": {
                r: pct([_rejects(np.round(x[:window] / r) * r, alpha) for x in X]) for r in (1, 10)
            },
            "distinct_values_min": int(min(len(np.unique(x)) for x in X)),
            "iid_expected_pct": round(100.0 * float(np.mean(iid)), 2),
            "not_rejected_first_window": keep,
            "first_flags": first,
        }
    cold, warm = data.get("cold"), data.get("warm")
    if cold is not None and warm is not None:
        both = [
            out["cold"]["first_flags"][i] or out["warm"]["first_flags"][i] for i in range(len(cold))
        ]
        out["either_start_first_window_pct"] = round(100.0 * float(np.mean(both)), 2)
    return out


def normality_report(study: dict[str, Any], *, alpha: float, window: int) -> list[str]:
    lines = [
        f"Shapiro-Wilk (scipy.stats.shapiro) at alpha {alpha:g} on {window}-run windows; "
        f"% of functions rejecting normality. Paper (Section 4.3): over "
        f"{PAPER_NORMALITY_PCT:.0f}% on 50 runs, cold and warm.",
        "",
        f"{'reading':50} {'cold':>6} {'warm':>6} {'paper':>6} {'diff':>7}  reason",
    ]
    starts = [s for s in STARTS if s in study]
    near_normal = "a fifth of the functions are near-normal at 50 runs"

    def row(label: str, values: list[float], why: str) -> None:
        cells = " ".join(f"{v:6.2f}" for v in values) + " " * 7 * (2 - len(values))
        paper = PAPER_NORMALITY_PCT
        diff = min(values) - paper
        reason = "reaches the paper's share: " + why if diff > 0 else why
        lines.append(f"{label:50} {cells} {'>' + format(paper, '.0f'):>6} {diff:+7.2f}  {reason}")

    row(f"first {window} runs", [study[s]["first_window_pct"] for s in starts], near_normal)
    w = {s: study[s]["windows_pct"] for s in starts}
    row(
        f"{len(w[starts[0]])} consecutive {window}-run windows: min",
        [min(w[s]) for s in starts],
        near_normal,
    )
    row("  median", [float(np.median(w[s])) for s in starts], near_normal)
    row("  max", [max(w[s]) for s in starts], near_normal)
    row(
        "rejects in at least one window",
        [study[s]["any_window_pct"] for s in starts],
        "20 tests a function (a normal one: 64%)",
    )
    row(
        "rejects in most windows",
        [study[s]["majority_of_windows_pct"] for s in starts],
        near_normal,
    )
    for n, _ in study[starts[0]]["prefix_pct"].items():
        row(
            f"first {n} runs",
            [study[s]["prefix_pct"][n] for s in starts],
            "fewer runs see less"
            if n < window
            else "more runs see small departures"
            if n > window
            else near_normal,
        )
    for a in study[starts[0]]["alpha_pct"]:
        row(
            f"first {window} runs at alpha {a:g}",
            [study[s]["alpha_pct"][a] for s in starts],
            "the level moves it by a few points only",
        )
    row(
        f"first {window} runs, log of the latency",
        [study[s]["log_first_window_pct"] for s in starts],
        "not a skewness a log removes",
    )
    for r in study[starts[0]]["rounded_first_window_pct"]:
        row(
            f"first {window} runs rounded to {r} ms",
            [study[s]["rounded_first_window_pct"][r] for s in starts],
            "no ties in the trace; rounding changes nothing",
        )
    row(
        f"{window} runs drawn i.i.d. from all 1,000 (expected)",
        [study[s]["iid_expected_pct"] for s in starts],
        "time order plays no part",
    )
    if "either_start_first_window_pct" in study:
        row(
            f"first {window} runs, one verdict over cold and warm",
            [study["either_start_first_window_pct"]],
            "a function counted once if either start rejects",
        )
    lines.append(
        "distinct values per function (min over functions): "
        + ", ".join(f"{s} {study[s]['distinct_values_min']}" for s in starts)
    )
    for s in starts:
        lines += ["", f"{s}: functions whose first {window} runs do not reject normality"]
        lines.append(
            f"  {'function':10} {'p':>6} {'CV %':>6} {'skew':>6} {'windows rejecting':>18} "
            f"{'i.i.d. power %':>15}"
        )
        for k in study[s]["not_rejected_first_window"]:
            lines.append(
                f"  {k['function']:10} {k['p_first']:6.3f} {k['cv_pct']:6.2f} "
                f"{k['skew_first']:6.2f} "
                f"{str(k['windows_rejected']) + ' of ' + str(len(study[s]['windows_pct'])):>18} "
                f"{k['iid_power_pct']:15.1f}"
            )
    return lines


def normality_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="reproduce_superflow normality",
        description="Section 4.3's Shapiro-Wilk study on the SCOPE traces.",
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--draws", type=int, default=200, help="i.i.d. subsamples per function")
    parser.add_argument("--every", type=int, default=1, help="every n-th function only")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--out", type=Path, help="also write the text to this file")
    args = parser.parse_args(argv)
    data = load_scope(data_root(), every=args.every)
    study = normality_study(data, alpha=args.alpha, window=args.window, draws=args.draws)
    lines = [f"# command: {command_line(['normality', *argv])}", ""]
    lines += normality_report(study, alpha=args.alpha, window=args.window)
    lines += ["", NORMALITY_NOTES]
    _emit(lines, args.out)
    if args.json:
        payload = {
            "command": command_line(["normality", *argv]),
            "alpha": args.alpha,
            "window": args.window,
            "study": study,
        }
        args.json.write_text(json.dumps(payload, indent=1, default=str))
    return 0


NORMALITY_NOTES = """\
Why the share is lower than the paper's (Section 4.3: over 90% on 50 runs):
* Not ties or rounding: every function has at least 983 distinct values of
  its 1,000 (microsecond resolution), and rounding to 1 or 10 ms leaves the
  share unchanged.
* Not the window or the time order: each of the 20 consecutive 50-run
  windows gives 69-82% (the SCOPE invocation scripts call each function 50
  times per pass, so a window is one pass of collection), and 50 runs drawn
  i.i.d. from all 1,000 give 77% (cold) and 74% (warm) on average.
* Not the level, nor cold against warm: at alpha 0.10 81.5% / 78.5%; the
  first 50 runs reject for 51 of 65 functions in both starts.
* The data: about a fifth of the functions are close to normal at this size
  (CV of 0.8-8%, |skew| under 0.65). Some (cold Func4, Func17, Func18; warm
  Func1, Func5, Func16, Func42, Func52) reject in at most 3 of the 20
  windows and in 2.5-12.5% of i.i.d. draws, near the 5% a normal sample
  gives: their departure from normality is too small for 50 runs to see,
  though at 1,000 runs 100% (cold) and 98.5% (warm) of the functions reject.
* Readings that reach "over 90%": one verdict per function over both starts
  (92.3%), the first 200 runs (95.4% / 92.3%), or any of the 20 windows
  (100%, inflated by testing 20 times: a normal sample rejects somewhere with
  probability 1 - 0.95^20 = 64%). None of the one-window, one-start readings
  the paper's wording describes reaches 90% on these traces: with the
  published data the paper's figure is unexplained; the likeliest readings
  are one verdict per function over both starts or more than 50 runs.
"""


# ---------------------------------------------------------------------------
# Table 3's credibility rows: can the paper's P25 figures be reached?

Q_CRED = (0.25, 0.5, 0.75, 0.9)

#: Table 3's credible counts (of 65) per start, P25 / P50 / P75 / P90.
PAPER_COUNTS = {
    ("SuperFlow-1", "cold"): (60, 59, 59, 62),
    ("SuperFlow-1", "warm"): (61, 59, 59, 60),
    ("SuperFlow-2", "cold"): (52, 53, 51, 54),
    ("SuperFlow-2", "warm"): (52, 52, 50, 55),
    ("SuperFlow-3", "cold"): (52, 50, 51, 51),
    ("SuperFlow-3", "warm"): (54, 51, 52, 55),
}


def truth_interval(
    truth: np.ndarray, q: float, *, z: float = 1.96, offset: int = 0, rounding: str = "rint"
) -> tuple[float, float]:
    """The evaluation's order-statistic interval of the q-quantile of ``truth``.

    Ranks ``n q -/+ z sqrt(n q (1 - q))`` (the upper one plus 1), rounded by
    ``rounding`` ("rint", or "outward": floor and ceil), shifted by ``offset``
    (-1 reads them as 1-based ranks), into the sorted sample.
    """
    n = truth.size
    half = z * np.sqrt(n * q * (1 - q))
    if rounding == "rint":
        lo, hi = int(np.rint(n * q - half)), int(np.rint(1 + n * q + half))
    else:
        lo, hi = int(np.floor(n * q - half)), int(np.ceil(1 + n * q + half))
    s = np.sort(truth)
    lo, hi = min(max(lo + offset, 0), n - 1), min(max(hi + offset, 0), n - 1)
    return float(s[lo]), float(s[hi])


#: Readings of the credibility check: name -> (result slice, estimate, interval, strict).
#: The first is the public reference code's (ANCHORS.md; SuperFlow's evaluation).
CRED_VARIANTS: dict[str, dict[str, Any]] = {
    "reference (x[:stop], linear, rint ranks, strict)": {},
    "bounds inclusive": {"strict": False},
    "1-based ranks (one lower)": {"offset": -1},
    "ranks rounded outward": {"rounding": "outward"},
    "99% truth interval (z 2.58)": {"z": 2.58},
    "percentile 'lower'": {"method": "lower"},
    "percentile 'higher'": {"method": "higher"},
    "percentile 'nearest'": {"method": "nearest"},
    "percentile 'median_unbiased'": {"method": "median_unbiased"},
    "percentile 'weibull'": {"method": "weibull"},
    "S_pre = x[:stop - interval]": {"shift": -1},
    "one interval later, x[:stop + interval]": {"shift": 1},
    "truth = the runs after the stop": {"unseen": True},
}


def credible_counts(
    traces: dict[str, np.ndarray],
    stops: dict[str, int],
    *,
    interval: int = 5,
    method: str = "linear",
    strict: bool = True,
    z: float = 1.96,
    offset: int = 0,
    rounding: str = "rint",
    shift: int = 0,
    unseen: bool = False,
) -> tuple[list[int], dict[str, tuple[bool, ...]]]:
    """Credible counts per quantile of Q_CRED and the verdicts per trace, under one reading."""
    verdicts = {}
    for name, x in traces.items():
        n = int(np.clip(stops[name] + shift * interval, 2, x.size))
        est = np.quantile(x[:n], Q_CRED, method=cast(Any, method))
        truth = x[n:] if unseen and x.size - n >= 20 else x
        flags = []
        for q, e in zip(Q_CRED, est, strict=True):
            lo, hi = truth_interval(truth, q, z=z, offset=offset, rounding=rounding)
            flags.append(bool(lo < e < hi) if strict else bool(lo <= e <= hi))
        verdicts[name] = tuple(flags)
    counts = [sum(v[j] for v in verdicts.values()) for j in range(len(Q_CRED))]
    return counts, verdicts


def _stops_of(rule: Rule, traces: dict[str, np.ndarray]) -> dict[str, int]:
    frame = replay(rule, traces, workers=1, progress=False)
    return {str(t): int(n) for t, n in zip(frame["trace"], frame["stop_n"], strict=True)}


def rank_margin(x: np.ndarray, n: int, q: float) -> int:
    """How many ground-truth ranks the estimate at ``n`` lies outside the interval (0 inside)."""
    e = float(np.quantile(x[:n], q))
    size = x.size
    half = 1.96 * np.sqrt(size * q * (1 - q))
    lo, hi = int(np.rint(size * q - half)), int(np.rint(1 + size * q + half))
    rank = int(np.searchsorted(np.sort(x), e))
    if lo < rank <= hi:
        return 0
    return rank - hi if rank > hi else rank - lo


def nearest_credible(x: np.ndarray, n: int, q: float, interval: int = 5) -> int | None:
    """The smallest move of the stop, in runs on the rule's grid, to a credible ``x[:stop]``."""
    lo, hi = truth_interval(x, q)
    grid = np.arange(2 * interval, x.size + 1, interval)
    ok = [int(m) - n for m in grid if lo < float(np.quantile(x[: int(m)], q)) < hi]
    return min(ok, key=abs) if ok else None


def credibility_study(
    data: dict[str, dict[str, np.ndarray]], *, seeds: Sequence[int] = tuple(range(20))
) -> dict[str, Any]:
    """SuperFlow 1's readings and stop neighbours; SuperFlow 2 and 3 over seeds."""
    out: dict[str, Any] = {"variants": {}, "neighbours": {}, "margins": {}, "seeds": {}}
    sf1 = techniques()["SuperFlow-1"]
    for start, traces in data.items():
        stops = _stops_of(sf1, traces)
        for label, options in CRED_VARIANTS.items():
            counts, _ = credible_counts(traces, stops, **options)
            out["variants"].setdefault(label, {})[start] = counts
        # Each function's verdict with its stop moved by -2..+2 intervals: how
        # many functions' stops must move for the paper's counts.
        moved = {k: credible_counts(traces, stops, shift=k)[1] for k in range(-4, 5)}
        need = []
        for j in range(len(Q_CRED)):
            base = sum(moved[0][t][j] for t in traces)
            # reachable[m-1]: best count with every stop free to move by up
            # to m intervals either way.
            reachable = [
                base
                + sum(
                    1
                    for t in traces
                    if not moved[0][t][j] and any(moved[k][t][j] for k in range(-m, m + 1))
                )
                for m in range(1, 5)
            ]
            need.append({"ours": base, "reachable_within_intervals": reachable})
        out["neighbours"][start] = need
        out["margins"][start] = {
            f"P{int(100 * q)}": {
                t: [rank_margin(traces[t], stops[t], q), nearest_credible(traces[t], stops[t], q)]
                for t in traces
                if rank_margin(traces[t], stops[t], q) != 0
            }
            for q in Q_CRED
        }
    for start, traces in data.items():
        # SuperFlow 3's first seed under the same readings, and where it
        # stops against SuperFlow 1 on the functions whose P25 only SF1 gets.
        sf1_stops = _stops_of(sf1, traces)
        sf3_stops = _stops_of(techniques(seed=0)["SuperFlow-3"], traces)
        _, v1 = credible_counts(traces, sf1_stops)
        _, v3 = credible_counts(traces, sf3_stops)
        out.setdefault("superflow3_seed0", {})[start] = {
            "variants_p25": {
                label: credible_counts(traces, sf3_stops, **options)[0][0]
                for label, options in CRED_VARIANTS.items()
            },
            "earlier_than_sf1": sum(sf3_stops[t] < sf1_stops[t] for t in traces),
            "mean_stop_sf3": round(float(np.mean(list(sf3_stops.values()))), 1),
            "mean_stop_sf1": round(float(np.mean(list(sf1_stops.values()))), 1),
            "p25_lost_vs_sf1": {
                t: [sf3_stops[t], sf1_stops[t]] for t in traces if v1[t][0] and not v3[t][0]
            },
        }
    for name in ("SuperFlow-2", "SuperFlow-3"):
        for start, traces in data.items():
            per_seed: list[list[int]] = []
            acc: list[float] = []
            for seed in seeds:
                stops = _stops_of(techniques(seed=seed)[name], traces)
                per_seed.append(credible_counts(traces, stops)[0])
                acc.append(
                    round(
                        100
                        * float(
                            np.mean([accuracy(traces[t][: stops[t]], traces[t]) for t in traces])
                        ),
                        2,
                    )
                )
            out["seeds"].setdefault(name, {})[start] = per_seed
            out["seed_accuracy"] = out.get("seed_accuracy", {})
            out["seed_accuracy"].setdefault(name, {})[start] = acc
    return out


def credibility_report(study: dict[str, Any], n_functions: int) -> list[str]:
    lines = [
        "SuperFlow 1 (deterministic: one stop per function, ours = the reference code's):",
        "credible functions of " + str(n_functions) + " under readings of the check",
        f"{'reading':44} {'cold P25/P50/P75/P90':>22} {'warm P25/P50/P75/P90':>22} {'= paper':>8}",
    ]
    paper = {s: PAPER_COUNTS[("SuperFlow-1", s)] for s in STARTS}
    for label, by_start in study["variants"].items():
        cells = ["/".join(f"{c:2d}" for c in by_start[s]) for s in STARTS if s in by_start]
        hits = sum(
            int(c == p)
            for s in STARTS
            if s in by_start
            for c, p in zip(by_start[s], paper[s], strict=True)
        )
        lines.append(f"{label:44} {cells[0]:>22} {cells[-1]:>22} {hits:>5} of 8")
    lines.append(
        f"{'paper (Table 3)':44} {'/'.join(f'{c:2d}' for c in paper['cold']):>22} "
        f"{'/'.join(f'{c:2d}' for c in paper['warm']):>22}"
    )
    lines += [
        "",
        "Stops moved by up to 1, 2, 3, 4 run intervals (each function's best, so an",
        "upper bound):",
    ]
    for s in STARTS:
        if s not in study["neighbours"]:
            continue
        for j, q in enumerate(Q_CRED):
            nb = study["neighbours"][s][j]
            lines.append(
                f"  {s} P{int(100 * q)}: ours {nb['ours']}, paper {paper[s][j]}; at most "
                + ", ".join(
                    f"{c} (+/-{m})" for m, c in enumerate(nb["reachable_within_intervals"], 1)
                )
            )
    lines += [
        "",
        "Functions not credible: by how many ground-truth ranks the estimate misses the",
        "interval, and (in parentheses) the nearest stop on the grid that is credible:",
    ]
    for s in STARTS:
        for label, missed in study["margins"].get(s, {}).items():
            items = ", ".join(
                f"{t} {m:+d} ({'never' if d is None else f'{d:+d} runs'})"
                for t, (m, d) in missed.items()
            )
            lines.append(f"  {s} {label}: {items}")
    for s, sf3 in study.get("superflow3_seed0", {}).items():
        lines += [
            "",
            f"SuperFlow 3 (seed 0), {s}: credible P25 under the readings above "
            f"(paper {PAPER_COUNTS[('SuperFlow-3', s)][0]}):",
        ]
        lines.append("  " + "; ".join(f"{label} {c}" for label, c in sf3["variants_p25"].items()))
        lost = ", ".join(f"{t} {a}/{b}" for t, (a, b) in sf3["p25_lost_vs_sf1"].items())
        lines.append(
            f"  stops before SuperFlow 1's on {sf3['earlier_than_sf1']} functions (mean stop "
            f"{sf3['mean_stop_sf3']} against {sf3['mean_stop_sf1']}); P25 credible with "
            f"SuperFlow 1 but not SuperFlow 3 (stop SF3/SF1): {lost}"
        )
    lines += ["", "SuperFlow 2 and 3 over seeds (credible functions; paper's count beside):"]
    for name, by_start in study["seeds"].items():
        for s, counts in by_start.items():
            if not counts:
                continue
            acc = study["seed_accuracy"][name][s]
            pacc = PAPER[(name, s)]["accuracy"]
            lines.append(
                f"  {name} {s} accuracy: {min(acc):.2f}-{max(acc):.2f} (median "
                f"{np.median(acc):.2f}) over {len(acc)} seeds; paper {pacc:.2f}"
            )
            arr = np.array(counts)
            for j, q in enumerate(Q_CRED):
                p = PAPER_COUNTS[(name, s)][j]
                share = float(np.mean(arr[:, j] >= p))
                lines.append(
                    f"  {name} {s} P{int(100 * q)}: {arr[:, j].min()}-{arr[:, j].max()} "
                    f"(median {np.median(arr[:, j]):.0f}) over {len(arr)} seeds; paper {p}; "
                    f"seeds at or above the paper: {100 * share:.0f}%"
                )
    return lines


def credibility_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="reproduce_superflow credibility",
        description="Table 3's credibility rows: which readings reach the paper's figures.",
    )
    parser.add_argument("--seeds", type=int, default=20, help="seeds of SuperFlow 2 and 3")
    parser.add_argument("--every", type=int, default=1, help="every n-th function only")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--out", type=Path, help="also write the text to this file")
    args = parser.parse_args(argv)
    data = load_scope(data_root(), every=args.every)
    study = credibility_study(data, seeds=range(args.seeds))
    lines = [f"# command: {command_line(['credibility', *argv])}", ""]
    lines += credibility_report(study, len(data["cold"]))
    lines += ["", CREDIBILITY_NOTES.rstrip()]
    for name, start in (("SuperFlow-3", "warm"), ("SuperFlow-3", "cold"), ("SuperFlow-2", "warm")):
        counts = np.array(study["seeds"].get(name, {}).get(start, []))
        if counts.size == 0:
            continue
        p = PAPER_COUNTS[(name, start)][0]
        reached = int(np.sum(counts[:, 0] >= p))
        lines.append(
            f"* {name} {start} P25 over {len(counts)} seeds: {counts[:, 0].min()}-"
            f"{counts[:, 0].max()} of {len(data[start])} credible; the paper's {p} is "
            + (
                f"reached by {reached} seed(s): a seed's difference"
                if reached
                else "reached by no seed: unexplained by chance"
            )
        )
    lines.append("")
    _emit(lines, args.out)
    if args.json:
        payload = {"command": command_line(["credibility", *argv]), "study": study}
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


CREDIBILITY_NOTES = """\
What this shows:
* SuperFlow 1 is deterministic: with the reference code's reading of the
  check (the percentile of x[:stop], NumPy's linear interpolation, strictly
  inside the order-statistic 95% interval of all 1,000 runs with rint ranks;
  ANCHORS.md) our counts are the reference code's on these files (cold
  58/61/59/60, warm 56/60/61/58 of 65), against the paper's 60/59/59/62 and
  61/59/59/60. No other reading of the check reproduces the paper's row (at
  most 2 of its 8 counts), and none gives the warm P25's 61: the widest, a
  99% truth interval, gives 59 and lifts every other count as well.
* Stops off ours can reach it: of the 9 warm functions whose P25 is not
  credible, 3 miss the interval by 1 to 4 ranks of 1,000, the other 6 by 9
  to 31. Stops moved by up to 1 / 2 / 3 / 4 run intervals give at most
  57 / 58 / 59 / 61: the paper's 61 needs five functions (Func34 -5 runs,
  Func26 +10, Func2 +15, Func30 +20, Func42 +20) to stop 1 to 4 intervals
  from the reference code's stop, each in the one direction that helps.
  The paper's accuracy (97.43 / 97.14 against the reference code's
  97.39 / 97.12) shows its stops were indeed not all the code's.
* So, as for the accuracy rows: with the public code's method on the
  published traces the paper's SuperFlow 1 credibility row is not reached;
  it needs stops that the code does not give on these data (other data or
  other code behind the paper). The gap lies between the paper and its own
  replication package, not in perfstats, whose counts are the code's.
* SuperFlow 2 and 3 are random and the paper reports one run: the rows
  above give the spread over seeds and whether the paper's count is within it.
* SuperFlow 3's warm row: no seed and no reading of the check reaches the
  paper's P25 (54 of 65; a 99% truth interval gives 53 at seed 0). Ours stops
  before SuperFlow 1 on most warm functions and loses the P25 of those where
  it stops far earlier (some at 20 runs); its warm accuracy (93.2-93.6 over
  20 seeds against the paper's 95.75) says the same: the paper's SuperFlow 3
  stopped later on the warm traces than the block scheme of the public code
  does here. Why is unexplained (the public code draws from NumPy's global
  random state, so its runs cannot be replayed seed for seed).
"""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the rows to this file")
    parser.add_argument("--quick", action="store_true", help="every fifth function only")
    parser.add_argument(
        "--interval",
        type=int,
        nargs="+",
        default=[5],
        help="run interval(s); several reproduce RQ2/RQ4 (3 4 5 10 20)",
    )
    parser.add_argument(
        "--error",
        type=float,
        nargs="+",
        default=[0.01],
        help="SuperFlow's r; several reproduce RQ3 (0.05 ... 0.01)",
    )
    parser.add_argument("--techniques", nargs="+", help="subset of technique names")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random rules")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    args = parser.parse_args(argv)
    # SciPy's ks_2samp (SHARP's KS rule) falls back to its asymptotic p-value
    # for mid-sized samples and says so on every call; the rule uses only the
    # statistic, which that fallback does not change.
    warnings.filterwarnings("ignore", message="ks_2samp: Exact calculation unsuccessful")

    print(f"# command: {command_line(argv)}")
    data = load_scope(data_root(), quick=args.quick)
    rows: list[dict[str, Any]] = []
    for interval in args.interval:
        for error in args.error:
            rules = techniques(interval=interval, error=error, seed=args.seed)
            if args.techniques:
                unknown = set(args.techniques) - set(rules)
                if unknown:
                    parser.error(f"unknown technique(s) {sorted(unknown)}; know {sorted(rules)}")
                rules = {k: v for k, v in rules.items() if k in args.techniques}
            block = run(rules, data, workers=args.workers, progress=args.progress)
            for row in block:
                row.update({"interval": interval, "error": error})
            print(
                f"\ninterval {interval}, SuperFlow r = {error:g}, seed {args.seed}"
                + (" (quick: every fifth function)" if args.quick else "")
            )
            anchors = interval == 5 and error == 0.01
            print(table(block, anchors=anchors))
            print(summary(block, anchors=anchors))
            if anchors:
                text, gaps = paper_gaps(block)
                if gaps:
                    print("\nTables 2 and 3 beside ours, the difference and why:")
                    print(text)
            rows.extend(block)
    print()
    if len(args.interval) > 1 or len(args.error) > 1:
        print(PAPER_SWEEPS)
    print(NOTES)
    if args.json:
        payload = {
            "command": command_line(argv),
            "seed": args.seed,
            "quick": args.quick,
            "rows": rows,
        }
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


SUBCOMMANDS: dict[str, Any] = {
    **{name: (lambda argv, name=name: sweep_main(name, argv)) for name in SUBCOMMAND_SWEEPS},
    "normality": normality_main,
    "credibility": credibility_main,
}

if __name__ == "__main__":
    sys.exit(main())
