"""benchmarks/change_detection.py, quickly: the change-detection protocol on the real traces."""

from __future__ import annotations

from benchmarks.change_detection import evaluate, load_traces, pooled_false_positives


def test_quick_evaluation_on_real_traces() -> None:
    """The change-detection protocol on all 130 serverless traces (fewer resamples).

    A/A: even against odd invocations; A/B: odd ones 50% slower. A method
    with a broken interval either flags many A/A pairs or misses the 50%.
    """
    traces = load_traces()
    assert len(traces) == 130
    detail = evaluate(traces, sizes=(45, 100), deltas=(0.0, 0.5), n_resamples=2000, seed=7)
    fp = pooled_false_positives(detail)
    assert fp["relative_change"] <= 4.0  # 260 A/A comparisons; target 2% at 10,000 resamples
    assert fp["relative_change_paired"] <= 6.0
    ab = detail[detail["d"] == 0.5].groupby("method")["detected"].mean() * 100
    assert ab["relative_change"] >= 97.0
    assert ab["relative_change_paired"] >= 97.0
    assert ab["liao"] >= 97.0
