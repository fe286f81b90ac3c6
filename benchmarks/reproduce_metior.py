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

``--error E`` runs the sensitivity study of Section IV-D (the paper: 5% and
10%): Metior's and BasicBT's maximum error and the accuracy tolerance become
``E``; CoV and PT4Cloud keep their thresholds, which have no error. The
output then puts the paper's figures beside ours with the difference and a
reason computed from the tests. ``--tests-out`` keeps the scored per-test
frame and ``--from-tests`` summarises such a frame without replaying.
``--section2`` reproduces Section II (``benchmarks/metior_section2.py``) and
``--gaps`` explains the differences that remain at 3%
(``benchmarks/metior_gaps.py``).

Usage::

    python -m benchmarks.reproduce_metior --json b.json --start-stride 10
    python -m benchmarks.reproduce_metior --quick       # a few traces, for CI
    python -m benchmarks.reproduce_metior --schedule [--json schedule.json]
    python -m benchmarks.reproduce_metior --error 0.05 --start-stride 10 --tests-out t.csv.gz
    python -m benchmarks.reproduce_metior --from-tests t.csv.gz [--json b.json]
    python -m benchmarks.reproduce_metior --section2 --figures PREFIX [--json s.json]
    python -m benchmarks.reproduce_metior --gaps [--json gaps.json]

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
#: PT4Cloud's executions per test over Metior's (Section IV-C and IV-D; the
#: paper gives one ratio per error, for the mean and the P90 together).
PAPER_PT4CLOUD_RATIO = {0.03: 3.1, 0.05: 3.2, 0.1: 3.6}
#: Section IV-D (Figure 9): Metior's accurate tests at 5% and 10% error:
#: ``(bound, value)`` with bound "=" or ">" ("more than 92%"). Figure 9's
#: other bars carry no values in the text.
PAPER_SENSITIVITY: dict[float, dict[str, tuple[str, float]]] = {
    0.05: {"aws": ("=", 100.0), "chameleon": (">", 92.0)},
    0.1: {"aws": ("=", 100.0), "chameleon": (">", 94.0)},
}
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
    trace: CloudTrace,
    statistic: str | float,
    *,
    seed: int = 0,
    block_from: str = "previous",
    error: float = ERROR,
) -> dict[str, Rule]:
    """The techniques with the time scale of ``trace``.

    ``error`` is the maximum allowed error of Metior and BasicBT; CoV and
    PT4Cloud have no error parameter (their thresholds stay as in the paper's
    3% study), so only their scoring tolerance follows ``error``.
    """
    return {
        "Metior": Metior(
            error=error,
            level=0.95,
            statistic=statistic,
            interval=trace.day,
            min_block_length=6 * trace.hour,
            block_kind="superflow",
            block_from=block_from,
            rng=seed,
        ),
        "BasicBT": BasicBootstrap(
            error=error,
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
    error: float = ERROR,
) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """Replay and score; returns summary rows and the per-test frame."""
    frame = replay_tests(
        traces,
        stride=stride,
        techniques=techniques,
        statistics=statistics,
        seed=seed,
        workers=workers,
        progress=progress,
        block_from=block_from,
        error=error,
    )
    return summarise(frame), frame


def replay_tests(
    traces: list[CloudTrace],
    *,
    stride: int,
    techniques: Sequence[str] = TECHNIQUES,
    statistics: Sequence[str] = tuple(STATISTICS),
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
    block_from: str = "previous",
    error: float = ERROR,
) -> pd.DataFrame:
    """One scored row per (technique, statistic, trace, start)."""
    tests = {t.name: t.test for t in traces}
    truths = {t.name: t.truth for t in traces}
    clouds = {t.name: t.cloud for t in traces}
    days = {t.name: t.day for t in traces}
    starts = {t.name: list(t.starts(stride)) for t in traces}
    limits = {t.name: 14 * t.day for t in traces}
    frames = []
    for stat_name in statistics:
        statistic = STATISTICS[stat_name]
        per_trace = {
            t.name: rules_for(t, statistic, seed=seed, block_from=block_from, error=error)
            for t in traces
        }
        for technique in techniques:
            rules = {name: r[technique] for name, r in per_trace.items()}
            t0 = time.perf_counter()
            stops = replay(
                rules, tests, starts=starts, max_n=limits, workers=workers, progress=progress
            )
            seconds = time.perf_counter() - t0
            scored = score_estimate(stops, tests, truths, statistic=statistic, error=error)
            scored["cloud"] = scored["trace"].map(clouds)
            scored["day"] = scored["trace"].map(days)
            scored["technique"] = technique
            scored["statistic"] = stat_name
            scored["seconds"] = round(seconds, 2)
            scored["error"] = error
            scored["stride"] = stride
            scored["seed"] = seed
            scored["block_from"] = block_from
            frames.append(scored.drop(columns=["reason"], errors="ignore"))
    return pd.concat(frames, ignore_index=True)


def unstoppable_traces(part: pd.DataFrame) -> set[str]:
    """Traces on which fewer than half of the tests stopped."""
    share = part.groupby("trace")["stopped"].mean()
    return set(share[share < 0.5].index)


def summarise(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Summary rows (per technique, statistic and cloud) of a per-test frame."""
    rows: list[dict[str, Any]] = []
    groups = frame.groupby(["statistic", "technique"], sort=False)
    for (stat_name, technique), scored in groups:
        unstoppable = unstoppable_traces(scored)
        for cloud in CLOUDS:
            part = scored if cloud == "all" else scored[scored["cloud"] == cloud]
            stoppable = part[~part["trace"].isin(unstoppable)]
            named = part[~part["trace"].isin(PAPER_UNSTOPPABLE.get(str(stat_name), ()))]
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
                    "seconds": float(scored["seconds"].iloc[0]),
                }
            )
    return rows


def _pct(flags: pd.Series) -> float:
    return round(100.0 * float(flags.mean()), 2) if len(flags) else float("nan")


def table(rows: list[dict[str, Any]], error: float = ERROR) -> str:
    """Ours beside the paper's % accurate tests (the paper's 3% figures at 3% only)."""
    paper_at = PAPER if _same(error, ERROR) else {}
    head = (
        f"{'technique':12} {'stat':4} {'cloud':9} {'stoppable % (paper)':>20} "
        f"{'all %':>6} {'paper-list %':>12} {'stopped-only %':>14} {'executions':>10} "
        f"{'stopped %':>9} "
        f"{'tests':>6} {'seconds':>8}  unstoppable"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        paper = paper_at.get((r["technique"], r["statistic"], r["cloud"]))
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


def cost_summary(rows: list[dict[str, Any]], error: float = ERROR) -> str:
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
        if _same(error, ERROR):
            paper = (
                f"paper {PAPER_EXECUTIONS[stat]:g}",
                " (paper: BasicBT 0.24-0.27x, CoV 0.04x, PT4Cloud 3.1x)",
            )
        else:
            ratio = _paper_ratio(error)
            paper = ("paper: not given", f" (paper: PT4Cloud {ratio:g}x)" if ratio else "")
        lines.append(
            f"{stat}: executions vs Metior ({base:.0f}; {paper[0]}): " + ", ".join(parts) + paper[1]
        )
    return "\n".join(lines)


def _same(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9


def _paper_ratio(error: float) -> float | None:
    return next((v for k, v in PAPER_PT4CLOUD_RATIO.items() if _same(k, error)), None)


def _row(rows: list[dict[str, Any]], technique: str, stat: str, cloud: str) -> dict[str, Any]:
    return next(
        r
        for r in rows
        if r["technique"] == technique and r["statistic"] == stat and r["cloud"] == cloud
    )


def _misses(frame: pd.DataFrame, technique: str, stat: str, cloud: str) -> str:
    """The configurations with inaccurate tests, worst first: "YCSB-M 38%, ..."."""
    part = frame[(frame["technique"] == technique) & (frame["statistic"] == stat)]
    if cloud != "all":
        part = part[part["cloud"] == cloud]
    acc = part.groupby("trace")["accurate"].mean()
    worst = acc[acc < 1].sort_values().head(3)
    return ", ".join(f"{t.split('-', 1)[1]} {100 * v:.0f}%" for t, v in worst.items()) or "none"


def _at_first_judgement(frame: pd.DataFrame, stat: str, cloud: str) -> float:
    m = frame[(frame["technique"] == "Metior") & (frame["statistic"] == stat)]
    if cloud != "all":
        m = m[m["cloud"] == cloud]
    return 100.0 * float((m["stop_n"] == 2 * m["day"]).mean())


def sensitivity_comparison(rows: list[dict[str, Any]], frame: pd.DataFrame, error: float) -> str:
    """Section IV-D: the paper's figures at ``error`` beside ours, the difference, a reason.

    The reasons are computed from the per-test frame: the share of Metior's
    tests that stop at their first judgement (two days), the configurations
    holding the inaccurate tests, and the runs each technique used.
    """
    paper = next((v for k, v in PAPER_SENSITIVITY.items() if _same(k, error)), None)
    if paper is None:
        return ""
    lines = [
        f"Sensitivity study at {error:.0%} error (Section IV-D, Figure 9): paper | ours | "
        "difference | reason",
    ]
    stats = list(dict.fromkeys(r["statistic"] for r in rows))
    for cloud, (bound, value) in paper.items():
        for stat in stats:
            row = _row(rows, "Metior", stat, cloud)
            ours = row["accurate_pct_stoppable"]
            ok = ours > value if bound == ">" else _same(ours, value)
            reason = (
                f"{_at_first_judgement(frame, stat, cloud):.0f}% of the tests stop at the "
                f"first judgement (2 days); inaccurate tests in: "
                f"{_misses(frame, 'Metior', stat, cloud)}; unstoppable: "
                f"{', '.join(row['unstoppable']) or 'none'}; without the paper's 3% "
                f"unstoppable list: {row['accurate_pct_paper_list']:.2f}%"
            )
            lines.append(
                f"  Metior {stat:4} {cloud:9} accurate %: paper {bound}{value:g} | ours "
                f"{ours:.2f} | {ours - value:+.2f} ({'consistent' if ok else 'not met'}) | "
                f"{reason}"
            )
    ratio = _paper_ratio(error)
    techniques = set(frame["technique"])
    if ratio and {"Metior", "PT4Cloud"} <= techniques:
        runs = {
            t: [_row(rows, t, s, "all")["mean_executions"] for s in stats]
            for t in ("Metior", "PT4Cloud")
        }
        ours_ratios = [p / m for p, m in zip(runs["PT4Cloud"], runs["Metior"], strict=True)]
        both = float(np.mean(ours_ratios))
        m_all = frame[(frame["technique"] == "Metior")]
        floor = float((2 * m_all["day"]).mean())
        lines.append(
            f"  PT4Cloud executions / Metior's (mean of {', '.join(stats)}): paper {ratio:g}x | "
            f"ours {both:.2f}x ({', '.join(f'{r:.2f}' for r in ours_ratios)}) | "
            f"{both - ratio:+.2f}x | PT4Cloud judges weekly and uses two weeks at every "
            f"error ({np.mean(runs['PT4Cloud']):.0f} runs), Metior "
            f"{np.mean(runs['Metior']):.0f} runs (its first-judgement floor: {floor:.0f}); "
            f"the ratio grows with the error as in the paper (3.1, 3.2, 3.6) but from a "
            f"larger base, PT4Cloud's two weeks: see metior_gaps.txt"
        )
    # Section IV-D's claims about the baselines, which Figure 9 shows without values.
    claims = (
        ("PT4Cloud", "all", "Metior", "PT4Cloud below Metior overall"),
        ("BasicBT", "chameleon", "Metior", "BasicBT considerably below Metior on Chameleon"),
        ("CoV", "all", "BasicBT", "CoV below BasicBT"),
    )
    for low, cloud, high, claim in claims:
        if not {low, high} <= techniques:
            continue
        for stat in stats:
            lo, hi = _row(rows, low, stat, cloud), _row(rows, high, stat, cloud)
            o, m = lo["accurate_pct_stoppable"], hi["accurate_pct_stoppable"]
            reason = (
                f"{low} uses {lo['mean_executions']:.0f} runs, {high} "
                f"{hi['mean_executions']:.0f}; inaccurate tests of {high}: "
                f"{_misses(frame, high, stat, cloud)}; of {low}: {_misses(frame, low, stat, cloud)}"
            )
            if low == "CoV":
                reason += (
                    " (CoV judged hourly; after every run it stops far earlier: metior_gaps.txt)"
                )
            lines.append(
                f"  {claim} ({stat}, accurate %): paper yes (no values) | ours {o:.2f} vs "
                f"{m:.2f} | {o - m:+.2f} | "
                + ("consistent; " if o < m else "not reproduced: ")
                + reason
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
    parser.add_argument(
        "--error",
        type=float,
        default=ERROR,
        help="maximum allowed error of Metior and BasicBT and the accuracy tolerance "
        "(the paper: 0.03, 0.05 and 0.10)",
    )
    parser.add_argument(
        "--tests-out",
        type=Path,
        help="write the scored per-test frame to this CSV (.csv.gz compresses)",
    )
    parser.add_argument(
        "--from-tests",
        type=Path,
        help="summarise a per-test CSV written by --tests-out instead of replaying",
    )
    parser.add_argument(
        "--section2",
        action="store_true",
        help="Section II: Table I, the resamples' ACF (Figure 3) and Figure 5",
    )
    parser.add_argument(
        "--figures",
        type=Path,
        help="--section2: figure path prefix (writes PREFIX_acf.png and PREFIX_fig5.png)",
    )
    parser.add_argument(
        "--gaps",
        action="store_true",
        help="explain the gaps to the paper from the per-test CSVs of the stride-10 runs",
    )
    args = parser.parse_args(argv)
    if args.gaps:
        from benchmarks import metior_gaps

        return metior_gaps.main(json_path=args.json)
    if args.schedule:
        return schedule_main(args.json)
    if args.section2:
        from benchmarks import metior_section2

        return metior_section2.main(
            json_path=args.json, figure_prefix=args.figures, quick=args.quick, seed=args.seed
        )

    if args.from_tests:
        return report_tests(args.from_tests, args.json)

    names = QUICK_TRACES if args.quick else None
    stride = max(args.start_stride, 25) if args.quick else args.start_stride
    traces = load_pt4cloud(data_root("pt4cloud"), names=names)
    rows, frame = run(
        traces,
        stride=stride,
        techniques=args.techniques,
        statistics=args.statistics,
        seed=args.seed,
        workers=args.workers,
        progress=args.progress,
        block_from=args.block_from,
        error=args.error,
    )
    if args.tests_out:
        frame.to_csv(args.tests_out, index=False)
    print(
        f"start stride {stride}, seed {args.seed}, {len(traces)} traces, "
        f"Metior block length from {args.block_from}"
    )
    print(table(rows, args.error))
    print(cost_summary(rows, args.error))
    comparison = sensitivity_comparison(rows, frame, args.error)
    if comparison:
        print(comparison)
    print(NOTES)
    if args.json:
        payload = {
            "start_stride": stride,
            "seed": args.seed,
            "quick": args.quick,
            "block_from": args.block_from,
            "error": args.error,
            "rows": rows,
        }
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


def report_tests(path: Path, json_path: Path | None) -> int:
    """Summarise a per-test CSV (``--tests-out``): the same table, no replay."""
    frame = pd.read_csv(path)
    if frame.empty:
        raise ValueError(f"{path} holds no tests")
    meta = {k: frame[k].iloc[0] for k in ("error", "stride", "seed", "block_from")}
    error = float(meta["error"])
    rows = summarise(frame)
    print(
        f"start stride {meta['stride']}, seed {meta['seed']}, {frame['trace'].nunique()} "
        f"traces, Metior block length from {meta['block_from']}, error {error:g} "
        f"(tests from {path.name})"
    )
    print(table(rows, error))
    print(cost_summary(rows, error))
    comparison = sensitivity_comparison(rows, frame, error)
    if comparison:
        print(comparison)
    print(NOTES)
    if json_path:
        payload = {**{k: _plain(v) for k, v in meta.items()}, "tests": path.name, "rows": rows}
        json_path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


#: Quick mode: two AWS and two Chameleon configurations.
QUICK_TRACES = ("AWS-FT-L", "AWS-TPCC-XL", "Chameleon-FT-M", "Chameleon-JPS-L")


if __name__ == "__main__":
    sys.exit(main())
