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


# --- Section V-B and the synthetic distributions ----------------------------------


def test_day_pairs_compare_every_pair_of_five_equal_segments() -> None:
    x = np.concatenate([np.full(100, 10.0), np.full(100, 10.0), np.arange(100.0) + 5.0,
                        np.full(100, 10.0), np.full(100, 20.0)])  # fmt: skip
    pairs = reproduce_sharp.day_pairs(x)
    assert [(p["day_a"], p["day_b"]) for p in pairs] == [
        (a, b) for a in range(1, 6) for b in range(a + 1, 6)
    ]
    by_days = {(p["day_a"], p["day_b"]): p for p in pairs}
    assert by_days[1, 2]["ks"] == 0.0 and by_days[1, 2]["namd"] == 0.0
    # Segments 10 and 20: every run differs (KS 1), means differ by 10.
    assert by_days[1, 5]["ks"] == 1.0
    assert by_days[1, 5]["namd"] == pytest.approx(0.5 * (10 / 10 + 10 / 20))
    # Equal means, different spread: NAMD sees nothing that KS sees.
    spread = np.concatenate([np.full(50, 9.0), np.full(50, 11.0)])
    same_mean = reproduce_sharp.day_pairs(np.concatenate([np.full(100, 10.0), spread]), days=2)
    assert same_mean[0]["namd"] == 0.0 and same_mean[0]["ks"] == 0.5
    with pytest.raises(ValueError, match="too few"):
        reproduce_sharp.day_pairs(np.ones(9))


def test_similarity_counts_pairs_a_point_summary_misses(perfstats_data: Path) -> None:
    from benchmarks._traces import load_pt4cloud

    traces = {t.name: t.runs for t in load_pt4cloud(perfstats_data)[:3]}
    result = reproduce_sharp.similarity(traces)
    assert result["pairs"] == 30 == len(result["rows"])
    ks = np.array([r["ks"] for r in result["rows"]])
    namd = np.array([r["namd"] for r in result["rows"]])
    assert result["dissimilar_share"] == pytest.approx(np.mean(ks >= 0.1))
    assert result["hidden_by_namd"] == int(np.sum((ks >= 0.1) & (namd < 0.01)))
    assert reproduce_sharp.widest_disagreement(result) in traces
    assert "30 day pairs" in reproduce_sharp.similarity_table(result)


@pytest.mark.parametrize("name", sorted(reproduce_sharp.EXPECTED))
def test_synthetic_distributions_are_positive_samples_of_the_size_asked(name: str) -> None:
    x = reproduce_sharp.synthetic(name, np.random.default_rng(0), 300)
    assert x.shape == (300,) and np.isfinite(x).all()
    if name != "cauchy":
        assert (x > 0).all()


def test_sharp_thresholds_call_a_narrow_range_constant_and_perfstats_does_not() -> None:
    x = reproduce_sharp.synthetic("near-constant (+-1%)", np.random.default_rng(1), 1000)
    assert reproduce_sharp.sharp_thresholds_class(x) == "constant"
    assert reproduce_sharp.distribution_class(x) != "constant"
    rows = reproduce_sharp.synthetic_study(seeds=2, n=400)
    by_name = {r["distribution"]: r for r in rows}
    assert by_name["constant"]["perfstats"] == {"constant": 2}
    assert by_name["autocorrelated sinusoid"]["sharp_thresholds"] == {"autocorrelated": 2}
    with pytest.raises(ValueError, match="unknown synthetic"):
        reproduce_sharp.synthetic("gamma", np.random.default_rng(0))
