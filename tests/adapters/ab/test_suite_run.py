"""Real A-B suites on local processes: verdicts, the record, pairs and orders."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from perfstats.adapters import Command
from perfstats.adapters.ab import (
    Suite,
    TargetPerVersion,
    read_ab_metadata,
    read_ab_record,
    run_suite,
)
from support.suites import benchmark, workload_command


def _pids(run) -> dict[int, set[int]]:
    pids: dict[int, set[int]] = {}
    for call, extra in zip(run.measurements["call"], run.measurements["extra"], strict=True):
        pids.setdefault(int(call), set()).add(json.loads(extra)["pid"])
    return pids


@pytest.mark.timing
def test_duet_flags_the_injected_slowdown_and_not_the_copy(tmp_path) -> None:
    suite = Suite(
        [benchmark("same", "sort", size=2000, units=10),
         benchmark("plus50", "lcg", size=1000, units=10, extra_units=15)],
        workload_command(env={"BENCH_API_TOKEN": "hunter2"}),
        calls=15, repeats=2, concurrency=2,
    )  # fmt: skip
    path = tmp_path / "duet.csv"
    run = run_suite(suite, record=path, rng=5)
    a = run.analyse()
    plus = a.verdict("plus50")
    assert plus.verdict == "slower" and plus.change.contains(0.5), plus
    assert plus.liao_changed is True
    assert a.verdict("same").verdict == "no change", a.verdict("same")
    assert (plus.n_baseline, plus.n_candidate, plus.failed) == (30, 30, 0)

    # The record holds every execution exactly once, as returned.
    df = run.measurements
    assert len(df) == 2 * 2 * 15 * 2 and set(df["status"]) == {"ok"}
    assert not df.duplicated(["call", "version", "repeat"]).any()
    back = read_ab_record(path).sort_values(["call", "order"], ignore_index=True)
    assert back[
        ["call", "trial", "slot", "benchmark", "version", "repeat", "order", "value"]
    ].equals(df[["call", "trial", "slot", "benchmark", "version", "repeat", "order", "value"]])
    meta = read_ab_metadata(path)
    assert meta["format"] == "perfstats-ab-record/1" and meta["seed"] == 5
    assert meta["status"] == "completed" and meta["counts"]["ok"] == len(df)
    assert meta["machine"]["cores_logical"] and meta["software"]["packages"]["numpy"]
    assert meta["suite"]["target"]["env"]["BENCH_API_TOKEN"] == "<redacted>"
    assert "hunter2" not in path.with_name("duet.csv.meta.json").read_text()

    # Duet pairs are never split: each call ran both versions of every repeat
    # in one process, and no two calls shared a process.
    for _, rows in df.groupby("call"):
        assert sorted(zip(rows["repeat"], rows["version"], strict=True)) == [
            (r, v) for r in (1, 2) for v in ("baseline", "candidate")
        ]
        # ...and each pair ran back to back.
        assert list(rows.sort_values("order")["repeat"]) == [1, 1, 2, 2]
        assert list(rows["order"]) == [1, 2, 3, 4]
    pids = _pids(run)
    assert all(len(p) == 1 for p in pids.values())
    assert len(set().union(*pids.values())) == len(pids)


def test_rmit_orders_are_random_per_trial_and_recorded(tmp_path) -> None:
    suite = Suite(
        [benchmark("a", units=2), benchmark("b", units=2, extra_units=3)],
        workload_command(),
        schedule="rmit", calls=4, repeats=2, concurrency=1,
    )  # fmt: skip
    run = run_suite(suite, record=tmp_path / "rmit.csv", rng=3)
    df = read_ab_record(tmp_path / "rmit.csv")
    calls = df.drop_duplicates("call").sort_values("call")
    # With one call in flight, calls started in the planned order...
    assert calls["started_at"].is_monotonic_increasing
    assert list(calls["call"]) == [c.call for c in run.plan]
    # ...every trial ran each benchmark and version once, in its own order.
    orders = []
    for _, trial in calls.groupby("trial"):
        units = list(zip(trial["benchmark"], trial["version"], strict=True))
        assert sorted(units) == [(b, v) for b in "ab" for v in ("baseline", "candidate")]
        assert list(trial["slot"]) == [1, 2, 3, 4]
        orders.append(tuple(units))
    assert len(set(orders)) > 1
    assert orders == [tuple((c.benchmark, c.versions[0]) for c in run.plan if c.trial == t)
                      for t in range(1, 5)]  # fmt: skip
    # One version per call, its repeats in order.
    for _, rows in df.groupby("call"):
        assert rows["version"].nunique() == 1 and list(rows["repeat"]) == [1, 2]


def test_failures_are_recorded_and_thin_benchmarks_not_judged(tmp_path) -> None:
    suite = Suite(
        [benchmark("flaky", candidate={"fail": [2]}),
         benchmark("crash", candidate={"crash": True}),
         benchmark("slow", "sleep", size=10_000, units=1)],
        workload_command(timeout=2.0),
        calls=5, repeats=2, concurrency=15,
    )  # fmt: skip
    run = run_suite(suite, record=tmp_path / "f.csv", rng=1)
    df = run.measurements
    assert len(df) == 3 * 5 * 2 * 2
    flaky = df[df["benchmark"] == "flaky"]
    failed = flaky[flaky["status"] != "ok"]
    assert set(zip(failed["version"], failed["repeat"], strict=True)) == {("candidate", 2)}
    assert set(failed["error"]) == {"planned failure of repeat 2"}
    assert failed["value"].isna().all()
    crash = df[df["benchmark"] == "crash"]
    assert (
        set(crash["status"]) == {"error"} and crash["error"].str.startswith("exit status 3").all()
    )
    slow = df[df["benchmark"] == "slow"]
    assert set(slow["status"]) == {"timeout"}
    a = run.analyse()
    assert [(v.benchmark, v.verdict, v.n_baseline, v.failed) for v in a.verdicts] == [
        ("flaky", "too few results", 5, 5),
        ("crash", "too few results", 0, 20),
        ("slow", "too few results", 0, 20),
    ]
    assert read_ab_metadata(tmp_path / "f.csv")["counts"] == {
        "executions": 60, "ok": 15, "error": 25, "timeout": 20,
    }  # fmt: skip


def test_any_target_per_version_runs_rmit() -> None:
    def noisy(scale: float) -> Command:
        code = f"import random; print('t=%f' % ({100 * scale} * random.uniform(0.98, 1.02)))"
        return Command([sys.executable, "-I", "-S", "-c", code], regex=r"t=([\d.]+)", unit="ms")

    target = TargetPerVersion({"k": {"baseline": noisy(1.0), "candidate": noisy(1.5)}})
    suite = Suite([benchmark("k")], target, schedule="rmit", calls=6, repeats=2, concurrency=4)
    run = run_suite(suite, rng=2)
    assert set(run.measurements["status"]) == {"ok"} and set(run.measurements["unit"]) == {"ms"}
    v = run.analyse().verdict("k")
    assert v.verdict == "slower" and v.change.contains(0.5)
    assert np.isclose(run.measurements.groupby("version")["value"].median()["baseline"], 100,
                      rtol=0.03)  # fmt: skip


def test_an_existing_record_is_never_overwritten(tmp_path) -> None:
    path = tmp_path / "taken.csv"
    path.write_text("precious\n")
    suite = Suite([benchmark("k")], workload_command(), calls=1, repeats=1)
    with pytest.raises(ValueError, match="already exists"):
        run_suite(suite, record=path)
    assert path.read_text() == "precious\n"
