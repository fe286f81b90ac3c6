"""Change detection on the 130 real serverless traces: false positives and detection rates.

Protocol: for each trace (65 functions x cold/warm starts, SCOPE
data, 1,000 invocations in order), version A is the even-numbered
invocations and version B the odd-numbered ones. A/A compares them as they
are; A/B multiplies B by ``1 + d``. With the first ``n`` of each version
(n = 45, 100, 500) we count how often each method flags a change:

* ``relative_change``: 99% bootstrap CI of the relative median change
  excludes 0 (ElastiBench, 001_*), versions resampled independently;
* ``relative_change_paired``: the same, invocation pairs ``(2i, 2i+1)``
  resampled jointly (ElastiBench's duet set-up);
* ``wilcoxon``: rank-sum p < 0.05;
* ``liao``: rank-sum p < 0.05 and Cliff's delta beyond negligible (Liao et
  al., 004_*).

On A/A (d = 0) every flag is a false positive. On A/B a detection counts
only when the method also gets the direction right (B slower; for the rank
tests, Cliff's delta of B against A is positive).

Not a figure of one paper's reproduction: it weighs ElastiBench's and Liao
et al.'s change tests side by side on SuperFlow's traces (read by
``benchmarks/_traces.py``).

Usage::

    python -m benchmarks.change_detection [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import STARTS, load_scope  # noqa: E402
from perfstats.comparison.change import relative_change  # noqa: E402
from perfstats.comparison.effects import cliffs_delta, wilcoxon_ranksum  # noqa: E402

SIZES = (45, 100, 500)
DELTAS = (0.0, 0.01, 0.03, 0.05, 0.10, 0.50)
METHODS = ("relative_change", "relative_change_paired", "wilcoxon", "liao")
LEVEL = 0.99
ALPHA = 0.05


@dataclass(frozen=True)
class Trace:
    """One function's latencies (ms) in invocation order."""

    start: str
    function: str
    values: np.ndarray


def load_traces(every: int = 1) -> list[Trace]:
    """The 130 traces (every ``every``-th function of each CSV)."""
    return [
        Trace(start, name, values)
        for start, functions in load_scope(every=every).items()
        for name, values in functions.items()
    ]


def flags(
    base: np.ndarray, cand: np.ndarray, n_resamples: int, seed: list[int]
) -> dict[str, tuple[bool, int]]:
    """Per method: (flagged, sign) where sign is +1 slower, -1 faster, 0 none."""
    out: dict[str, tuple[bool, int]] = {}
    sign = {"slower": 1, "faster": -1, "none": 0}
    for method, paired in (("relative_change", False), ("relative_change_paired", True)):
        rc = relative_change(
            base, cand, level=LEVEL, paired=paired, n_resamples=n_resamples,
            rng=np.random.default_rng([*seed, int(paired)]),
        )  # fmt: skip
        out[method] = (rc.changed, sign[rc.direction])
    test = wilcoxon_ranksum(cand, base)
    effect = cliffs_delta(cand, base)
    s = int(np.sign(effect.delta))
    significant = test.pvalue < ALPHA
    out["wilcoxon"] = (significant, s if significant else 0)
    liao = significant and not effect.negligible
    out["liao"] = (liao, s if liao else 0)
    return out


def evaluate(
    traces: Iterable[Trace],
    *,
    sizes: Iterable[int] = SIZES,
    deltas: Iterable[float] = DELTAS,
    n_resamples: int = 10000,
    seed: int = 2024,
) -> pd.DataFrame:
    """One row per (trace, n, d, method) with ``detected`` (bool)."""
    records = []
    deltas = tuple(deltas)
    for t_idx, trace in enumerate(traces):
        a_all, b_all = trace.values[0::2], trace.values[1::2]
        for n in sizes:
            a, b = a_all[:n], b_all[:n]
            for d_idx, d in enumerate(deltas):
                res = flags(a, b * (1.0 + d), n_resamples, [seed, t_idx, n, d_idx])
                for method, (flagged, s) in res.items():
                    detected = flagged if d == 0 else (flagged and s > 0)
                    records.append((method, n, d, trace.start, trace.function, detected))
    return pd.DataFrame(records, columns=["method", "n", "d", "start", "function", "detected"])


def summarise(detail: pd.DataFrame) -> list[dict[str, object]]:
    """``detected_pct`` per method, n, d and start (cold, warm and all)."""
    rows: list[dict[str, object]] = []
    for start in (*STARTS, "all"):
        part = detail if start == "all" else detail[detail["start"] == start]
        pct = part.groupby(["method", "n", "d"], sort=False)["detected"].mean() * 100
        for (method, n, d), value in pct.items():
            rows.append(
                {"method": method, "n": int(n), "d": float(d), "start": start,
                 "detected_pct": round(float(value), 2)}
            )  # fmt: skip
    return rows


def pooled_false_positives(detail: pd.DataFrame) -> pd.Series:
    """A/A false-positive rate (%) per method over all traces and sizes."""
    aa = detail[detail["d"] == 0]
    return aa.groupby("method", sort=False)["detected"].mean() * 100


def table(rows: list[dict[str, object]], start: str = "all") -> str:
    """Methods x sizes against d, for one start kind."""
    frame = pd.DataFrame([r for r in rows if r["start"] == start])
    wide = frame.pivot_table(index=["method", "n"], columns="d", values="detected_pct", sort=False)
    wide.columns = [("A/A FP %" if d == 0 else f"d={d:g} %") for d in wide.columns]
    return wide.to_string(float_format=lambda v: f"{v:6.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="every 5th function, 2000 resamples")
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
    parser.add_argument("--resamples", type=int, help="bootstrap resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    every = 5 if args.quick else 1
    n_resamples = args.resamples or (2000 if args.quick else 10000)
    traces = load_traces(every)
    t0 = time.perf_counter()
    detail = evaluate(traces, n_resamples=n_resamples, seed=args.seed)
    elapsed = time.perf_counter() - t0
    rows = summarise(detail)
    print(
        f"{len(traces)} traces, n per version {SIZES}, {n_resamples} resamples, "
        f"seed {args.seed}, {elapsed:.1f} s"
    )
    for start in ("all", *STARTS):
        print(f"\n== start: {start} (% of traces flagged; d = 0 is A/A) ==")
        print(table(rows, start))
    print("\nA/A false positives pooled over traces and sizes (%):")
    fp = pooled_false_positives(detail)
    n_aa = int((detail["d"] == 0).sum() / len(METHODS))
    for method, value in fp.items():
        print(f"  {method:24s} {value:5.2f}  ({n_aa} comparisons)")
    if args.json:
        config = {
            "traces": len(traces), "sizes": list(SIZES), "deltas": list(DELTAS),
            "n_resamples": n_resamples, "level": LEVEL, "alpha": ALPHA,
            "seed": args.seed, "quick": args.quick,
        }  # fmt: skip
        args.json.write_text(json.dumps({"rows": rows, "config": config}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
