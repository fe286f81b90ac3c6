"""Honest intervals at the stop: the fast part of benchmarks/honest_intervals.py."""

from __future__ import annotations

import math

import numpy as np

from benchmarks._traces import data_root, load_scope
from benchmarks.honest_intervals import (
    candidates,
    coverage,
    iid_credibility,
    render,
    simulated,
)
from benchmarks.reproduce_superflow import run
from perfstats.replay.scoring import credible
from perfstats.rules import QuantileSequence, SuperFlow


def _floor(level: float, reps: int) -> float:
    # three Monte Carlo standard errors below the nominal level, in %
    return 100.0 * (level - 3.0 * math.sqrt(level * (1.0 - level) / reps))


def test_sequence_intervals_hold_the_true_quartiles_at_the_stop() -> None:
    traces, truth = simulated(80, seed=1)
    rule = QuantileSequence(error=0.02)
    assert min(coverage(rule, traces, truth)) >= _floor(0.95, 80)


def test_iid_credibility_matches_a_simulation_of_the_metric() -> None:
    # SuperFlow's credibility of the first n of 1,000 i.i.d. runs, scored
    # by the library's own metric, against the first-order formula.
    rng = np.random.default_rng(4)
    reps = 400
    for n in (300, 500):
        hits = [
            credible(x[:n], x, 0.5)
            for x in (rng.lognormal(0.0, 0.2, size=1000) for _ in range(reps))
        ]
        observed = 100.0 * float(np.mean(hits))
        se = 100.0 * math.sqrt(0.25 / reps)
        assert abs(observed - iid_credibility(n)) <= 3.0 * se + 2.0, (n, observed)
    assert iid_credibility(500) > 94.9 and iid_credibility(300) < 85.0
    assert iid_credibility(1000) == 100.0


def test_protocol_a_rows_on_a_few_real_traces() -> None:
    data = load_scope(data_root(), every=13)
    rules = {k: v for k, v in candidates(quick=True).items() if k != "Quantile-CS r=1% t=300"}
    rows = run(rules, data, workers=1)
    for row in rows:
        row["coverage"] = coverage(rules[row["technique"]], data[row["start"]])
    assert {r["technique"] for r in rows} == set(rules)
    sf1 = [r for r in rows if r["technique"] == "SuperFlow-1"]
    cs = [r for r in rows if r["technique"] == "Quantile-CS r=2% t=300"]
    # SuperFlow 1's stop points are the reproduction's; both rules stop on
    # every trace here, and a stop is never before the first judgement.
    assert all(r["stopped_pct"] == 100.0 and r["mean_stop_n"] >= 10 for r in sf1 + cs)
    assert all(0.0 <= c <= 100.0 for r in rows for c in r["coverage"])
    text = render(rows, {"SuperFlow-1": [90.0, 91.0, 92.0]})
    assert "MEETS GOAL" in text or "misses:" in text
    assert "SuperFlow-1" in text and "Quantile-CS r=2% t=300" in text
    assert isinstance(rules["SuperFlow-1"], SuperFlow)
