"""Protocol C's script: its rule list and one short evaluation on real traces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks import reproduce_sharp
from perfstats.rules import Rule


def test_protocol_c_scores_every_sharp_rule_and_the_baselines() -> None:
    wanted = {
        "Fixed-100",
        "SHARP-CI-0.05",
        "SHARP-KS",
        "SHARP-RSE",
        "SHARP-HDI",
        "SHARP-BB",
        "SHARP-GMM",
        "SHARP-Auto",
        "SuperFlow-1",
        "SuperFlow-2",
        "SuperFlow-3",
        "Metior",
        "PT4Cloud",
    }
    assert wanted <= set(reproduce_sharp.RULES)
    assert all(isinstance(r, Rule) for r in reproduce_sharp.RULES.values())


def test_a_short_evaluation_gives_the_table_rows(perfstats_data: Path) -> None:
    sets = reproduce_sharp.load_traces(perfstats_data, quick=True)
    assert len(sets["scope"]) == 26 and len(sets["cloud"]) == 7
    small = {"scope": dict(list(sets["scope"].items())[:3]), "cloud": {}}
    name, x = min(sets["cloud"].items(), key=lambda kv: kv[1].size)
    small["cloud"][name] = x
    chosen = {k: reproduce_sharp.RULES[k] for k in ("Fixed-100", "SHARP-KS")}
    rows = reproduce_sharp.evaluate(chosen, small, workers=1)
    assert [(r["rule"], r["trace_set"]) for r in rows] == [
        ("Fixed-100", "scope"),
        ("Fixed-100", "cloud"),
        ("SHARP-KS", "scope"),
        ("SHARP-KS", "cloud"),
    ]
    fixed_scope = rows[0]
    assert fixed_scope["pct_saved"] == pytest.approx(90.0)  # 100 of 1,000 runs
    assert fixed_scope["traces"] == 3
    cloud = rows[1]
    assert cloud["pct_saved"] == pytest.approx(100.0 * (1 - 100 / x.size), abs=0.01)
    for r in rows:
        assert 0.0 <= r["mean_ks"] <= 1.0 and 0.0 <= r["p90_ks"] <= 1.0
        assert r["mean_namd"] >= 0.0 and np.isfinite(r["p90_namd"])
