"""Protocol B: Metior and its baselines on the PT4Cloud cloud traces (Metior, Section IV).

For each of the 33 traces the first three weeks (``n_test`` points) hold the
tests and the last five weeks the ground truth. A test starts at a point
``s`` of the first week and may use two weeks; one run interval is one day,
``floor(floor(2 n_test / 3) / 14)`` points. Metior compares
``x[s : s + i*day]`` with ``x[s : s + (i+1)*day]``, with block length
``max(ceil(b*_circular), 6 * samples_per_hour)``, and stops when the 95th
percentile of the bootstrapped relative difference is at most 3%. Its block
length comes from the previous set only, as in the public artifact
(``--block-from both``: the larger of the previous and the current set's, as
the paper and the rule's default have it), and its
moving blocks follow the public artifact (``block_kind="superflow"``:
``floor((n - b) / b)`` blocks drawn from ``n - b`` starts, so a resample is
shorter than the set and the test more cautious than with textbook
blocks). The result is the statistic (mean or P90) of the runs used, and a
test is accurate when it is within 3% of the ground truth's statistic.

BasicBT and CoV are judged every hour of runs (their papers judge after
every few runs; Metior reports them stopping after 4% to 27% of its own
runs, i.e. within the first day). PT4Cloud is run with its own design's
one-week test interval ("PT4Cloud"), so within two weeks it judges once, and
with Metior's one-day interval ("PT4Cloud-day").

Metior's paper leaves out of its accuracy figures the configurations on
which its tests could not stop within the data ("unstoppable"); the column
``accurate_pct_stoppable`` does the same, leaving out the traces on which
fewer than half of a technique's tests stopped, ``accurate_pct_paper_list``
leaves out exactly the configurations the paper names, and ``accurate_pct``
counts every test (an unstopped test reports the statistic of two weeks).

Usage::

    python benchmarks/reproduce_metior.py --json b.json --start-stride 10
    python benchmarks/reproduce_metior.py --quick       # a few traces, for CI

The traces are read from ``$PERFSTATS_DATA/pt4cloud`` (default
``../shared/data/pt4cloud`` beside the repository).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstats.replay import replay
from perfstats.replay.scoring import score_estimate
from perfstats.rules import BasicBootstrap, CoV, Metior, PT4Cloud, Rule

ERROR = 0.03
STATISTICS: dict[str, str | float] = {"mean": "mean", "p90": 0.9}
TECHNIQUES = ("Metior", "BasicBT", "CoV", "PT4Cloud", "PT4Cloud-day")
CLOUDS = ("aws", "chameleon", "all")

#: Metior paper, Section IV-B/C and Figures 9-10: % accurate tests (3% error)
#: and executions per test; PT4Cloud's executions are 3.1x Metior's.
PAPER: dict[tuple[str, str, str], float] = {
    ("Metior", "mean", "aws"): 100.0,
    ("Metior", "mean", "chameleon"): 96.0,
    ("Metior", "mean", "all"): 98.0,
    ("Metior", "p90", "aws"): 100.0,
    ("Metior", "p90", "chameleon"): 96.0,
    ("Metior", "p90", "all"): 98.0,
    ("BasicBT", "mean", "aws"): 97.0,
    ("BasicBT", "mean", "chameleon"): 78.0,
    ("BasicBT", "p90", "aws"): 97.0,
    ("BasicBT", "p90", "chameleon"): 66.0,
    ("CoV", "mean", "aws"): 89.0,
    ("CoV", "mean", "chameleon"): 61.0,
    ("CoV", "p90", "aws"): 89.0,
    ("CoV", "p90", "chameleon"): 45.0,
}
PAPER_EXECUTIONS = {"mean": 290.0, "p90": 306.2}
#: The configurations the paper names as unstoppable for Metior and leaves
#: out of Figures 7 to 9 (Section IV-B2).
PAPER_UNSTOPPABLE = {
    "mean": (
        "Chameleon-IMA-M",
        "Chameleon-TPCC-S",
        "Chameleon-YCSB-L",
        "Chameleon-YCSB-M",
        "Chameleon-YCSB-S",
    ),
    "p90": ("Chameleon-YCSB-M",),
}

NOTES = """\
Notes:
* "stoppable %" follows the paper: it leaves out the configurations on which
  the technique's tests could not stop within the data (the paper: IMA-C-M,
  TPCC-C-S, YCSB-C-L, YCSB-C-M and YCSB-C-S for the mean, YCSB-C-M for P90);
  we call a configuration unstoppable when fewer than half its tests stopped.
  "paper-list %" leaves out exactly the configurations the paper names.
  "all %" counts every test, an unstopped one reporting its two weeks'
  statistic; "stopped-only %" counts the tests that stopped.
* PT4Cloud uses its own one-week interval, so within two weeks it judges
  once, at two weeks; PT4Cloud-day judges daily like Metior.
