"""The repeated evaluation of benchmarks/reproduce_liao.py: A/A table, rounds, stability."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks import reproduce_liao as sr


def pair(delta: float, n: int = 600, p: float = 0.5, regression: bool = False) -> dict[str, Any]:
    return {"cliffs_delta": delta, "p_value": p, "regression": regression, "n": [n, n]}


def test_aa_summary_separates_sampling_from_between_run_noise() -> None:
    # Deltas of the size sampling alone gives (sd about 0.033 at 600 a side):
    # a duration exists, and it is shorter than the one given.
    quiet = sr.aa_summary([pair(d) for d in (0.03, -0.02, 0.05, -0.04, 0.01, 0.0)], 12.0)
    assert quiet["share_small"] == 1.0 and quiet["false_alarms"] == 0
    assert quiet["sd_sampling"] == pytest.approx(math.sqrt(1201 / (3 * 600 * 600)))
    assert quiet["duration_needed_s"] is not None and quiet["duration_needed_s"] < 12.0
    assert quiet["pooled_runs_needed"] == 1
    # Deltas of 0.5 between runs: no duration brings them under 0.147, and
    # about (0.5 / 0.075)**2 runs pooled would.
    loud = sr.aa_summary([pair(d, p=1e-20, regression=d > 0) for d in (0.5, -0.5, 0.5)], 12.0)
    assert loud["duration_needed_s"] is None
    assert loud["share_small"] == 0.0 and loud["share_p_le_alpha"] == 1.0
    assert loud["false_alarms"] == 2
    assert 40 <= loud["pooled_runs_needed"] <= 50
    assert loud["abs_delta"]["max"] == pytest.approx(0.5)
    assert sr.aa_summary([], 12.0) == {"n_pairs": 0}


def fake_round(oracle: dict[str, bool], model: dict[str, bool], cpu: float) -> dict[str, Any]:
    rows = [
        {
            "version": v,
            "load_test": {"regression": oracle[v], "cliffs_delta": 0.5 if oracle[v] else 0.0},
            "model": {"regression": model[v], "cliffs_delta": 0.4 if model[v] else 0.0},
            "outcome": sr.outcome(model[v], oracle[v]),
            "wall_s": {"prediction": 2.0, "load_test": 15.0},
        }
        for v in oracle
    ]
    counts = {k: sum(r["outcome"] == k for r in rows) for k in ("TP", "TN", "FP", "FN")}
    return {
        "fixed": rows,
        "summary": {"fixed": {**counts, "agree": counts["TP"] + counts["TN"],
                              "cpu_abs_diff_max": cpu}},
    }  # fmt: skip


def test_rounds_summary_counts_agreement_on_stable_verdicts() -> None:
    versions = ["a", "b", "c"]
    rounds = [
        fake_round({"a": True, "b": False, "c": True}, {"a": True, "b": False, "c": True}, 1.0),
        fake_round({"a": True, "b": False, "c": False}, {"a": True, "b": True, "c": True}, 3.0),
        fake_round({"a": True, "b": False, "c": True}, {"a": True, "b": False, "c": False}, 2.0),
    ]
    s = sr.rounds_summary(rounds, ["fixed"], versions)["fixed"]
    assert s["agree_per_round"] == [3, 1, 2]
    assert s["agree"] == {"min": 1.0, "median": 2.0, "max": 3.0}
    assert s["stable"] == 2 and s["unstable"] == ["c"]
    # on a and b: all agree in rounds 1 and 3, b is a false positive in round 2
    assert s["agree_stable_per_round"] == [2, 1, 2]
    assert s["fp_stable_per_round"] == [0, 1, 0]
    assert s["cpu_abs_diff_max_per_round"] == [1.0, 3.0, 2.0]
    assert s["versions"]["c"]["oracle"] == [True, False, True]
    assert not s["versions"]["c"]["oracle_stable"] and s["versions"]["a"]["model_stable"]
    assert s["ratio_max"] == pytest.approx(2.0 / 15.0)


def test_rounds_rotate_the_versions_and_have_their_own_seeds() -> None:
    assert sr.rotated(["a", "b", "c", "d"], 1, 3) == ["d", "a", "b", "c"]
    assert sr.rotated(["a", "b"], 0, 3) == ["a", "b"]
    assert len({sr.round_seed(20250, r) for r in range(3)}) == 3


@pytest.mark.service
def test_two_short_rounds_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "liao_rounds.json"
    args = ["--scenario", "fixed", "--versions", "L1-High", "--rounds", "2", "--aa", "2",
            "--duration", "1.5", "--warmup", "0.5", "--reps", "1", "--slowdown", "none",
            "--no-progress", "--json", str(out)]  # fmt: skip
    assert sr.main(args) == 0
    doc = json.loads(out.read_text())
    assert next(iter(doc)) == "command" and "--rounds 2" in doc["command"]
    text = out.with_suffix(".txt").read_text()
    assert text.startswith("# command: python -m benchmarks.reproduce_liao ")
    assert "A/A: 2 load tests" in text and "agreement per round" in text
    aa = doc["aa"]["fixed"]
    assert len(aa["runs"]) == 2 and len(aa["pairs"]) == 1
    assert aa["summary"]["n_pairs"] == 1 and 0.0 <= aa["summary"]["share_small"] <= 1.0
    assert all(r["errors"] == 0 and r["n"] > 20 for r in aa["runs"])
    st = doc["settings"]
    assert st["rounds"] == 2 and st["rounds_done"] == 2 and st["aa"] == 2
    assert st["round_seeds"] == [sr.round_seed(st["seed"], r) for r in range(2)]
    assert st["duration_s"] == 1.5 and len(doc["wall_s"]["rounds"]) == 2
    assert len(doc["rounds"]) == 2
    s = doc["summary"]["fixed"]
    assert s["n"] == 1 and len(s["agree_per_round"]) == 2
    assert s["stable"] + len(s["unstable"]) == 1
    assert len(s["cpu_abs_diff_max_per_round"]) == 2
    assert s["prediction_s"]["min"] > 0.0 and s["load_test_s"]["min"] > 0.0
    row = s["versions"]["L1-High"]
    assert len(row["oracle"]) == 2 and len(row["model_delta"]) == 2


@pytest.mark.parametrize("spec", ["variant2,nope", "variant2,variant2", ","])
def test_scenario_list_is_checked_before_anything_runs(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        sr.main(["--scenario", spec, "--rounds", "1", "--no-progress"])
    assert exc.value.code == 2
    assert "workload" in capsys.readouterr().err


class _Run:
    """What aa_samples reads of a load test: its response times."""

    def __init__(self, values: list[float]) -> None:
        self.response_ms = np.asarray(values, dtype=float)


def test_aa_samples_pool_load_tests_apart_in_time() -> None:
    runs = [_Run([float(k)] * (k + 1)) for k in range(6)]
    samples = sr.aa_samples(runs, pool=3)  # type: ignore[arg-type]
    # sample g pools runs g, g + 2, g + 4: spread over the A/A tests as a
    # version's repetitions are spread over a round
    assert [sorted(set(s.tolist())) for s in samples] == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    assert [s.size for s in samples] == [1 + 3 + 5, 2 + 4 + 6]
    assert len(sr.aa_samples(runs)) == 6  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pool"):
        sr.aa_samples(runs, pool=4)  # type: ignore[arg-type]


def test_aa_summary_states_its_needs_per_load_test_when_samples_are_pooled() -> None:
    # Pooled samples of three load tests with deltas of 0.1: a single load
    # test's spread is three times the variance, about (0.1 / 0.075)**2 * 3
    # load tests pooled keep 95% of pairs small.
    deltas = [0.1, -0.1, 0.1, -0.1]
    one = sr.aa_summary([pair(d, n=1800) for d in deltas], 12.0)
    three = sr.aa_summary([pair(d, n=1800) for d in deltas], 12.0, pool=3)
    assert one["pooled_runs_needed"] == 2 and three["pooled_runs_needed"] == 6
    assert three["pool"] == 3 and one["pool"] == 1
    assert three["sd_between_runs"] == pytest.approx(one["sd_between_runs"])
    # Deltas of 0.05: single load tests fall under the bound with a longer
    # test; pooled triples of that spread mean a single test's between-run
    # variance three times as large, which no duration brings under it.
    small = [0.05, -0.05, 0.05, -0.05]
    one = sr.aa_summary([pair(d, n=1800) for d in small], 12.0)
    three = sr.aa_summary([pair(d, n=1800) for d in small], 12.0, pool=3)
    assert one["duration_needed_s"] is not None and one["duration_needed_s"] < 12.0
    assert three["duration_needed_s"] is None


def test_aa_pool_is_checked_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        sr.main(["--rounds", "1", "--aa-pool", "0", "--no-progress"])
    assert exc.value.code == 2
    assert "--aa-pool" in capsys.readouterr().err


def test_aa_only_needs_samples_to_pair(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        sr.main(["--aa-only", "--aa", "1", "--no-progress"])
    assert exc.value.code == 2
    assert "--aa" in capsys.readouterr().err
    with pytest.raises(ValueError, match="not both 0"):
        sr.evaluate_rounds(["fixed"], ["L1-Low"], rounds=0, aa=0, duration=1.0, warmup=0.0,
                           reps=1, seed=0)


@pytest.mark.service
def test_aa_only_pools_load_tests_into_samples(tmp_path: Path) -> None:
    out = tmp_path / "liao_aa.json"
    args = ["--scenario", "fixed", "--aa-only", "--aa", "2", "--aa-pool", "2", "--duration",
            "1.5", "--warmup", "0.5", "--no-progress", "--json", str(out)]  # fmt: skip
    assert sr.main(args) == 0
    doc = json.loads(out.read_text())
    aa = doc["aa"]["fixed"]
    assert len(aa["runs"]) == 4 and len(aa["pairs"]) == 1
    # sample 0 pools runs 0 and 2, sample 1 runs 1 and 3
    n = [r["n"] for r in aa["runs"]]
    assert aa["pairs"][0]["n"] == [n[0] + n[2], n[1] + n[3]]
    assert aa["summary"]["pool"] == 2
    assert doc["settings"]["rounds"] == 0 and doc["settings"]["aa_pool"] == 2
    assert doc["rounds"] == []
    text = out.with_suffix(".txt").read_text()
    assert "A/A: 2 samples of the unchanged shop per workload, each 2 load tests pooled" in text
    assert "rounds" not in text.split("\n", 1)[1]
