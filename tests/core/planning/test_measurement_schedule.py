"""perfstats.schedule: Metior's measurement interval and frequency (ASE 2021, III-C)."""

from __future__ import annotations

import datetime
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from arch.bootstrap import optimal_block_length as arch_block_length
from support.samples import ar1

import perfstats


def test_interval_is_the_largest_circular_block_as_time() -> None:
    # arch is the reference for the Politis-White circular length.
    traces = {"slow": ar1(3000, 0.9, 1, loc=50.0), "fast": ar1(1500, 0.3, 2, loc=50.0)}
    dt = {"slow": 60.0, "fast": 600.0}
    s = perfstats.schedule(traces, sampling_interval=dt, candidates=[1200.0])
    expected = {
        name: math.ceil(float(arch_block_length(x)["circular"].iloc[0])) * dt[name]
        for name, x in traces.items()
    }
    assert {t.name: t.block_s for t in s.traces} == pytest.approx(expected, rel=1e-9)
    assert s.interval_s == pytest.approx(max(expected.values()), rel=1e-9)
    assert s.interval == datetime.timedelta(seconds=s.interval_s)


def test_thinning_an_ar1_follows_phi_to_the_k() -> None:
    # Keeping every k-th point of an AR(1) gives an AR(1) with parameter
    # phi**k, so the lag-1 autocorrelation falls from phi to phi**k: for
    # phi = 0.9 by 0.09 at k = 2 and 0.171 at k = 3.
    phi, dt = 0.9, 300.0
    x = ar1(40000, phi, 3, loc=50.0)
    s = perfstats.schedule([x], sampling_interval=dt, threshold=0.13,
                           candidates=[dt, 2 * dt, 3 * dt, 4 * dt])  # fmt: skip
    diffs = s.acf_differences[:, 0]
    assert math.isnan(diffs[0])  # the first candidate thins nothing
    for k in (2, 3, 4):
        assert diffs[k - 1] == pytest.approx(phi**k - phi, abs=0.015)
    assert s.period_s == 2 * dt
    assert s.runs_per_hour == pytest.approx(6.0)
    assert s.limited_by == "0"
    # The paper's threshold of 0.1 keeps k = 2 as well; 0.05 keeps no thinning.
    assert perfstats.schedule([x], sampling_interval=dt, candidates=[2 * dt, 3 * dt]).period_s == (
        2 * dt
    )
    assert perfstats.schedule(
        [x], sampling_interval=dt, threshold=0.05, candidates=[2 * dt]
    ).period_s == dt


def test_the_weakest_trace_decides_the_frequency() -> None:
    strong, weak = ar1(20000, 0.95, 4, loc=50.0), ar1(20000, 0.6, 5, loc=50.0)
    dt = 60.0
    candidates = [dt, 2 * dt, 3 * dt]
    both = perfstats.schedule(
        {"strong": strong, "weak": weak}, sampling_interval=dt, candidates=candidates
    )
    alone = perfstats.schedule({"strong": strong}, sampling_interval=dt, candidates=candidates)
    # 0.6 - 0.36 = 0.24 > 0.1 already at k = 2; 0.95 allows k = 2 (0.0475).
    assert both.period_s == dt
    assert both.limited_by == "weak"
    assert alone.period_s >= 2 * dt


def test_time_indexed_series_equal_arrays_with_their_interval() -> None:
    x = ar1(2000, 0.8, 6, loc=50.0)
    index = pd.date_range("2026-01-01", periods=x.size, freq="15min")
    by_index = perfstats.schedule(pd.Series(x, index=index))
    by_array = perfstats.schedule(x, sampling_interval=datetime.timedelta(minutes=15))
    by_seconds = perfstats.schedule([x], sampling_interval=900.0)
    for other in (by_array, by_seconds):
        assert other.interval_s == by_index.interval_s
        assert other.period_s == by_index.period_s
        np.testing.assert_allclose(
            other.acf_differences, by_index.acf_differences, rtol=1e-12, equal_nan=True
        )
    td = pd.Series(x, index=pd.timedelta_range(0, periods=x.size, freq="15min"))
    assert perfstats.schedule(td).interval_s == by_index.interval_s


def test_irregular_time_index_thins_by_time() -> None:
    # Runs at uneven times: thinning keeps the first run at or after each
    # grid time, so a period of an hour keeps about one run per hour.
    rng = np.random.default_rng(7)
    minutes = np.cumsum(rng.uniform(5.0, 25.0, size=3000))
    x = ar1(3000, 0.9, 8, loc=50.0)
    series = pd.Series(x, index=pd.to_datetime(minutes, unit="m"))
    s = perfstats.schedule({"irregular": series}, candidates=[3600.0, 7200.0])
    assert s.traces[0].sampling_interval_s == pytest.approx(60 * np.median(np.diff(minutes)))
    assert np.all(s.acf_differences < 0)  # thinning weakens the dependence


