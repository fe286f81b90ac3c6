"""Scoring accepts every trace shape that replay accepts, and names what is missing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from perfstats.replay import replay
from perfstats.replay.scoring import score_distribution, score_estimate, score_prefix
from perfstats.rules import Fixed


def _traces() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.lognormal(0.0, 0.2, 60), rng.lognormal(1.0, 0.2, 80)]


@pytest.mark.parametrize("shape", ["list", "tuple", "dict", "series"])
def test_scoring_takes_what_replay_takes(shape: str) -> None:
    raw = _traces()
    traces: object = {
        "list": raw,
        "tuple": tuple(raw),
        "dict": {"a": raw[0], "b": raw[1]},
        "series": [pd.Series(t) for t in raw],
    }[shape]
    stops = replay(Fixed(n=20), traces, progress=False)  # type: ignore[arg-type]
    scored = score_distribution(stops, traces, q=[0.5])  # type: ignore[arg-type]
    assert len(scored) == 2 and scored["accuracy"].between(0, 1).all()
    est = score_estimate(stops, traces, traces, statistic="median")  # type: ignore[arg-type]
    assert est["accurate"].dtype == bool
    prefix = score_prefix(stops, traces)  # type: ignore[arg-type]
    assert np.allclose(prefix["saved"], [1 - 20 / 60, 1 - 20 / 80])


def test_missing_trace_is_named() -> None:
    traces = {"a": _traces()[0]}
    stops = pd.DataFrame({"trace": ["zz"], "start": [0], "stop_n": [10]})
    with pytest.raises(ValueError, match="no trace named 'zz'"):
        score_distribution(stops, traces)
    with pytest.raises(ValueError, match="truths has no trace named 'zz'"):
        score_estimate(stops, {"zz": traces["a"]}, traces)
    with pytest.raises(ValueError, match="traces has no trace named 'zz'"):
        score_prefix(stops, traces)
