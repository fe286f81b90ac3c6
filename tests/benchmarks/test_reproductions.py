"""The reproductions of SuperFlow and Metior, in quick mode, and protocol A's deterministic anchors.

The anchors are the public reference code's figures on the same files
(shared/reference/ANCHORS.md); the bounds on the random techniques are the
papers' qualitative findings with room for a 13-function subset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.benchmark_scripts import load_benchmark

from benchmarks._traces import load_pt4cloud
from perfstats.replay import replay
from perfstats.replay.scoring import score_distribution
from perfstats.rules import PT4Cloud, SuperFlow


def mean_of(rows: list[dict[str, Any]], technique: str, key: str) -> float:
    values = [r[key] for r in rows if r["technique"] == technique]
    assert len(values) == 2  # cold and warm
    return float(np.mean(values))


@pytest.mark.parametrize(
    ("rule", "start", "acc", "cred", "stop_n"),
    [
        (SuperFlow(), "cold", 97.39, (89.2, 93.8, 90.8, 92.3), 282.2),
        (SuperFlow(), "warm", 97.12, (86.2, 92.3, 93.8, 89.2), 293.5),
        (PT4Cloud(), "cold", 61.12, (12.3, 10.8, 18.5, 29.2), 12.6),
        (PT4Cloud(), "warm", 43.45, (16.9, 20.0, 18.5, 12.3), 12.5),
    ],
)
def test_deterministic_rules_equal_the_reference_code(
    scope_traces: dict[str, np.ndarray],
    rule: Any,
    start: str,
    acc: float,
    cred: tuple[float, ...],
    stop_n: float,
) -> None:
    traces = {k: v for k, v in scope_traces.items() if k.startswith(start + "/")}
    assert len(traces) == 65
    scored = score_distribution(replay(rule, traces, progress=False), traces)
    assert 100 * scored["accuracy"].mean() == pytest.approx(acc, abs=0.006)
    got = [100 * scored[f"credible_P{p}"].mean() for p in (25, 50, 75, 90)]
    assert got == pytest.approx(list(cred), abs=0.06)
    assert scored["stop_n"].mean() == pytest.approx(stop_n, abs=0.06)


def test_reproduce_superflow_quick(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    out = tmp_path / "a.json"
    assert module.main(["--quick", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    techniques = {r["technique"] for r in rows}
    assert techniques == {
        "SuperFlow-1",
        "SuperFlow-2",
        "SuperFlow-3",
        "PT4Cloud",
        "Metior",
        "SHARP-KS",
        "SHARP-CI-0.05",
        "SHARP-CI-0.01",
        "Fixed-100",
        "SuperFlow-order",
        "SuperFlow-exact-bootstrap",
    }
    for r in rows:
        assert r["start"] in ("cold", "warm")
        assert set(r["credible"]) == {"25", "50", "75", "90"}
        assert 0 <= r["accuracy"] <= 100 and r["seconds"] >= 0
        assert r["traces"] == 13
    sf1 = mean_of(rows, "SuperFlow-1", "accuracy")
    assert sf1 >= 95.0
    for variant in ("SuperFlow-2", "SuperFlow-3", "SuperFlow-order", "SuperFlow-exact-bootstrap"):
        assert mean_of(rows, variant, "accuracy") >= 85.0
    # The paper's finding: the cloud techniques stop far too early on
    # serverless traces and are much less accurate.
    assert 35.0 <= mean_of(rows, "PT4Cloud", "accuracy") <= 75.0
    assert 40.0 <= mean_of(rows, "Metior", "accuracy") <= 80.0
    assert sf1 > mean_of(rows, "PT4Cloud", "accuracy") + 25.0
    assert sf1 > mean_of(rows, "Metior", "accuracy") + 15.0
    assert mean_of(rows, "SuperFlow-1", "mean_stop_n") > 5 * mean_of(
        rows, "PT4Cloud", "mean_stop_n"
    )
    assert mean_of(rows, "Fixed-100", "mean_stop_n") == 100.0
    # SHARP's tighter CI threshold runs longer.
    assert mean_of(rows, "SHARP-CI-0.01", "mean_stop_n") > mean_of(
        rows, "SHARP-CI-0.05", "mean_stop_n"
    )


def test_reproduce_metior_quick(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_metior")
    out = tmp_path / "b.json"
    assert module.main(["--quick", "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert payload["start_stride"] == 25
    rows = payload["rows"]

    def row(technique: str, statistic: str, cloud: str) -> dict[str, Any]:
        (found,) = [
            r
            for r in rows
            if (r["technique"], r["statistic"], r["cloud"]) == (technique, statistic, cloud)
        ]
        return found

    for statistic in ("mean", "p90"):
        for cloud in ("aws", "chameleon"):
            metior = row("Metior", statistic, cloud)
            assert metior["accurate_pct_stoppable"] >= 90.0
            assert metior["tests"] > 40
        everything = row("Metior", statistic, "all")
        assert (
            everything["tests"]
            == row("Metior", statistic, "aws")["tests"]
            + row("Metior", statistic, "chameleon")["tests"]
        )
        # Metior's cost claims: fewer runs than PT4Cloud, more than the baselines.
        assert everything["mean_executions"] < row("PT4Cloud", statistic, "all")["mean_executions"]
        assert row("BasicBT", statistic, "all")["mean_executions"] < everything["mean_executions"]
        assert row("CoV", statistic, "all")["mean_executions"] < everything["mean_executions"]
    # BasicBT ignores dependence and stops early: on Chameleon's P90 it is
    # clearly less accurate than Metior (paper: 66% against 96%).
    assert (
        row("BasicBT", "p90", "chameleon")["accurate_pct"]
        < row("Metior", "p90", "chameleon")["accurate_pct"] - 15.0
    )


def test_protocol_b_time_scale(perfstats_data: Path) -> None:
    (trace,) = load_pt4cloud(perfstats_data, names=["AWS-FT-L"])
    # manifest: n_test = 2032 -> a day is floor(floor(4064 / 3) / 14) = 96 runs,
    # an hour ceil(2032 / 504) = 5 runs, starts below 2032 / 3.
    assert trace.n_test == 2032
    assert trace.day == 96
    assert trace.hour == 5
    assert trace.starts(1) == range(0, 678)
    assert trace.truth.size == 22372 - 2032


def test_reproduce_superflow_sweep_flags(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    out = tmp_path / "sweep.json"
    argv = ["--quick", "--techniques", "SuperFlow-1", "PT4Cloud", "--json", str(out)]
    assert module.main([*argv, "--interval", "5", "10", "--error", "0.01", "0.03"]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 2 * 2 * 2 * 2  # intervals x errors x techniques x starts

    def stop_n(technique: str, interval: int, error: float) -> float:
        return float(
            np.mean(
                [
                    r["mean_stop_n"]
                    for r in rows
                    if (r["technique"], r["interval"], r["error"]) == (technique, interval, error)
                ]
            )
        )

    # A looser error margin stops SuperFlow earlier (RQ3); a longer interval
    # makes PT4Cloud wait longer (RQ2); r does not concern PT4Cloud.
    assert stop_n("SuperFlow-1", 5, 0.03) < stop_n("SuperFlow-1", 5, 0.01)
    assert stop_n("PT4Cloud", 10, 0.01) > stop_n("PT4Cloud", 5, 0.01)
    assert stop_n("PT4Cloud", 5, 0.03) == stop_n("PT4Cloud", 5, 0.01)
    assert all(r["mean_stop_n"] >= 2 * r["interval"] for r in rows if r["technique"] == "PT4Cloud")