def test_evidence_and_repr() -> None:
    s = perfstats.schedule({"a": ar1(500, 0.7, 9, loc=50.0)}, sampling_interval=3600.0)
    assert s.acf_differences.shape == (len(s.candidates_s), 1)
    assert not s.acf_differences.flags.writeable
    assert list(s.candidates_s) == sorted(s.candidates_s)
    assert s.runs_per_interval == math.ceil(s.interval_s / s.period_s - 1e-9)
    assert repr(s).startswith("Schedule(interval ")
    assert repr(s.traces[0]).startswith("TraceSchedule('a': n=500, every 1 h")
    # Default candidates leave every thinned trace at least min_runs runs.
    assert max(s.candidates_s) * 30 <= 500 * 3600.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"traces": [np.arange(50.0)]}, "give sampling_interval"),
        ({"traces": [], "sampling_interval": 1.0}, "traces is empty"),
        ({"traces": {}, "sampling_interval": 1.0}, "traces is empty"),
        ({"traces": [np.arange(5.0)], "sampling_interval": 1.0}, "needs at least 11"),
        ({"traces": [np.full(50, 3.0)], "sampling_interval": 1.0}, "is constant"),
        ({"traces": [np.arange(50.0)], "sampling_interval": -1.0}, "sampling_interval"),
        ({"traces": [np.arange(50.0)], "sampling_interval": "1h"}, "sampling_interval"),
        ({"traces": [np.arange(50.0)], "sampling_interval": [1.0, 2.0]}, "2 entries for 1"),
        ({"traces": {"a": np.arange(50.0)}, "sampling_interval": {"b": 1.0}}, "no entry"),
        ({"traces": [np.arange(50.0)], "sampling_interval": 1.0, "threshold": 0}, "threshold"),
        ({"traces": [np.arange(50.0)], "sampling_interval": 1.0, "candidates": [10.0]},
         "fewer than min_runs"),
        ({"traces": [np.arange(50.0)], "sampling_interval": 1.0, "candidates": []},
         "non-empty"),
        ({"traces": "abc", "sampling_interval": 1.0}, "traces must be"),
    ],
)  # fmt: skip
def test_bad_input_is_named(kwargs: dict, message: str) -> None:
    traces = kwargs.pop("traces")
    with pytest.raises(ValueError, match=message):
        perfstats.schedule(traces, **kwargs)


def test_time_index_and_interval_together_or_unordered_are_errors() -> None:
    index = pd.date_range("2026-01-01", periods=50, freq="1h")
    x = pd.Series(np.arange(50.0) % 7, index=index)
    with pytest.raises(ValueError, match="do not also give"):
        perfstats.schedule(x, sampling_interval=3600.0)
    with pytest.raises(ValueError, match="strictly increasing"):
        perfstats.schedule(pd.Series(x.to_numpy(), index=index[::-1]))


def test_cloud_traces_give_about_a_day_and_four_per_hour(perfstats_data: Path) -> None:
    # Metior's choice (one day, four runs per hour) within a factor of 2 on
    # the test parts (three weeks each) of the traces with the longest
    # blocks; benchmarks/metior_schedule.py runs all 33.
    manifest = pd.read_csv(perfstats_data / "pt4cloud" / "manifest.csv").set_index("file")
    names = ("Chameleon-IMA-M.txt", "AWS-JPS-XL.txt", "Chameleon-JPS-S.txt", "AWS-YCSB-L.txt")
    traces, dt = {}, {}
    for name in names:
        n_test = int(manifest.loc[name, "n_test"])
        traces[name] = np.loadtxt(perfstats_data / "pt4cloud" / name)[:n_test]
        dt[name] = 21 * 86400.0 / n_test
    s = perfstats.schedule(traces, sampling_interval=dt)
    assert 12.0 <= s.interval_hours <= 48.0
    assert 2.0 <= s.runs_per_hour <= 8.0


def test_a_long_pilot_is_thinned_on_its_first_runs_only() -> None:
    # The thinning evidence of a pilot beyond MAX_THINNING_RUNS comes from a window of that
    # many runs: the same as for the window alone, whatever follows it (a pass per candidate
    # over ten million runs would take minutes).
    from perfstats.planning.measurement_schedule import MAX_THINNING_RUNS

    rng = np.random.default_rng(3)
    n = 3 * MAX_THINNING_RUNS
    x = 100 + np.repeat(rng.normal(size=n // 12 + 1), 12)[:n] + 0.5 * rng.normal(size=n)
    x[MAX_THINNING_RUNS:] = 100 + rng.normal(size=n - MAX_THINNING_RUNS)  # no dependence after
    periods = [600.0, 1200.0, 3600.0]
    whole = perfstats.schedule({"p": x}, sampling_interval=300.0, candidates=periods)
    head = perfstats.schedule(
        {"p": x[:MAX_THINNING_RUNS]}, sampling_interval=300.0, candidates=periods
    )
    np.testing.assert_array_equal(whole.acf_differences, head.acf_differences)
    assert whole.period_s == head.period_s
    assert whole.traces[0].n == n  # the evidence still describes the whole trace
