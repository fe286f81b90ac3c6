"""perfstats.gate: verdicts, Benjamini-Hochberg, geometric mean, bad input, renderers."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

import perfstats
from perfstats import benjamini_hochberg, gate, parse_threshold
from perfstats.regression_gate.render import gate_junit, gate_markdown, gate_table

B = 1000  # resamples: enough for stable verdicts on the clear cases below


@given(
    st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=60),
)
@settings(max_examples=200, deadline=None)
def test_bh_matches_statsmodels(p: list[float]) -> None:
    ours = benjamini_hochberg(p)
    ref = multipletests(p, method="fdr_bh")[1]
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("bad", [[], [0.1, 1.2], [float("nan")], [[0.1, 0.2]], "x"])
def test_bh_rejects_bad_input(bad: object) -> None:
    with pytest.raises(ValueError, match="pvalues"):
        benjamini_hochberg(bad)


@pytest.mark.parametrize(
    ("text", "value"),
    [("2%", 0.02), ("0.02", 0.02), (0.02, 0.02), (" 2.5 % ", 0.025), ("0", 0.0), (0, 0.0)],
)
def test_parse_threshold(text: object, value: float) -> None:
    assert parse_threshold(text) == pytest.approx(value, abs=1e-15)


@pytest.mark.parametrize("bad", ["two", "2%%", "-1%", "100%", 1.5, True, None, float("nan")])
def test_parse_threshold_rejects(bad: object) -> None:
    with pytest.raises(ValueError, match="threshold"):
        parse_threshold(bad)


def _suite(seed: int = 0, n: int = 40, sigma: float = 0.01) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f"b{i}": rng.lognormal(0.0, sigma, n) for i in range(6)}


def test_three_clear_verdicts_and_fields() -> None:
    rng = np.random.default_rng(11)
    base = _suite(1)
    cont = {k: rng.lognormal(0.0, 0.01, 40) for k in base}
    cont["b0"] = cont["b0"] * 1.10
    cont["b1"] = cont["b1"] * 0.90
    res = gate(base, cont, rng=3, n_resamples=B)
    v = {b.name: b.verdict for b in res.benchmarks}
    assert v["b0"] == "regression"
    assert v["b1"] == "improvement"
    assert all(v[f"b{i}"] == "equivalent" for i in range(2, 6))
    assert res.counts == {"regression": 1, "improvement": 1, "equivalent": 4, "inconclusive": 0,
                          "error": 0}  # fmt: skip
    assert res.exit_code() == 1 and res.regressed
    b0 = res["b0"]
    # The ratio is the ratio of the medians; p-value is SciPy's rank-sum test.
    assert b0.ratio == pytest.approx(np.median(cont["b0"]) / np.median(base["b0"]), rel=1e-12)
    assert b0.ci_low < b0.ratio < b0.ci_high
    assert b0.p_value == pytest.approx(stats.mannwhitneyu(cont["b0"], base["b0"]).pvalue)
    assert b0.cliffs_delta == perfstats.cliffs_delta(cont["b0"], base["b0"]).delta
    ref_adj = multipletests([b.p_value for b in res.benchmarks], method="fdr_bh")[1]
    np.testing.assert_allclose([b.p_adjusted for b in res.benchmarks], ref_adj)
    assert all(b.runs_needed is None for b in res.benchmarks)


def test_same_seed_same_result_and_statistic_choices() -> None:
    base, cont = _suite(2), _suite(3)
    assert gate(base, cont, rng=5, n_resamples=B) == gate(base, cont, rng=5, n_resamples=B)
    for stat in ("mean", 0.9):
        res = gate(base, {k: v * 1.1 for k, v in base.items()}, statistic=stat, rng=1,
                   n_resamples=B)  # fmt: skip
        assert res.counts["regression"] == 6
        assert res.statistic in ("mean", "q=0.9")


def test_paired_uses_signed_rank_and_pairs() -> None:
    rng = np.random.default_rng(8)
    # Shared per-pair noise of 20% that pairing cancels; a 5% change.
    shared = rng.lognormal(0.0, 0.2, 30)
    base = {"x": shared * rng.lognormal(0, 0.005, 30)}
    cont = {"x": shared * 1.05 * rng.lognormal(0, 0.005, 30)}
    paired = gate(base, cont, paired=True, rng=1, n_resamples=B)
    unpaired = gate(base, cont, paired=False, rng=1, n_resamples=B)
    assert paired["x"].verdict == "regression"
    assert unpaired["x"].verdict == "inconclusive"
    assert paired["x"].p_value == pytest.approx(stats.wilcoxon(cont["x"], base["x"]).pvalue)
    with pytest.raises(ValueError, match="paired=True needs equal run counts"):
        gate({"x": [1.0, 2.0, 3.0]}, {"x": [1.0, 2.0]}, paired=True)


@given(n=st.integers(2, 4), seed=st.integers(0, 2**16))
@settings(max_examples=25, deadline=None)
def test_never_equivalent_on_too_little_data(n: int, seed: int) -> None:
    # Identical paired samples give a CI of exactly [0, 0]: equivalent if n allowed it.
    x = np.random.default_rng(seed).lognormal(0, 0.01, n)
    res = gate({"a": x}, {"a": x.copy()}, paired=True, rng=seed, n_resamples=200)
    assert res["a"].verdict == "inconclusive"
    assert res["a"].runs_needed is not None and res["a"].runs_needed >= 5 - n
    assert gate({"a": x}, {"a": x.copy()}, paired=True, min_equivalent_runs=n, rng=0,
                n_resamples=200)["a"].verdict == "equivalent"  # fmt: skip


def test_fdr_controls_marginal_regressions() -> None:
    # A/A suite at delta=0: a CI alone would flag some benchmarks.
    rng = np.random.default_rng(21)
    base = {f"n{i}": rng.lognormal(0, 0.05, 12) for i in range(50)}
    cont = {k: rng.lognormal(0, 0.05, 12) for k in base}
    res = gate(base, cont, threshold=0.0, rng=2, n_resamples=B)
    vetoed = 0
    for b in res.benchmarks:
        if b.verdict in ("regression", "improvement"):
            assert b.p_adjusted < 0.05
        if (b.ci_low > 1 or b.ci_high < 1) and b.p_adjusted >= 0.05:
            assert b.verdict == "inconclusive"
            assert "p_adj" in b.reason
            vetoed += 1
    # A/A: a few CIs exclude 1 by chance; Benjamini-Hochberg vetoes them.
    assert vetoed >= 1
    assert res.counts["regression"] == res.counts["improvement"] == 0


def test_runs_needed_projection_decides_with_more_runs() -> None:
    # A true 8% regression with noisy runs: inconclusive at n=6; the
    # projected number of further runs should usually decide it.
    decided = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        base = rng.lognormal(0, 0.06, 6)
        cont = rng.lognormal(0, 0.06, 6) * 1.08
        first = gate({"a": base}, {"a": cont}, rng=seed, n_resamples=B)["a"]
        if first.verdict != "inconclusive" or first.runs_needed is None:
            continue
        extra = first.runs_needed
        base2 = np.concatenate([base, rng.lognormal(0, 0.06, extra)])
        cont2 = np.concatenate([cont, rng.lognormal(0, 0.06, extra) * 1.08])
        decided += gate({"a": base2}, {"a": cont2}, rng=seed, n_resamples=B)["a"].verdict != (
            "inconclusive"
        )
        assert first.runs_needed >= 1
    assert decided >= 4


def test_runs_needed_formula_for_equivalence() -> None:
    # est 0, CI +-3%, delta 2%: half-width must shrink by 2/3 -> n * 9/4.
    from perfstats.regression_gate.verdicts import _runs_needed

    assert _runs_needed(0.0, -0.03, 0.03, 0.02, 20, 20, 0.5, 0.5, 0.05, 5) == 25
    # est exactly on the threshold: no number of runs decides.
    assert _runs_needed(0.02, 0.0, 0.04, 0.02, 20, 20, 0.01, 0.01, 0.05, 5) is None


def test_geomean_of_exact_ratios_and_single_benchmark_ci() -> None:
    base = _suite(4)
    factors = [1.0, 1.02, 1.04, 0.98, 1.10, 0.95]
    cont = {k: v * f for (k, v), f in zip(base.items(), factors, strict=True)}
    res = gate(base, cont, rng=1, n_resamples=B)
    assert res.geomean == pytest.approx(math.prod(factors) ** (1 / 6), rel=1e-12)
    assert res.geomean_low < res.geomean < res.geomean_high
    one = gate({"a": base["b0"]}, {"a": base["b0"] * 1.1 * np.random.default_rng(1).lognormal(
        0, 0.01, 40)}, rng=1, n_resamples=B)  # fmt: skip
    b = one["a"]
    # With one benchmark the CI is its own, made symmetric on the log scale.
    assert math.log(one.geomean_high / one.geomean_low) == pytest.approx(
        math.log(b.ci_high / b.ci_low), rel=1e-12
    )


def test_overrides_exact_and_glob() -> None:
    base = _suite(5)
    cont = {k: v * 1.05 for k, v in base.items()}
    res = gate(base, cont, overrides={"b0": "10%", "b*": 0.08, "b1": 0.01}, rng=0, n_resamples=B)
    assert res["b0"].threshold == 0.10 and res["b0"].verdict == "equivalent"
    assert res["b1"].threshold == 0.01 and res["b1"].verdict == "regression"
    assert res["b2"].threshold == 0.08 and res["b2"].verdict == "equivalent"
    with pytest.raises(ValueError, match=r"overrides\['b0'\]"):
        gate(base, cont, overrides={"b0": "lots"})


def test_unmatched_names_reported() -> None:
    base, cont = _suite(6), _suite(7)
    base["old"] = base.pop("b5")
    cont["new"] = cont.pop("b4")
    res = gate(base, cont, rng=0, n_resamples=200)
    assert res.unmatched_baseline == ("b4", "old")
    assert res.unmatched_contender == ("b5", "new")
    assert len(res.benchmarks) == 4
    d = res.to_dict()
    assert d["unmatched"] == {"baseline": ["b4", "old"], "contender": ["b5", "new"]}


def test_dataframe_and_tuple_input_with_units() -> None:
    base, cont = _suite(8), _suite(9)
    frame = pd.DataFrame(
        [(k, v, "s") for k, vals in base.items() for v in vals],
        columns=["benchmark", "value", "unit"],
    )
    triples = [(k, v, "s") for k, v in cont.items()]
    res = gate(frame, triples, rng=0, n_resamples=200)
    assert {b.unit for b in res.benchmarks} == {"s"}
    assert res == gate(base, cont, rng=0, n_resamples=200, baseline_units=dict.fromkeys(base, "s"),
                       contender_units=dict.fromkeys(cont, "s"))  # fmt: skip


@pytest.mark.parametrize(
    ("base", "cont", "kwargs", "match"),
    [
        ({"a": [1.0, 2.0]}, {"a": [1.0]}, {}, r"contender\['a'\] has 1 run"),
        ({"a": [1.0, float("nan"), 2.0]}, {"a": [1.0, 2.0]}, {}, r"baseline\['a'\].*finite"),
        ([("a", [1.0, 2.0]), ("a", [3.0, 4.0])], {"a": [1.0, 2.0]}, {}, "'a' more than once"),
        ([("a", [1.0, 2.0], "s")], [("a", [1.0, 2.0], "ms")], {}, "unit 's'.*'ms'"),
        ({"a": [1.0, 2.0]}, {"b": [1.0, 2.0]}, {}, "share no benchmark"),
        ({"a": [0.0, 2.0]}, {"a": [1.0, 2.0]}, {}, "benchmark 'a': baseline must be positive"),
        ({"a": [1.0, 2.0]}, {"a": [1.0, 2.0]}, {"fdr": 1.5}, "fdr"),
        ({"a": [1.0, 2.0]}, {"a": [1.0, 2.0]}, {"statistic": "p90"}, "statistic"),
        ({"a": [1.0, 2.0]}, {}, {}, "contender holds no benchmark"),
        ("a", {"a": [1.0, 2.0]}, {}, "baseline must be a mapping"),
    ],
)
def test_bad_input_is_named(base: object, cont: object, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gate(base, cont, **kwargs)


def test_mixed_units_inside_a_frame() -> None:
    frame = pd.DataFrame({"benchmark": ["a"] * 3, "value": [1.0, 2.0, 3.0],
                          "unit": ["s", "ms", "s"]})  # fmt: skip
    with pytest.raises(ValueError, match="mixes units"):
        gate(frame, {"a": [1.0, 2.0]})


def test_json_schema_and_renderers() -> None:
    base = _suite(10)
    cont = {k: v * (1.1 if k == "b0" else 1.0) for k, v in base.items()}
    cont["b5"] = cont["b5"][:3]
    res = gate(base, cont, rng=0, n_resamples=B)
    d = json.loads(res.to_json())
    keys = {"name", "unit", "n_baseline", "n_contender", "ratio", "ci_low", "ci_high",
            "p_value", "p_adjusted", "cliffs_delta", "verdict", "runs_needed"}  # fmt: skip
    assert all(keys <= set(b) for b in d["benchmarks"])
    assert set(d["suite"]["counts"]) == {"regression", "improvement", "equivalent", "inconclusive",
                                         "error"}  # fmt: skip
    assert {"ratio", "ci_low", "ci_high", "method"} <= set(d["suite"]["geomean"])
    assert d["suite"]["exit_code"] == 1
    table = gate_table(res)
    assert "REGRESSION" in table and "b5" in table
    md = gate_markdown(res)
    assert md.startswith("### perfstats gate: 1 regression") and "| `b0` |" in md
    root = ET.fromstring(gate_junit(res))
    assert root.attrib["tests"] == "6" and root.attrib["failures"] == "1"
    assert root.attrib["skipped"] == str(res.counts["inconclusive"])
    strict = ET.fromstring(gate_junit(res, strict=True))
    assert strict.attrib["failures"] == str(1 + res.counts["inconclusive"])
    names = [c.attrib["name"] for c in root.iter("testcase")]
    assert names == [b.name for b in res.benchmarks]


def test_exit_code_strict() -> None:
    base = _suite(12)
    cont = {k: v[:3] for k, v in base.items()}
    res = gate(base, cont, rng=0, n_resamples=200)
    assert res.counts["inconclusive"] == 6
    assert res.exit_code() == 0 and res.exit_code(strict=True) == 3
