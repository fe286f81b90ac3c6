"""Short runs of benchmarks/metior_schedule.py and benchmarks/elastibench_analyses.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from support.benchmark_scripts import load_benchmark


def test_schedule_script_on_three_traces(perfstats_data: Path, monkeypatch) -> None:
    monkeypatch.setenv("PERFSTATS_DATA", str(perfstats_data))
    module = load_benchmark("metior_schedule")
    names = ("Chameleon-IMA-M", "AWS-FT-L", "AWS-YCSB-L")
    traces = module.load_pt4cloud(module.data_root(), names=names)
    res = module.summary(module.choose(traces))
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
    module = load_benchmark("elastibench_analyses")
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
