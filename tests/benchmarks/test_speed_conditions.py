"""The speed suite's machinery (benchmarks/speed): three load conditions, one-thread timing,
the streaming case and the scaling cases; short runs only, no timed assertions."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.speed import cases_streaming, scaling  # noqa: E402
from benchmarks.speed import suite as speed  # noqa: E402
from benchmarks.speed.harness import SpeedCase, time_case  # noqa: E402


def test_time_case_reports_the_one_thread_side() -> None:
    case = SpeedCase("sum", lambda: np.arange(1000).sum(), "python sum", lambda: sum(range(1000)))
    row = time_case(case, repeats=3, target_s=0.001)
    assert set(row) >= {"perfstats_s", "one_thread_s", "anchor_s", "ratio", "vs_one_thread"}
    assert row["ratio"] == row["anchor_s"] / row["perfstats_s"]
    assert row["vs_one_thread_of_medians"] == row["one_thread_s"] / row["perfstats_s"]
    assert row["vs_one_thread"] > 0


def test_vs_one_thread_is_the_median_of_each_rounds_ratio(monkeypatch: pytest.MonkeyPatch) -> None:
    # The machine slows down after the first round: each round's one-thread
    # call takes twice its default call, but the medians of the two sides
    # fall in different speed phases.
    from benchmarks.speed import harness

    default = lambda: None  # noqa: E731
    anchor = lambda: None  # noqa: E731
    rounds = {"default": [1.0, 10.0, 10.0], "one thread": [2.0, 20.0, 1.0], "anchor": [5.0] * 3}
    probes = {"default": 5, "anchor": 5}

    def scripted(fn: Any, inner: int) -> float:
        side = "default" if fn is default else "anchor" if fn is anchor else "one thread"
        if probes.get(side, 0):
            probes[side] -= 1
            return 1.0
        return rounds[side].pop(0)

    monkeypatch.setattr(harness, "_once", scripted)
    row = time_case(SpeedCase("s", default, "a", anchor), repeats=3, target_s=0.5)
    assert row["vs_one_thread"] == 2.0
    assert row["vs_one_thread_of_medians"] == 2.0 / 10.0


def test_default_and_one_thread_sides_are_timed_over_the_same_number_of_calls() -> None:
    # The one-thread side's first timed call is slow (as if preempted):
    # counts sized from single calls would time it over far fewer calls
    # than the default, and a busy machine preempts longer timings more.
    from perfstats._kernels import threads

    calls = {"default": 0, "one thread": 0}

    def fn() -> None:
        side = "default" if threads._allowed else "one thread"
        calls[side] += 1
        if side == "one thread" and calls[side] == 2:
            time.sleep(0.02)
        sum(range(200))

    time_case(SpeedCase("s", fn, "a", lambda: sum(range(200))), repeats=3, target_s=0.005)
    # The default side also ran the probes that size the count (five).
    assert calls["default"] - calls["one thread"] == 5
    assert calls["one thread"] > 3 + 1


def test_time_case_reports_the_ratio_to_the_reference_code() -> None:
    fn = lambda: np.arange(1000).sum()  # noqa: E731
    with_ref = time_case(SpeedCase("s", fn, "a", fn, reference_s=0.5), repeats=3, target_s=0.001)
    assert with_ref["reference_s"] == 0.5
    assert with_ref["vs_reference"] == 0.5 / with_ref["perfstats_s"]
    assert speed._vs_ref(with_ref) == speed._ratio(0.5 / with_ref["perfstats_s"])
    without = time_case(SpeedCase("s", fn, "a", fn), repeats=3, target_s=0.001)
    assert without["vs_reference"] is None and speed._vs_ref(without) == "-"


def test_rule_cases_carry_the_reference_code_times_of_anchors_md() -> None:
    from benchmarks.speed import cases_rules

    refs = {c.name.split(" decision")[0]: c.reference_s for c in cases_rules.cases(quick=True)}
    assert refs == {
        "SuperFlow 1": 1.0e-3,
        "SuperFlow 2": 0.481,
        "SuperFlow 3": 0.875,
        "Metior": 0.285,
        "PT4Cloud": 0.015,
    }


def test_hog_condition_starts_one_busy_process_per_core_and_stops_them() -> None:
    procs = speed.start_load("hog", quick=True, only=None)
    try:
        assert len(procs) == len(os.sched_getaffinity(0))
        assert all(p.poll() is None for p in procs)
    finally:
        speed.stop_load(procs)
    assert all(p.returncode is not None for p in procs)
    assert speed.start_load("idle", quick=True, only=None) == []


def test_streaming_case_matches_its_anchor() -> None:
    case = cases_streaming.cases(quick=True)[0]
    decision = case.perfstats()
    assert decision.stop and decision.n == 5000  # type: ignore[attr-defined]
    assert len(case.anchor_fn()) == 5000  # type: ignore[arg-type]


def test_scaling_cases_run_at_small_n() -> None:
    for name, (fn, data) in scaling.case_fns(3000, 50).items():
        fn()
        assert data.size == 3000, name


def test_only_takes_several_substrings() -> None:
    names = [c.name for c in speed.collect(True, ["SuperFlow 2", "metior DECISION"])]
    assert len(names) == 2
    assert names[0].startswith("SuperFlow 2 decision") and names[1].startswith("Metior decision")
    assert len(speed.collect(True, None)) > len(names)


def test_twin_condition_runs_the_suite_in_a_second_process() -> None:
    # The twin is the suite's own file run as a script: it must find its
    # package's cases from there, warm up, and say so.
    procs = speed.start_load("twin", quick=True, only=["single adds"])
    try:
        assert len(procs) == 1 and procs[0].poll() is None
    finally:
        speed.stop_load(procs)


def test_the_suite_and_scaling_run_as_modules() -> None:
    for module in ("benchmarks.speed", "benchmarks.speed.scaling"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--help"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "--json" in done.stdout
