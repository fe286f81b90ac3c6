"""Honest intervals at the stop: SuperFlow 1 beside rules whose intervals survive optional stopping.

A rule that checks every 5 runs and stops at the first narrow interval
reports an interval picked for being narrow. This benchmark replays, with
protocol A of ``benchmarks/reproduce_superflow.py`` (whose ``run`` and
scoring it imports), SuperFlow 1 beside:

* ``Quantile-CS``: :class:`perfstats.rules.QuantileSequence`, SuperFlow's
  accuracy check on beta-binomial confidence sequences for P25/P50/P75
  (Howard & Ramdas), anytime-valid by construction, at several errors and
  intrinsic times;
* ``SuperFlow-1-level99``: a plain level correction for the looks
  (SuperFlow 1 with 99% intervals);
* ``Fixed-n``: the credibility a fixed count scores, the yardstick of the
  metric itself.

Two figures are printed per rule:

* SuperFlow's *credibility* (the stop sample's percentile strictly inside
  the whole trace's 95% order-normal interval), accuracy and mean stop n,
  as in Tables 2 and 3;
* the *coverage at the stop*: the share of traces whose own interval at the
  stop holds the whole trace's percentile (what "an interval that keeps its
  stated level" means), and, on simulated i.i.d. lognormal sequences with
  a known quantile, the share whose interval at the stop holds the true
  quantile.

Usage::

    python -m benchmarks.honest_intervals [--quick] [--simulations 200] [--workers 2]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

# Run as a script too: the package of this checkout, not an installed one.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import data_root, load_scope  # noqa: E402
from benchmarks.reproduce_superflow import PERCENTILES, run  # noqa: E402
from perfstats import percentile_ci  # noqa: E402
from perfstats.replay import replay  # noqa: E402
from perfstats.rules import Fixed, QuantileSequence, Rule, SuperFlow  # noqa: E402

QUARTILES = (0.25, 0.5, 0.75)
#: The goal: credibility >= 95% at every quartile, runs <= 110% of SuperFlow 1's,
#: accuracy within 0.5 points of it.
GOAL_CREDIBLE, GOAL_RUNS, GOAL_ACCURACY = 95.0, 1.10, 0.5
#: Log-scale spread of the simulated runs: SuperFlow 1 stops near 300 runs on them,
#: as on the real traces.
SIM_SIGMA = 0.07


def candidates(quick: bool = False) -> dict[str, Rule]:
    """SuperFlow 1 and the rules beside it (``quick``: the three that tell the story)."""
    rules: dict[str, Rule] = {
        "SuperFlow-1": SuperFlow(method="order-normal"),
        "Quantile-CS r=1% t=300": QuantileSequence(error=0.01, intrinsic_time=300.0),
        "Quantile-CS r=2% t=300": QuantileSequence(error=0.02, intrinsic_time=300.0),
    }
    if quick:
        return rules
    rules.update(
        {
            "Quantile-CS r=1% t=1000": QuantileSequence(error=0.01, intrinsic_time=1000.0),
            "Quantile-CS r=1.5% t=300": QuantileSequence(error=0.015, intrinsic_time=300.0),
            "Quantile-CS r=1.5% t=150": QuantileSequence(error=0.015, intrinsic_time=150.0),
            "Quantile-CS r=2% t=150": QuantileSequence(error=0.02, intrinsic_time=150.0),
            "SuperFlow-1-level99": SuperFlow(method="order-normal", level=0.99),
            "Fixed-300": Fixed(n=300),
            "Fixed-315": Fixed(n=315),
            "Fixed-500": Fixed(n=500),
        }
    )
    return rules


def stop_intervals(rule: Rule, x: np.ndarray) -> list[tuple[float, float]]:
    """The rule's own P25/P50/P75 intervals on ``x`` (its stop sample).

    A rule that reports none (a fixed count) gets the fixed-size 95%
    order-normal intervals, which are honest at a fixed size.
    """
    if isinstance(rule, QuantileSequence):
        by_q = {iv.q: iv for iv in rule.intervals(x)}
        return [(by_q[q].low, by_q[q].high) for q in QUARTILES]
    if isinstance(rule, SuperFlow):
        got = rule.check(x).details["current"]
        return [(got[f"P{100 * q:g}"]["low"], got[f"P{100 * q:g}"]["high"]) for q in QUARTILES]
    ivs = percentile_ci(x, list(QUARTILES), level=0.95, method="order-normal")
    return [(iv.low, iv.high) for iv in ivs]


def coverage(
    rule: Rule, traces: dict[str, np.ndarray], truth: Any = None, *, workers: int = 1
) -> list[float]:
    """% of traces whose interval at the stop holds the truth, per quartile.

    ``truth`` maps a trace to its true quartiles; by default the whole
    trace's percentiles (the ground truth of protocol A).
    """
    stops = replay(rule, traces, workers=workers, progress=False)
    hits = []
    for name, n in zip(stops["trace"], stops["stop_n"], strict=True):
        x = traces[name]
        true = np.quantile(x, QUARTILES) if truth is None else truth[name]
        bounds = stop_intervals(rule, x[: int(n)])
        hits.append([lo <= t <= hi for (lo, hi), t in zip(bounds, true, strict=True)])
    return [round(100.0 * float(v), 2) for v in np.mean(hits, axis=0)]


def simulated(count: int, seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``count`` i.i.d. lognormal sequences of 1,000 runs and their true quartiles."""
    rng = np.random.default_rng(seed)
    traces = {f"sim{i}": rng.lognormal(np.log(100.0), SIM_SIGMA, size=1000) for i in range(count)}
    true = 100.0 * np.exp(SIM_SIGMA * stats.norm.ppf(QUARTILES))
    return traces, {name: true for name in traces}


