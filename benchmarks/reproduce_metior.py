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

``--schedule`` runs the other part of the reproduction instead: Metior's
measurement schedule (Section III-C) chosen from the same 33 traces. The
paper chose one interval of one day (the largest Politis-White block length
over its pilot traces was 24 hours of runs) and four runs per hour (thinning
further moved the lag-1 autocorrelation by more than 0.1).
``perfstats.schedule`` does both from data; here it is applied to the test
part (first three weeks) of every trace, whose runs carry no timestamps: the
sampling interval is taken as three weeks over the number of runs. The
paper's own pilot set (ft and IMA on Chameleon L and AWS 2XL, Section II) is
shown too. Note on the data: the test parts hold 1.8 to 6.8 runs per hour
(most about 4), far fewer than back-to-back execution gives (EP on AWS runs
in 49 s, and the ground-truth part of its trace holds about 70 runs per
hour), so the artifact's test parts already look thinned to Metior's
schedule. Thinning can therefore only be tested below their own rate.

Usage::

    python -m benchmarks.reproduce_metior --json b.json --start-stride 10
    python -m benchmarks.reproduce_metior --quick       # a few traces, for CI
    python -m benchmarks.reproduce_metior --schedule [--json schedule.json]

The traces are read from ``$PERFSTATS_DATA/pt4cloud`` (default
``../shared/data/pt4cloud`` beside the repository) by ``benchmarks/_traces.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# The perfstats of this checkout, not whichever one is installed.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import perfstats  # noqa: E402
from benchmarks._traces import CloudTrace, data_root, load_pt4cloud  # noqa: E402
from perfstats.replay import replay  # noqa: E402
from perfstats.replay.scoring import score_estimate  # noqa: E402
from perfstats.rules import BasicBootstrap, CoV, Metior, PT4Cloud, Rule  # noqa: E402

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


def rules_for(
    trace: CloudTrace, statistic: str | float, *, seed: int = 0, block_from: str = "previous"
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
    traces: list[CloudTrace],
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


# -- Part 2: the measurement schedule (Section III-C) -------------------------

WEEK_S = 7 * 86400.0
PAPER_INTERVAL_H = 24.0
PAPER_RUNS_PER_HOUR = 4.0
#: ft and IMA on Chameleon Large and AWS m5.2xlarge (Metior, Section II).
PAPER_PILOTS = ("Chameleon-FT-L", "AWS-FT-2XL", "Chameleon-IMA-L", "AWS-IMA-2XL")


def choose_schedule(traces: Sequence[CloudTrace]) -> perfstats.Schedule:
    """The schedule from the test parts, three weeks each."""
    return perfstats.schedule(
        {t.name: t.test for t in traces},
        sampling_interval={t.name: 3 * WEEK_S / t.n_test for t in traces},
    )


def schedule_summary(s: perfstats.Schedule) -> dict[str, Any]:
    rows = []
    for i, period in enumerate(s.candidates_s):
        col = s.acf_differences[i]
        finite = ~np.isnan(col)
        worst = int(np.argmax(np.where(finite, np.abs(col), -1.0))) if finite.any() else None
        rows.append(
            {
                "runs_per_hour": round(3600.0 / period, 4),
                "max_abs_acf_change": None if worst is None else round(float(abs(col[worst])), 4),
                "worst_trace": None if worst is None else s.traces[worst].name,
                "traces_thinned": int(finite.sum()),
            }
        )
    return {
        "interval_hours": round(s.interval_hours, 3),
        "runs_per_hour": round(s.runs_per_hour, 3),
        "interval_ratio_to_paper": round(s.interval_hours / PAPER_INTERVAL_H, 3),
        "frequency_ratio_to_paper": round(s.runs_per_hour / PAPER_RUNS_PER_HOUR, 3),
        "limited_by": s.limited_by,
        "traces": [
            {
                "trace": e.name,
                "n": e.n,
                "runs_per_hour": round(3600.0 / e.sampling_interval_s, 3),
                "block_runs": round(e.block_length, 2),
                "block_hours": round(e.block_s / 3600.0, 2),
                "acf1": round(e.acf1, 4),
            }
            for e in s.traces
        ],
        "candidates": rows,
    }


def show_schedule(title: str, res: dict[str, Any], *, candidates: int = 8) -> None:
    print(f"\n== {title}")
    print(
        f"interval {res['interval_hours']:.2f} h (paper 24 h, ratio "
        f"{res['interval_ratio_to_paper']:.2f}); {res['runs_per_hour']:.2f} runs per hour "
        f"(paper 4, ratio {res['frequency_ratio_to_paper']:.2f}); frequency limited by "
        f"{res['limited_by']}"
    )
    print(f"{'trace':18} {'n':>5} {'runs/h':>7} {'block runs':>10} {'block h':>8} {'acf1':>6}")
    for t in sorted(res["traces"], key=lambda t: -t["block_hours"]):
        print(
            f"{t['trace']:18} {t['n']:5d} {t['runs_per_hour']:7.2f} {t['block_runs']:10.1f} "
            f"{t['block_hours']:8.2f} {t['acf1']:6.3f}"
        )
    print(f"{'candidate runs/h':>16} {'max |acf1 change|':>18} {'thinned':>7}  worst trace")
    for c in res["candidates"][:candidates]:
        change = "-" if c["max_abs_acf_change"] is None else f"{c['max_abs_acf_change']:.3f}"
        print(
            f"{c['runs_per_hour']:16.2f} {change:>18} {c['traces_thinned']:7d}  "
            f"{c['worst_trace'] or ''}"
        )


def schedule_main(json_path: Path | None) -> int:
    """The schedule of all 33 traces and of the paper's pilots, printed and saved."""
    traces = load_pt4cloud(data_root("pt4cloud"))
    results = {
        "all 33 traces": schedule_summary(choose_schedule(traces)),
        "the paper's pilots (ft, IMA; Chameleon L, AWS 2XL)": schedule_summary(
            choose_schedule([t for t in traces if t.name in PAPER_PILOTS])
        ),
    }
    for title, res in results.items():
        show_schedule(title, res)
    if json_path:
        json_path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the rows (or the schedule) to this file")
    parser.add_argument(
        "--schedule",
        action="store_true",
        help="Metior's measurement schedule (Section III-C) instead of protocol B",
    )
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
    if args.schedule:
        return schedule_main(args.json)

    names = QUICK_TRACES if args.quick else None
    stride = max(args.start_stride, 25) if args.quick else args.start_stride
    traces = load_pt4cloud(data_root("pt4cloud"), names=names)
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
