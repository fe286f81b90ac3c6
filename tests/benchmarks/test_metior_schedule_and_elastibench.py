"""Short runs of Metior's schedule (reproduce_metior --schedule) and of reproduce_elastibench."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.benchmark_scripts import load_benchmark

from benchmarks._traces import data_root, load_pt4cloud


def test_schedule_script_on_three_traces(perfstats_data: Path, monkeypatch) -> None:
    monkeypatch.setenv("PERFSTATS_DATA", str(perfstats_data))
    module = load_benchmark("reproduce_metior")
    names = ("Chameleon-IMA-M", "AWS-FT-L", "AWS-YCSB-L")
    traces = load_pt4cloud(data_root("pt4cloud"), names=names)
    res = module.schedule_summary(module.choose_schedule(traces))
    assert {t["trace"] for t in res["traces"]} == set(names)
    # The IMA-M trace: 910 runs in three weeks, blocks of about 53 runs.
    ima = next(t for t in res["traces"] if t["trace"] == "Chameleon-IMA-M")
    assert ima["runs_per_hour"] == round(910 / 504, 3)
    assert abs(res["interval_hours"] - max(t["block_hours"] for t in res["traces"])) < 0.01
    assert 0.5 <= res["interval_ratio_to_paper"] <= 2.0
    assert res["candidates"][0]["traces_thinned"] == 0


def synthetic(experiment: str, calls: int, repeats: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for bench, change in (("big", 0.20), ("none", 0.0), ("small", 0.01)):
        for call in range(1, calls + 1):
            state = rng.lognormal(0.0, 0.05)
            for rep in range(1, repeats + 1):
                base = state * rng.lognormal(0.0, 0.01)
                cand = state * (1 + change) * rng.lognormal(0.0, 0.01)
                for version, value in (("baseline", base), ("candidate", cand)):
                    rows.append((bench, call, rep, version, value, "ok", experiment))
    return pd.DataFrame(
        rows, columns=["benchmark", "call", "repeat", "version", "value", "status", "experiment"]
    )


def test_elastibench_analyses_on_synthetic_experiments() -> None:
    module = load_benchmark("reproduce_elastibench")
    frame = pd.concat(
        [
            synthetic("baseline", 15, 3, 1),
            synthetic("replication", 15, 3, 2),
            synthetic("http", 15, 3, 3),
            synthetic("single-repeat", 45, 1, 4),
            synthetic("long", 45, 3, 5),
        ]
    )
    res = module.analyse(frame, n_resamples=500)
    for e in module.COMPARED:
        assert res["verdicts"][e]["big"]["verdict"] == "slower"
        assert res["verdicts"][e]["none"]["verdict"] == "none"
    p = res["possible_changes"]
    assert p["compared"] == 3
    assert "big" not in p["benchmarks"] and "none" not in p["benchmarks"]
    r = res["repetitions_needed"]
    assert r["benchmarks"] == 3
    assert list(r["curve"]) == sorted(r["curve"])
    assert r["share_by_135_pct"] >= r["share_by_45_pct"]
    widths = res["same_size_widths"]
    assert set(widths) == set(module.COMPARED) - {"baseline"}
    assert all(w["benchmarks"] == 3 for w in widths.values())


def test_same_size_widths_count_the_experiments_no_wider_than_the_baseline() -> None:
    module = load_benchmark("reproduce_elastibench")
    ci = lambda low, high: {"low": low, "high": high}  # noqa: E731
    verdicts = {
        "baseline": {"a": ci(0.0, 0.1), "b": ci(0.0, 0.2), "c": ci(-0.1, 0.1)},
        "http": {"a": ci(0.0, 0.05), "b": ci(0.1, 0.5), "c": ci(0.0, 0.2)},
    }
    w = module.same_size_widths(verdicts)["http"]
    # Width ratios 0.5, 2.0 and 1.0: two of three no wider.
    assert w == {"benchmarks": 3, "no_wider_pct": 66.7, "median_width_ratio": 1.0}


def test_schedule_part_writes_both_sets(
    perfstats_data: Path, monkeypatch, tmp_path: Path, capsys
) -> None:
    monkeypatch.setenv("PERFSTATS_DATA", str(perfstats_data))
    module = load_benchmark("reproduce_metior")
    out = tmp_path / "schedule.json"
    assert module.main(["--schedule", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert list(res) == ["all 33 traces", "the paper's pilots (ft, IMA; Chameleon L, AWS 2XL)"]
    assert len(res["all 33 traces"]["traces"]) == 33
    pilots = res["the paper's pilots (ft, IMA; Chameleon L, AWS 2XL)"]["traces"]
    assert {t["trace"] for t in pilots} == set(module.PAPER_PILOTS)
    assert "== all 33 traces" in capsys.readouterr().out


def test_elastibench_analyses_part_is_the_default(tmp_path: Path, capsys) -> None:
    module = load_benchmark("reproduce_elastibench")
    frame = pd.concat(
        [
            synthetic(name, calls, repeats, seed)
            for name, calls, repeats, seed in (
                ("baseline", 15, 3, 1),
                ("replication", 15, 3, 2),
                ("http", 15, 3, 3),
                ("single-repeat", 45, 1, 4),
                ("long", 45, 3, 5),
            )
        ]
    )
    csv = tmp_path / "m.csv"
    frame.to_csv(csv, index=False)
    outputs = []
    for first in ([], ["analyses"]):
        out = tmp_path / f"a{len(first)}.json"
        argv = [*first, "--measurements", str(csv), "--resamples", "300", "--json", str(out)]
        assert module.main(argv) == 0
        outputs.append(json.loads(out.read_text()))
    assert outputs[0] == outputs[1]
    assert outputs[0]["possible_changes"]["compared"] == 3
    # The project's three recorded suite runs are read beside the analyses.
    assert set(outputs[0]["existing_ab_local_runs"]) == {"A/A", "A/B+10%", "A/B+50%"}
    assert "(b) repetitions for a consistent CI size" in capsys.readouterr().out


def test_elastibench_suites_part_reaches_the_suite_runner(capsys) -> None:
    module = load_benchmark("reproduce_elastibench")
    with pytest.raises(SystemExit) as stop:
        module.main(["suites", "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "reproduce_elastibench suites" in text and "--cpus" in text


def test_suites_part_runs_one_chosen_suite_with_the_full_runs_seeds(tmp_path: Path) -> None:
    module = load_benchmark("reproduce_elastibench")
    out = tmp_path / "one.json"
    argv = ["suites", "--quick", "--suite", "A/B+10%", "--rmit-trials", "4", "--duet-calls", "6",
            "--seed", "7"]  # fmt: skip
    assert module.main([*argv, "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    rows = res["rows"]
    assert {r["suite"] for r in rows} == {"A/B+10%"}
    assert sorted((r["schedule"], r["target"]) for r in rows) == [
        ("duet", "command"),
        ("duet", "http"),
        ("rmit", "command"),
        ("rmit", "http"),
    ]
    # The second suite of the full run: its rows keep the seeds they have there.
    assert sorted(r["seed"] for r in rows) == [107, 108, 117, 118]
    assert res["settings"]["suites"] == ["A/B+10%"]
    assert res["settings"]["rmit_trials"] == 4 and res["settings"]["calls"] == 6
    for row in rows:
        assert row["failed"] == 0 and row["lost"] == 0
        assert row["slower"] + row["faster"] + row["unchanged"] + row["too_few"] == 2
    # Four RMIT trials of two repeats give 8 pairs, under the 10 a verdict
    # needs: those rows judge nothing, and only the duet pair is compared.
    assert all(r["too_few"] == 2 for r in rows if r["schedule"] == "rmit")
    assert [(a["first"], a["second"]) for a in res["agreement"]] == [("duet/command", "duet/http")]

    with pytest.raises(SystemExit, match="--duet-calls must be at least 2"):
        module.main(["suites", "--quick", "--duet-calls", "1"])


def test_the_experiments_figure_draws_every_benchmark(tmp_path: Path) -> None:
    import matplotlib.image

    module = load_benchmark("reproduce_elastibench")
    ci = {"estimate": 0.02, "low": 0.01, "high": 0.03}
    verdicts = {e: {"a+0%": ci, "a+2%": ci, "b+5%": ci} for e in module.COMPARED}
    out = module.experiments_figure(verdicts, tmp_path / "x.png")
    image = matplotlib.image.imread(out)
    assert image.ndim == 3 and image.shape[0] > 100
    with pytest.raises(ValueError):
        module.experiments_figure({"baseline": {"no-injection": ci}}, tmp_path / "y.png")
