"""Replay over traces and the papers' scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats.comparison.similarity import kl_similarity
from perfstats.replay import judgement_grid, replay, replay_test
from perfstats.replay.scoring import (
    accuracy,
    cost,
    credible,
    relative_error,
    score_distribution,
    score_estimate,
)
from perfstats.rules import CIWidth, Fixed, Metior, PT4Cloud, Rule, SuperFlow


def traces(count: int = 6, size: int = 300) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {f"t{i}": rng.lognormal(4.0, 0.02 + 0.05 * i, size=size) for i in range(count)}


def manual(
    rule: Rule,
    data: dict[str, np.ndarray],
    starts: tuple[int, ...] = (0,),
    max_n: int | None = None,
) -> list[tuple[str, int, int, bool]]:
    """The replay written out: every grid size in turn until the rule stops."""
    rows: list[tuple[str, int, int, bool]] = []
    for name, x in data.items():
        for s in starts:
            limit = len(x) - s if max_n is None else min(max_n, len(x) - s)
            first = -(-rule.min_n // rule.interval) * rule.interval
            row = (name, s, limit, False)
            for n in range(first, limit + 1, rule.interval):
                if rule.check(x[s : s + n]).stop:
                    row = (name, s, n, True)
                    break
            rows.append(row)
    return rows


def test_replay_matches_the_loop_written_out() -> None:
    data = traces()
    rule = SuperFlow()
    frame = replay(rule, data, starts=[0, 50], max_n=200, workers=1, progress=False)
    assert list(frame.columns) == ["trace", "start", "stop_n", "stopped", "checks", "reason"]
    got = list(frame[["trace", "start", "stop_n", "stopped"]].itertuples(index=False, name=None))
    assert got == manual(rule, data, starts=(0, 50), max_n=200)
    assert frame["stopped"].any() and not frame["stopped"].all()
    ran_out = frame[~frame["stopped"]].iloc[0]
    assert ran_out["reason"].startswith(f"ran out after {ran_out['stop_n']} runs (")


def test_processes_give_the_same_frame() -> None:
    data = traces(count=5)
    rule = SuperFlow(method="bootstrap", n_resamples=200, rng=3)
    serial = replay(rule, data, workers=1, progress=False)
    parallel = replay(rule, data, workers=2, progress=False)
    pd.testing.assert_frame_equal(serial, parallel)


def test_per_trace_rules_starts_and_limits() -> None:
    data = traces(count=2, size=400)
    rules = {"t0": PT4Cloud(interval=10), "t1": PT4Cloud(interval=20)}
    frame = replay(
        rules,
        data,
        starts={"t0": [0, 100], "t1": [5]},
        max_n={"t0": 100, "t1": 60},
        workers=1,
        progress=False,
    )
    assert frame[["trace", "start"]].values.tolist() == [["t0", 0], ["t0", 100], ["t1", 5]]
    assert (frame.loc[frame["trace"] == "t1", "stop_n"] % 20 == 0).all()
    assert frame.loc[frame["trace"] == "t1", "stop_n"].iloc[0] <= 60


def test_grid_and_single_tests() -> None:
    assert list(judgement_grid(SuperFlow(interval=5), 27)) == [10, 15, 20, 25]
    assert list(judgement_grid(CIWidth(interval=4, min_n=15), 30)) == [16, 20, 24, 28]
    x = np.arange(1.0, 40.0)
    assert replay_test(Fixed(n=10), x, start=35) == (
        4,
        False,
        0,
        "ran out after 4 runs (no judgement possible)",
    )
    assert replay_test(Fixed(n=10), x, start=5)[:3] == (10, True, 1)


def test_progress_bar_can_be_silenced(capsys: pytest.CaptureFixture[str]) -> None:
    replay(Fixed(n=10), traces(count=2), workers=1, progress=False)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    replay(Fixed(n=10), traces(count=2), workers=1, progress=True)
    assert "replay" in capsys.readouterr().err


def test_sequence_traces_and_validation() -> None:
    frame = replay(Fixed(n=5), [np.ones(10), np.ones(20)], workers=1, progress=False)
    assert frame["trace"].tolist() == ["0", "1"]
    with pytest.raises(ValueError, match="starts"):
        replay(Fixed(n=5), {"a": np.ones(10)}, starts=[10], progress=False)
    with pytest.raises(ValueError, match="starts"):
        replay(Fixed(n=5), {"a": np.ones(10)}, starts=[-1], progress=False)
    with pytest.raises(ValueError, match="max_n"):
        replay(Fixed(n=5), {"a": np.ones(10)}, max_n=0, progress=False)
    with pytest.raises(ValueError, match="rule"):
        replay({"b": Fixed()}, {"a": np.ones(10)}, progress=False)
    with pytest.raises(ValueError, match="rule"):
        replay("fixed", {"a": np.ones(10)}, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="traces"):
        replay(Fixed(n=5), {}, progress=False)
    with pytest.raises(ValueError, match=r"traces\['a'\]"):
        replay(Fixed(n=5), {"a": [1.0, float("nan")]}, progress=False)
    with pytest.raises(ValueError, match="workers"):
        replay(Fixed(n=5), {"a": np.ones(10)}, workers=0, progress=False)


# -- scoring ------------------------------------------------------------------


def reference_credible(result: np.ndarray, truth: np.ndarray, p: float) -> bool:
    """ANCHORS.md's credibility, transcribed: Le Boudec ranks, z = 1.96, strict."""
    n = truth.size
    s = np.sort(truth)
    half = 1.96 * np.sqrt(n * p * (1 - p))
    lo = int(np.rint(n * p - half))
    hi = int(np.rint(1 + n * p + half))
    if lo < 0 or hi > n - 1:
        return False
    return bool(s[lo] < np.percentile(result, 100 * p) < s[hi])


