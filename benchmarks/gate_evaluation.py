"""The regression gate on real traces: false regressions on A/A suites, detection of +5%.

Benchmarks are built from the 163 real traces (130 serverless SCOPE traces,
33 eight-week PT4Cloud cloud traces): a benchmark is a window of ``2 n``
consecutive runs of a trace (trace and window drawn at random), split into
a baseline (even positions) and a contender (odd positions), as an A/B run
that alternates the two versions would collect them. A suite is 200 such
benchmarks (traces drawn with replacement, so a trace may appear twice with
different windows).

* A/A: the suite as built. Every regression flagged is false; with every
  hypothesis null the false discovery rate is the chance that a suite flags
  any, which must be at most the FDR (0.05).
* Injected: 10% of the benchmarks (20 of 200) get their contender
  multiplied by 1.05; at least 95% of those must be flagged regression
  (threshold 2%, FDR 0.05, 95% CIs, median).

Not part of a paper's reproduction: it evaluates ``perfstats.gate`` (the
verdicts of a regression gate over a suite) on the real traces, read by
``benchmarks/_traces.py``.

Usage::

    PERFSTATS_DATA=/work/shared/data python -m benchmarks.gate_evaluation \\
        [--runs 200] [--aa-suites 100] [--ab-suites 20] [--resamples 1000] [--paired] \\
        [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import load_scope, pt4cloud_by_name  # noqa: E402
from perfstats import gate  # noqa: E402

SUITE = 200
INJECTED = 20
CHANGE = 1.05


def load_traces(root: Path | None = None) -> dict[str, np.ndarray]:
    """The 163 real traces by name: SCOPE's 130, then the 33 cloud traces by file name."""
    out: dict[str, np.ndarray] = {}
    for start, functions in load_scope(root).items():
        for name, x in functions.items():
            out[f"scope/{start}/{name}"] = x
    for name, x in pt4cloud_by_name(root).items():
        out[f"pt4cloud/{name}"] = x
    return out


def build_suite(
    traces: dict[str, np.ndarray], runs: int, rng: np.random.Generator, injected: int
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], set[str]]:
    """Baseline and contender of one suite, and the names given a +5% change."""
    names = list(traces)
    usable = [k for k in names if traces[k].size >= 2 * runs]
    picks = rng.choice(len(usable), SUITE, replace=True)
    base: dict[str, np.ndarray] = {}
    cont: dict[str, np.ndarray] = {}
    for i, k in enumerate(picks):
        x = traces[usable[k]]
        s = int(rng.integers(0, x.size - 2 * runs + 1))
        window = x[s : s + 2 * runs]
        name = f"{i:03d}:{usable[k]}"
        base[name], cont[name] = window[0::2], window[1::2].copy()
    chosen = {list(base)[i] for i in rng.choice(SUITE, injected, replace=False)}
    for name in chosen:
        cont[name] = cont[name] * CHANGE
    return base, cont, chosen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="runs per side and benchmark")
    ap.add_argument("--aa-suites", type=int, default=100)
    ap.add_argument("--ab-suites", type=int, default=20)
    ap.add_argument("--paired", action="store_true", help="read runs as interleaved pairs")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    traces = load_traces()
    rng = np.random.default_rng(args.seed)
    opts: dict[str, Any] = {"threshold": 0.02, "fdr": 0.05, "level": 0.95,
                            "paired": args.paired, "n_resamples": args.resamples}  # fmt: skip
    t0 = time.perf_counter()

    flagged_suites = 0
    false_flags = 0
    aa_counts = dict.fromkeys(("regression", "improvement", "equivalent", "inconclusive"), 0)
    for _ in range(args.aa_suites):
        base, cont, _ = build_suite(traces, args.runs, rng, injected=0)
        res = gate(base, cont, rng=rng, **opts)
        for k, v in res.counts.items():
            aa_counts[k] += v
        flags = res.counts["regression"]
        false_flags += flags
        flagged_suites += flags > 0
    aa_rate = flagged_suites / args.aa_suites

    detected = injected_total = false_ab = 0
    ab_counts = dict.fromkeys(aa_counts, 0)
    for _ in range(args.ab_suites):
        base, cont, chosen = build_suite(traces, args.runs, rng, injected=INJECTED)
        res = gate(base, cont, rng=rng, **opts)
        for b in res.benchmarks:
            if b.name in chosen:
                injected_total += 1
                detected += b.verdict == "regression"
                ab_counts[b.verdict] += 1
            else:
                false_ab += b.verdict == "regression"
    share = detected / injected_total
    took = time.perf_counter() - t0
    report = {
        "traces": len(traces), "suite": SUITE, "runs_per_side": args.runs, "options": opts,
        "seed": args.seed,
        "aa": {"suites": args.aa_suites, "suites_with_a_false_regression": flagged_suites,
               "suite_false_regression_rate": aa_rate,
               "false_regressions_per_benchmark": false_flags / (args.aa_suites * SUITE),
               "verdicts": aa_counts, "pass": aa_rate <= opts["fdr"]},
        "injected": {"suites": args.ab_suites, "injected": injected_total,
                     "flagged_regression": detected, "share": share,
                     "verdicts_of_injected": ab_counts,
                     "false_regressions_among_the_rest": false_ab, "pass": share >= 0.95},
        "seconds": took,
    }  # fmt: skip
    print(
        f"{len(traces)} real traces; suites of {SUITE} benchmarks, {args.runs} runs a side "
        f"(interleaved halves of a random window), threshold 2%, FDR 0.05, "
        f"{'paired' if args.paired else 'unpaired'}"
    )
    print(
        f"A/A: {flagged_suites} of {args.aa_suites} suites flagged any regression "
        f"({aa_rate:.1%}; FDR 5%); false regressions per benchmark "
        f"{false_flags / (args.aa_suites * SUITE):.4%}; verdicts {aa_counts}"
    )
    print(
        f"+5% in {INJECTED} of {SUITE}: {detected} of {injected_total} flagged regression "
        f"({share:.1%}); verdicts of the injected {ab_counts}; {false_ab} false regressions "
        f"among the other {args.ab_suites * (SUITE - INJECTED)}"
    )
    print(
        f"{'PASS' if report['aa']['pass'] and report['injected']['pass'] else 'FAIL'} "
        f"({took:.0f} s)"
    )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