* Tests start at every K-th point of the first week (--start-stride K); the
  paper starts one at every point.
* BasicBT's and CoV's judgement interval is not stated in the paper; we use
  one hour of runs (see the module docstring).
"""


@dataclass(frozen=True)
class Trace:
    """One benchmark configuration: test part, ground truth and its time scale."""

    name: str
    cloud: str
    test: np.ndarray
    truth: np.ndarray

    @property
    def n_test(self) -> int:
        return int(self.test.size)

    @property
    def day(self) -> int:
        """One run interval: a day of runs, ``floor(floor(2 n_test / 3) / 14)``."""
        return (2 * self.n_test // 3) // 14

    @property
    def hour(self) -> int:
        """Runs per hour, ``ceil(n_test / 3 / 7 / 24)``."""
        return math.ceil(self.n_test / 3 / 7 / 24)

    def starts(self, stride: int) -> range:
        """Start points of the tests: every ``stride``-th point of the first week."""
        return range(0, -(-self.n_test // 3), stride)


def data_root() -> Path:
    """``$PERFSTATS_DATA`` or ``../shared/data`` beside the repository."""
    env = os.environ.get("PERFSTATS_DATA")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "data"
    if not (root / "pt4cloud" / "manifest.csv").is_file():
        raise FileNotFoundError(f"no pt4cloud data under {root} (set PERFSTATS_DATA)")
    return root


def load_pt4cloud(root: Path, *, names: Sequence[str] | None = None) -> list[Trace]:
    """The traces of ``manifest.csv``, split into test part and ground truth."""
    manifest = pd.read_csv(root / "pt4cloud" / "manifest.csv")
    traces = []
    for record in manifest.to_dict("records"):
        file = str(record["file"])
        name = file.removesuffix(".txt")
        if names is not None and name not in names:
            continue
        x = np.loadtxt(root / "pt4cloud" / file, dtype=np.float64, ndmin=1)
        if x.size != int(record["n_total"]):
            raise ValueError(f"{file} has {x.size} points; manifest says {record['n_total']}")
        n_test = int(record["n_test"])
        traces.append(Trace(name, str(record["cloud"]), x[:n_test], x[n_test:]))
    return traces


def rules_for(
    trace: Trace, statistic: str | float, *, seed: int = 0, block_from: str = "previous"
) -> dict[str, Rule]:
    """The four techniques with the time scale of ``trace``."""
    return {
        "Metior": Metior(
            error=ERROR,
            level=0.95,
            statistic=statistic,
            interval=trace.day,
            min_block_length=6 * trace.hour,
            block_kind="superflow",
            block_from=block_from,
            rng=seed,
        ),
        "BasicBT": BasicBootstrap(
            error=ERROR,
            level=0.95,
            statistic=statistic,
            interval=trace.hour,
            min_n=max(10, 2 * trace.hour),
            rng=seed,
        ),
        "CoV": CoV(threshold=0.01, window=5, interval=trace.hour),
        "PT4Cloud": PT4Cloud(threshold=0.90, interval=7 * trace.day),
        "PT4Cloud-day": PT4Cloud(threshold=0.90, interval=trace.day),
    }


def run(
    traces: list[Trace],
    *,
    stride: int,
    techniques: Sequence[str] = TECHNIQUES,
    statistics: Sequence[str] = tuple(STATISTICS),
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
    block_from: str = "previous",
) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Replay and score; returns summary rows and the per-test frame."""
    tests = {t.name: t.test for t in traces}
    truths = {t.name: t.truth for t in traces}
    clouds = {t.name: t.cloud for t in traces}
    starts = {t.name: list(t.starts(stride)) for t in traces}
    limits = {t.name: 14 * t.day for t in traces}
    rows: list[dict[str, Any]] = []
    frames = []
    for stat_name in statistics:
        statistic = STATISTICS[stat_name]
        per_trace = {
            t.name: rules_for(t, statistic, seed=seed, block_from=block_from) for t in traces
        }
        for technique in techniques:
            rules = {name: r[technique] for name, r in per_trace.items()}
            t0 = time.perf_counter()
            stops = replay(
                rules, tests, starts=starts, max_n=limits, workers=workers, progress=progress
            )
            seconds = time.perf_counter() - t0
            scored = score_estimate(stops, tests, truths, statistic=statistic, error=ERROR)
            scored["cloud"] = scored["trace"].map(clouds)
            scored["technique"] = technique
            scored["statistic"] = stat_name
            frames.append(scored)
            share = scored.groupby("trace")["stopped"].mean()
            unstoppable = set(share[share < 0.5].index)
            for cloud in CLOUDS:
                part = scored if cloud == "all" else scored[scored["cloud"] == cloud]
                stoppable = part[~part["trace"].isin(unstoppable)]
                named = part[~part["trace"].isin(PAPER_UNSTOPPABLE.get(stat_name, ()))]
                stopped = part[part["stopped"]]
                rows.append(
                    {
                        "technique": technique,
                        "statistic": stat_name,
                        "cloud": cloud,
                        "accurate_pct": _pct(part["accurate"]),
                        "accurate_pct_stoppable": _pct(stoppable["accurate"]),
                        "accurate_pct_paper_list": _pct(named["accurate"]),
                        "accurate_pct_stopped": _pct(stopped["accurate"]),
                        "unstoppable": sorted(unstoppable & set(part["trace"])),
                        "mean_executions": round(float(part["stop_n"].mean()), 1),
                        "stopped_pct": _pct(part["stopped"]),
                        "tests": len(part),
                        "seconds": round(seconds, 2),
                    }
                )
    return rows, pd.concat(frames, ignore_index=True)