@settings(deadline=None, max_examples=60)
@given(st.integers(min_value=5, max_value=1000), st.integers(min_value=0, max_value=2**31))
def test_credible_matches_the_transcription(n: int, seed: int) -> None:
    truth = np.random.default_rng(seed).lognormal(4.0, 0.4, size=1000)
    used = truth[:n]
    qs = [0.25, 0.5, 0.75, 0.9]
    assert credible(used, truth, qs) == tuple(reference_credible(used, truth, p) for p in qs)


def test_credible_is_strict_and_shifts_fail() -> None:
    truth = np.random.default_rng(1).normal(100.0, 10.0, size=1000)
    assert credible(truth, truth, 0.5) is True
    assert credible(truth + 3.0, truth, 0.5) is False


def test_accuracy_is_pt4cloud_similarity() -> None:
    x = np.random.default_rng(2).lognormal(size=1000)
    assert accuracy(x[:300], x) == kl_similarity(x[:300], x)
    assert accuracy(x, x) == pytest.approx(1.0)


def test_relative_error_and_cost() -> None:
    assert relative_error([1.0, 2.0, 3.0], [2.5], statistic="median") == pytest.approx(0.2)
    assert relative_error([1.0, 3.0], [2.0]) == 0.0
    assert relative_error(np.arange(101.0), np.arange(101.0) * 2, statistic="p90") == pytest.approx(
        0.5
    )
    assert relative_error([1.0], [0.0]) == np.inf
    assert cost(pd.DataFrame({"stop_n": [10, 30]})) == 20.0
    with pytest.raises(ValueError, match="stop_n"):
        cost(pd.DataFrame({"n": [1]}))


def test_score_frames() -> None:
    data = traces(count=3, size=400)
    frame = replay(SuperFlow(), data, workers=1, progress=False)
    scored = score_distribution(frame, data)
    for i in range(len(scored)):
        name = str(scored["trace"].iloc[i])
        used = data[name][: int(scored["stop_n"].iloc[i])]
        assert scored["accuracy"].iloc[i] == accuracy(used, data[name])
        assert scored["credible_P90"].iloc[i] == reference_credible(used, data[name], 0.9)
    truths = {k: v * 1.01 for k, v in data.items()}
    est = score_estimate(frame, data, truths, statistic="mean", error=0.03)
    assert np.allclose(
        est["rel_error"],
        [
            relative_error(data[str(t)][: int(n)], truths[str(t)])
            for t, n in zip(frame["trace"], frame["stop_n"], strict=True)
        ],
    )
    assert est["accurate"].all()
    assert not score_estimate(frame, data, truths, error=0.005)["accurate"].any()
    with pytest.raises(ValueError, match="stop_n"):
        score_distribution(frame.drop(columns="stop_n"), data)


def test_metior_replay_on_autocorrelated_trace_uses_days() -> None:
    # A protocol-B-shaped replay: per-trace interval, a start grid, a cap.
    rng = np.random.default_rng(3)
    x = 100.0 + np.repeat(rng.normal(0.0, 1.0, 60), 10) + rng.normal(0.0, 0.2, 600)
    rule = Metior(statistic="mean", interval=50, min_block_length=10, rng=1)
    frame = replay(rule, {"x": x}, starts=range(0, 100, 25), max_n=350, workers=1, progress=False)
    assert len(frame) == 4
    assert (frame["stop_n"] % 50 == 0).all()
    assert (frame["stop_n"] <= 350).all()


def test_replay_test_validates() -> None:
    with pytest.raises(ValueError, match="start"):
        replay_test(Fixed(n=2), np.ones(5), start=5)
    with pytest.raises(ValueError, match="max_n"):
        replay_test(Fixed(n=2), np.ones(5), max_n=0)
    with pytest.raises(ValueError, match="data"):
        replay_test(Fixed(n=2), [1.0, float("nan")])
