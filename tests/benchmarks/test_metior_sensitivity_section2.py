"""Short runs of reproduce_metior's sensitivity study (--error), Section II and gap analysis."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from statsmodels.tsa.stattools import acf as sm_acf
from support.benchmark_scripts import load_benchmark

import perfstats
from benchmarks._traces import load_pt4cloud


def test_sensitivity_stops_earlier_at_10_than_at_3_percent(perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_metior")
    traces = load_pt4cloud(perfstats_data, names=("AWS-FT-L", "Chameleon-FT-M", "Chameleon-TPCC-M"))
    frames = {
        e: module.replay_tests(
            traces, stride=60, techniques=("Metior",), statistics=("mean",), workers=1, error=e
        )
        for e in (0.03, 0.10)
    }
    keys = ["trace", "start"]
    both = frames[0.03].merge(frames[0.10], on=keys, suffixes=("_3", "_10"))
    assert len(both) == len(frames[0.03]) > 10
    # A looser error can only let a test stop at the same judgement or earlier
    # (the same resamples serve both), and on Chameleon it does stop earlier.
    assert (both["stop_n_10"] <= both["stop_n_3"]).all()
    assert both["stop_n_10"].mean() < both["stop_n_3"].mean()
    # At 10% most tests stop at their first judgement, two days of runs,
    # and none runs out of data.
    assert (both["stop_n_10"] == 2 * both["day_10"]).mean() > 0.5
    assert both["stopped_10"].all()
    # Accuracy is scored at the tolerance of the run.
    assert (frames[0.10]["rel_error"] < 0.10).eq(frames[0.10]["accurate"]).all()


def test_tests_csv_round_trip_and_paper_comparison(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_metior")
    csv, direct, again = tmp_path / "t.csv.gz", tmp_path / "a.json", tmp_path / "b.json"
    argv = ["--quick", "--techniques", "Metior", "PT4Cloud", "--error", "0.1"]
    assert (
        module.main([*argv, "--workers", "1", "--tests-out", str(csv), "--json", str(direct)]) == 0
    )
    assert module.main(["--from-tests", str(csv), "--json", str(again)]) == 0
    first, second = json.loads(direct.read_text()), json.loads(again.read_text())
    assert second["error"] == first["error"] == 0.1
    for a, b in zip(first["rows"], second["rows"], strict=True):
        assert {k: v for k, v in a.items() if k != "seconds"} == {
            k: v for k, v in b.items() if k != "seconds"
        }
    rows = first["rows"]
    text = module.sensitivity_comparison(rows, pd.read_csv(csv), 0.1)
    assert "paper >94" in text and "paper 3.6x" in text
    assert module.sensitivity_comparison(rows, pd.read_csv(csv), 0.03) == ""


def test_resampled_acf_is_what_the_scheme_implies(perfstats_data: Path) -> None:
    module = load_benchmark("metior_section2")
    (trace,) = load_pt4cloud(perfstats_data, names=("AWS-IMA-2XL",))
    week = module.first_week(trace)
    # The library's lag-1 ACF is statsmodels' (biased) estimator.
    assert np.isclose(module.lag1(week), sm_acf(week, nlags=1, adjusted=False)[1])
    (row,) = module.table_i({"IMA-AWS": trace})
    # Table I: the week is autocorrelated (paper 0.36), i.i.d. resamples are
    # not (about -1/n), blocks of 24 keep about (b - 1) / b of it.
    assert 0.3 < row["original"] < 0.42
    assert abs(row["basic_mean"] - row["basic_expected"]) < 0.01
    assert abs(row["block_mean"] - row["block_expected"]) < 0.04
    assert row["block_mean"] > row["basic_mean"] + 0.25
    acfs = np.asarray(row["basic_acfs"])
    assert acfs.size == module.N_RESAMPLES and np.mean(np.abs(acfs) < 0.15) > 0.95


def test_block_intervals_are_wider_and_fixed_ci_waits_for_two_blocks(
    perfstats_data: Path,
) -> None:
    module = load_benchmark("metior_section2")
    (trace,) = load_pt4cloud(perfstats_data, names=("AWS-IMA-2XL",))
    week = module.first_week(trace)
    basic = perfstats.percentile_ci(week, 0.9, method="bootstrap", rng=1)
    block = perfstats.percentile_ci(week, 0.9, method="block", block_length=24, rng=1)
    # Figure 4: on autocorrelated runs the i.i.d. interval is the narrower.
    assert block.high - block.low > basic.high - basic.low
    rule = module.FixedCI(block_length=24, interval=trace.hour, min_n=48)
    assert not rule.check(week[:47]).stop
    assert rule.check(week).stop  # a week of IMA-AWS pins its P90 within 3%
    (row,) = module.figure_5({"IMA-AWS": trace}, n_tests=8)
    assert row["tests"] == 8
    assert 0 <= row["basic_accurate"] <= 8 and 0 <= row["block_accurate"] <= 8
    assert row["block_mean_executions"] >= 48


def test_gap_readings_of_executions_on_the_stored_tests() -> None:
    module = load_benchmark("metior_gaps")
    frame = pd.read_csv(module.TESTS[3])
    res = module.executions(frame)
    for stat in ("mean", "p90"):
        v = res[stat]["variants"]
        everything = v["all tests, runs used (S')"]
        # Unstoppable tests cost two weeks, so leaving them out lowers the mean.
        assert v["leaving out our unstoppable configurations"] < everything
        assert v["all tests, the previous set S (one day fewer)"] < everything
        assert res[stat]["first_judgement_floor"] < everything
    shares = module.stop_shares(frame)
    lists = shares["p90"]["lists"]
    assert set(lists["none stops"]) <= set(lists["share < 0.1"]) <= set(lists["share < 0.5"])
    assert "Chameleon-YCSB-M" in lists["share < 0.5"]


def test_section2_quick_writes_table_figures_and_json(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_metior")
    out = tmp_path / "s2.json"
    prefix = tmp_path / "s2"
    assert module.main(["--section2", "--quick", "--json", str(out), "--figures", str(prefix)]) == 0
    payload = json.loads(out.read_text())
    assert [r["benchmark"] for r in payload["table_i"]] == [
        "ft-CHM",
        "ft-AWS",
        "IMA-CHM",
        "IMA-AWS",
    ]
    for row in payload["table_i"]:
        # Every week of these four is autocorrelated; blocks keep it, i.i.d. resamples do not.
        assert row["original"] > 0.15
        assert abs(row["basic_mean"]) < 0.02 < row["block_mean"]
    for row in payload["figure_4"]:
        assert row["basic_width_pct"] < row["block_width_pct"]
        assert row["inside_paper_axis"]
    assert all(r["tests"] == 10 for r in payload["figure_5"])
    for name in ("s2_acf.png", "s2_fig5.png"):
        assert (tmp_path / name).stat().st_size > 10_000