def iid_credibility(n: float, total: int = 1000, z: float = 1.96) -> float:
    """SuperFlow's credibility (%) of a fixed ``n`` of ``total`` i.i.d. runs, to first order.

    The first ``n`` runs' percentile differs from the whole trace's by about
    ``sd * sqrt(1/n - 1/total)`` (the whole contains the part), and the
    truth's interval is ``z * sd / sqrt(total)`` on each side, so the
    percentile falls inside with probability ``2 Phi(z sqrt(n / (total - n))) - 1``,
    whatever the distribution and whichever interval the rule computed.
    """
    if n >= total:
        return 100.0
    return float(100.0 * (2.0 * stats.norm.cdf(z * np.sqrt(n / (total - n))) - 1.0))


def verdict(row: dict[str, Any], base: dict[str, Any]) -> str:
    cred = min(row["credible"][p] for p in ("25", "50", "75"))
    runs_ok = row["mean_stop_n"] <= GOAL_RUNS * base["mean_stop_n"]
    acc_ok = row["accuracy"] >= base["accuracy"] - GOAL_ACCURACY
    misses = [
        what
        for what, ok in (
            (f"credibility {cred:.1f} < 95", cred >= GOAL_CREDIBLE),
            ("runs > 110%", runs_ok),
            ("accuracy", acc_ok),
        )
        if not ok
    ]
    return "MEETS GOAL" if not misses else "misses: " + ", ".join(misses)


def combined(rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """Mean of the cold and warm rows of one technique."""
    mine = [r for r in rows if r["technique"] == name]
    return {
        "technique": name,
        "accuracy": float(np.mean([r["accuracy"] for r in mine])),
        "credible": {p: float(np.mean([r["credible"][p] for r in mine])) for p in PERCENTILES},
        "mean_stop_n": float(np.mean([r["mean_stop_n"] for r in mine])),
        "stopped_pct": float(np.mean([r["stopped_pct"] for r in mine])),
        "coverage": [float(np.mean([r["coverage"][j] for r in mine])) for j in range(3)],
    }


def render(rows: list[dict[str, Any]], sims: dict[str, list[float]]) -> str:
    head = (
        f"{'technique':26} {'start':5} {'acc':>6} "
        + " ".join(f"{'cr P' + p:>7}" for p in PERCENTILES)
        + f" {'runs':>6} {'%SF1':>5} {'stop%':>6} "
        + " ".join(f"{'cov P' + p:>7}" for p in ("25", "50", "75"))
    )
    lines = [
        "credibility (cr) = SuperFlow's metric; cov = own interval at the stop holds "
        "the whole trace's percentile, %",
        head,
        "-" * len(head),
    ]
    base = {s: r for r in rows if r["technique"] == "SuperFlow-1" for s in [r["start"]]}
    for r in rows:
        share = 100.0 * r["mean_stop_n"] / base[r["start"]]["mean_stop_n"]
        lines.append(
            f"{r['technique']:26} {r['start']:5} {r['accuracy']:6.2f} "
            + " ".join(f"{r['credible'][p]:7.1f}" for p in PERCENTILES)
            + f" {r['mean_stop_n']:6.1f} {share:5.0f} {r['stopped_pct']:6.1f} "
            + " ".join(f"{c:7.1f}" for c in r["coverage"])
        )
    lines += ["", "mean of cold and warm, against the goal:"]
    names = list(dict.fromkeys(r["technique"] for r in rows))
    sf1 = combined(rows, "SuperFlow-1")
    for name in names:
        c = combined(rows, name)
        lines.append(
            f"{name:26} acc {c['accuracy']:6.2f}  cr "
            + "/".join(f"{c['credible'][p]:.1f}" for p in PERCENTILES)
            + f"  runs {c['mean_stop_n']:6.1f} ({100 * c['mean_stop_n'] / sf1['mean_stop_n']:.0f}%)"
            + "  cov "
            + "/".join(f"{v:.1f}" for v in c["coverage"])
            + f"  {verdict(c, sf1)}"
        )
    budget = GOAL_RUNS * sf1["mean_stop_n"]
    lines += [
        "",
        "credibility of a fixed n of 1,000 i.i.d. runs (first order, any distribution): "
        + ", ".join(
            f"n={n:.0f}: {iid_credibility(n):.1f}" for n in (sf1["mean_stop_n"], budget, 400, 500)
        )
        + f"  (n={sf1['mean_stop_n']:.0f} is SuperFlow 1's mean, n={budget:.0f} the goal's budget)",
    ]
    if sims:
        lines += [
            "",
            "simulated i.i.d. lognormal (sigma 0.07), 1,000 runs each: % whose interval at "
            "the stop holds the TRUE P25/P50/P75",
        ]
        for name, cov in sims.items():
            lines.append(f"{name:26} " + " / ".join(f"{v:5.1f}" for v in cov))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every fifth function, 3 rules")
    parser.add_argument("--simulations", type=int, default=200, help="simulated sequences")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rules = candidates(quick=args.quick)
    data = load_scope(data_root(), quick=args.quick)
    rows = run(rules, data, workers=args.workers)
    for row in rows:
        row["coverage"] = coverage(
            rules[row["technique"]], data[row["start"]], workers=args.workers
        )
    sims: dict[str, list[float]] = {}
    if args.simulations > 0:
        traces, truth = simulated(args.simulations)
        for name, rule in rules.items():
            if not isinstance(rule, Fixed):
                sims[name] = coverage(rule, traces, truth, workers=args.workers)
    print(render(rows, sims))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "simulated": sims}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
