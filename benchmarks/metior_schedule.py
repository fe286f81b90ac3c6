"""Metior's measurement schedule (Section III-C) chosen from the 33 PT4Cloud cloud traces.

The paper chose one interval of one day (the largest Politis-White block
length over its pilot traces was 24 hours of runs) and four runs per hour
(thinning further moved the lag-1 autocorrelation by more than 0.1).
``perfstats.schedule`` does both from data; here it is applied to the test
part (first three weeks) of every trace, whose runs carry no timestamps: the
sampling interval is taken as three weeks over the number of runs. The
paper's own pilot set (ft and IMA on Chameleon L and AWS 2XL, Section II) is
shown too.

Note on the data: the test parts hold 1.8 to 6.8 runs per hour (most about 4),
far fewer than back-to-back execution gives (EP on AWS runs in 49 s, and the
ground-truth part of its trace holds about 70 runs per hour), so the
artifact's test parts already look thinned to Metior's schedule. Thinning
can therefore only be tested below their own rate.

Usage::

    python benchmarks/metior_schedule.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reproduce_metior import Trace, data_root, load_pt4cloud

import perfstats

WEEK_S = 7 * 86400.0
PAPER_INTERVAL_H = 24.0
PAPER_RUNS_PER_HOUR = 4.0
#: ft and IMA on Chameleon Large and AWS m5.2xlarge (Metior, Section II).
PAPER_PILOTS = ("Chameleon-FT-L", "AWS-FT-2XL", "Chameleon-IMA-L", "AWS-IMA-2XL")


def choose(traces: Sequence[Trace]) -> perfstats.Schedule:
    """The schedule from the test parts, three weeks each."""
    return perfstats.schedule(
        {t.name: t.test for t in traces},
        sampling_interval={t.name: 3 * WEEK_S / t.n_test for t in traces},
    )


def summary(s: perfstats.Schedule) -> dict[str, Any]:
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


def show(title: str, res: dict[str, Any], *, candidates: int = 8) -> None:
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    traces = load_pt4cloud(data_root())
    results = {
        "all 33 traces": summary(choose(traces)),
        "the paper's pilots (ft, IMA; Chameleon L, AWS 2XL)": summary(
            choose([t for t in traces if t.name in PAPER_PILOTS])
        ),
    }
    for title, res in results.items():
        show(title, res)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