def _pct(flags: pd.Series) -> float:
    return round(100.0 * float(flags.mean()), 2) if len(flags) else float("nan")


def table(rows: list[dict[str, Any]]) -> str:
    """Ours beside the paper's % accurate tests."""
    head = (
        f"{'technique':12} {'stat':4} {'cloud':9} {'stoppable % (paper)':>20} "
        f"{'all %':>6} {'paper-list %':>12} {'stopped-only %':>14} {'executions':>10} "
        f"{'stopped %':>9} "
        f"{'tests':>6} {'seconds':>8}  unstoppable"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        paper = PAPER.get((r["technique"], r["statistic"], r["cloud"]))
        acc = f"{r['accurate_pct_stoppable']:6.2f}" + (
            f" ({paper:5.1f})" if paper is not None else " " * 8
        )
        lines.append(
            f"{r['technique']:12} {r['statistic']:4} {r['cloud']:9} {acc:>20} "
            f"{r['accurate_pct']:6.2f} {r['accurate_pct_paper_list']:12.2f} "
            f"{r['accurate_pct_stopped']:14.2f} "
            f"{r['mean_executions']:10.1f} {r['stopped_pct']:9.2f} {r['tests']:6d} "
            f"{r['seconds']:8.2f}  {', '.join(r['unstoppable'])}"
        )
    return "\n".join(lines)


def cost_summary(rows: list[dict[str, Any]]) -> str:
    """Executions per test normalised to Metior's (paper: Figure 10)."""
    lines = []
    for stat in dict.fromkeys(r["statistic"] for r in rows):
        base = next(
            (
                r["mean_executions"]
                for r in rows
                if r["technique"] == "Metior" and r["statistic"] == stat and r["cloud"] == "all"
            ),
            None,
        )
        if not base:
            continue
        parts = [
            f"{r['technique']} {r['mean_executions'] / base:.2f}x"
            for r in rows
            if r["statistic"] == stat and r["cloud"] == "all"
        ]
        lines.append(
            f"{stat}: executions vs Metior ({base:.0f}; paper {PAPER_EXECUTIONS[stat]:g}): "
            + ", ".join(parts)
            + " (paper: BasicBT 0.24-0.27x, CoV 0.04x, PT4Cloud 3.1x)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the rows to this file")
    parser.add_argument(
        "--start-stride",
        type=int,
        default=1,
        help="start a test at every K-th point of the first week",
    )
    parser.add_argument(
        "--quick", action="store_true", help="four traces (two per cloud), stride 25"
    )
    parser.add_argument("--techniques", nargs="+", default=list(TECHNIQUES))
    parser.add_argument("--statistics", nargs="+", default=list(STATISTICS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--progress", action="store_true")
    parser.add_argument(
        "--block-from",
        choices=("previous", "both"),
        default="previous",
        help="Metior's block length from the previous set (reference code) or the larger "
        "of the previous and the current set's (paper)",
    )
    args = parser.parse_args(argv)

    names = QUICK_TRACES if args.quick else None
    stride = max(args.start_stride, 25) if args.quick else args.start_stride
    traces = load_pt4cloud(data_root(), names=names)
    rows, _ = run(
        traces,
        stride=stride,
        techniques=args.techniques,
        statistics=args.statistics,
        seed=args.seed,
        workers=args.workers,
        progress=args.progress,
        block_from=args.block_from,
    )
    print(
        f"start stride {stride}, seed {args.seed}, {len(traces)} traces, "
        f"Metior block length from {args.block_from}"
    )
    print(table(rows))
    print(cost_summary(rows))
    print(NOTES)
    if args.json:
        payload = {
            "start_stride": stride,
            "seed": args.seed,
            "quick": args.quick,
            "block_from": args.block_from,
            "rows": rows,
        }
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


#: Quick mode: two AWS and two Chameleon configurations.
QUICK_TRACES = ("AWS-FT-L", "AWS-TPCC-XL", "Chameleon-FT-M", "Chameleon-JPS-L")


if __name__ == "__main__":
    sys.exit(main())
