"""The shared loaders of the real traces (benchmarks/_traces.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks._traces import STARTS, data_root, load_pt4cloud, load_scope, pt4cloud_by_name


def test_scope_holds_65_functions_of_1000_runs_per_start(perfstats_data: Path) -> None:
    scope = load_scope(perfstats_data)
    assert tuple(scope) == STARTS
    for start in STARTS:
        frame = pd.read_csv(perfstats_data / "scope" / f"{start}.csv")
        assert list(scope[start]) == list(frame.columns)
        assert all(x.shape == (1000,) and x.dtype == np.float64 for x in scope[start].values())
        np.testing.assert_array_equal(scope[start]["Func1"], frame["Func1"].to_numpy())


def test_quick_and_every_keep_every_kth_function(perfstats_data: Path) -> None:
    full = load_scope(perfstats_data)
    quick = load_scope(perfstats_data, quick=True)
    assert list(quick["cold"]) == list(full["cold"])[::5]
    assert list(load_scope(perfstats_data, every=13)["warm"]) == list(full["warm"])[::13]


def test_cloud_traces_follow_the_manifest(perfstats_data: Path) -> None:
    manifest = pd.read_csv(perfstats_data / "pt4cloud" / "manifest.csv")
    traces = load_pt4cloud(perfstats_data)
    assert [t.name + ".txt" for t in traces] == list(manifest["file"])
    for trace, row in zip(traces, manifest.to_dict("records"), strict=True):
        assert trace.n_test == row["n_test"] and trace.truth.size == row["n_ground_truth"]
        assert trace.cloud == row["cloud"]
    by_name = pt4cloud_by_name(perfstats_data)
    assert list(by_name) == sorted(by_name)
    raw = np.loadtxt(perfstats_data / "pt4cloud" / "AWS-JPS-L.txt")
    np.testing.assert_array_equal(by_name["AWS-JPS-L"], raw)


def test_missing_data_is_an_error_naming_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERFSTATS_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no scope data under"):
        data_root()
    with pytest.raises(FileNotFoundError, match="no pt4cloud data under"):
        data_root("pt4cloud")
    (tmp_path / "scope").mkdir()
    with pytest.raises(FileNotFoundError, match=r"cold\.csv is missing"):
        load_scope(tmp_path)
