"""Verdicts per benchmark from a record: pairing, grouping, too few results, agreement."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.ab import analyse, suite_agreement
from perfstats.adapters.ab.analysis import analysis_settings

from perfstats import change_agreement, cliffs_delta, relative_change, wilcoxon_ranksum


def _record(values: dict[str, tuple[np.ndarray, np.ndarray]], *, repeats: int = 3,
            paired: bool = True) -> pd.DataFrame:  # fmt: skip
    """Rows like a record's: calls of ``repeats`` pairs (duet) or of one version (RMIT)."""
    rows = []
    call = 0
    for name, (base, cand) in values.items():
        if paired:
            for i, (b, c) in enumerate(zip(base, cand, strict=True)):
                if i % repeats == 0:
                    call += 1
                for version, v in (("baseline", b), ("candidate", c)):
                    rows.append((call, i % repeats + 1, name, version, v))
        else:
            for version, sample in (("baseline", base), ("candidate", cand)):
                for i, v in enumerate(sample):
                    if i % repeats == 0:
                        call += 1
                    rows.append((call, i % repeats + 1, name, version, v))
    df = pd.DataFrame(rows, columns=["call", "repeat", "benchmark", "version", "value"])
    df["order"] = df.groupby("call").cumcount() + 1
    df["status"] = np.where(np.isnan(df["value"]), "error", "ok")
    return df


def test_duet_analysis_is_relative_change_paired_by_call() -> None:
    rng = np.random.default_rng(4)
    base = rng.lognormal(3.0, 0.05, 45)
    cand = base * 1.10 * rng.lognormal(0.0, 0.01, 45)
    df = _record({"k": (base, cand)})
    v = analyse(df, paired=True, rng=11).verdict("k")
    calls = np.repeat(np.arange(1, 16), 3)
    expected = relative_change(base, cand, paired=True, groups=calls, level=0.99,
                               per_pair=True, rng=np.random.default_rng(11))  # fmt: skip
    assert v.change == expected and v.change.per_pair
    assert v.verdict == "slower" and v.change.contains(0.10)
    joint = analyse(df, paired=True, per_pair=False, rng=11).verdict("k").change
    assert joint == relative_change(base, cand, paired=True, groups=calls, level=0.99,
                                    rng=np.random.default_rng(11))  # fmt: skip
    assert joint is not None and not joint.per_pair
    assert v.ranksum == wilcoxon_ranksum(cand, base)
    assert v.cliffs == cliffs_delta(cand, base)
    assert v.liao_changed is True and (v.n_baseline, v.n_candidate, v.failed) == (45, 45, 0)


def test_rmit_analysis_is_unpaired_and_grouped_by_call() -> None:
    rng = np.random.default_rng(5)
    base, cand = rng.lognormal(3.0, 0.05, 45), rng.lognormal(3.0, 0.05, 45) * 0.7
    df = _record({"k": (base, cand)}, paired=False)
    v = analyse(df, paired=False, rng=3).verdict("k")
    assert v.change is not None and not v.change.per_pair
    groups = (np.repeat(np.arange(1, 16), 3), np.repeat(np.arange(16, 31), 3))
    # The A-B suite keeps ElastiBench's 99% (the core's default is 0.95).
    assert v.change == relative_change(
        base, cand, groups=groups, level=0.99, rng=np.random.default_rng(3)
    )
    assert v.verdict == "faster" and v.change.contains(-0.30)
    ungrouped = analyse(df, paired=False, grouped=False, rng=3).verdict("k").change
    assert ungrouped == relative_change(base, cand, level=0.99, rng=np.random.default_rng(3))


def test_identical_versions_are_no_change() -> None:
    base = np.random.default_rng(6).lognormal(3.0, 0.1, 30)
    v = analyse(_record({"k": (base, base.copy())}), paired=True, rng=1).verdict("k")
    assert v.verdict == "no change" and v.change.estimate == 0.0 and v.liao_changed is False


def test_too_few_results_are_reported_not_judged() -> None:
    rng = np.random.default_rng(7)
    base = rng.lognormal(3.0, 0.05, 12)
    cand = base * 1.5
    cand[[1, 4, 7]] = np.nan  # three failed candidate executions: their pairs are gone
    df = _record({"short": (base, cand), "long": (rng.lognormal(3, 0.05, 30),) * 2})
    a = analyse(df, paired=True, benchmarks=["short", "long", "absent"], rng=1)
    short = a.verdict("short")
    assert short.verdict == "too few results" and short.change is None
    assert (short.n_baseline, short.failed) == (9, 3)
    assert short.liao_changed is None
    assert a.verdict("absent").verdict == "too few results"
    assert a.counts() == {"slower": 0, "faster": 0, "no change": 1, "too few results": 2}
    assert list(a.changes()) == ["long"]
    # With ElastiBench's threshold lowered, the nine pairs are judged.
    assert analyse(df, paired=True, min_results=9, rng=1).verdict("short").verdict == "slower"
    frame = a.to_frame()
    assert list(frame["benchmark"]) == ["short", "long", "absent"]
    assert {"verdict", "estimate", "low", "high", "ranksum_p", "cliffs_delta"} <= set(frame)


def test_suite_agreement_is_elastibench_coverage_of_judged_benchmarks() -> None:
    rng = np.random.default_rng(8)
    data = {f"b{i}": (rng.lognormal(3, 0.05, 30), None) for i in range(4)}
    first = {k: (b, b * (1.0 + 0.1 * i)) for i, (k, (b, _)) in enumerate(data.items())}
    second = {k: (b * rng.lognormal(0, 0.05, 30), c) for k, (b, c) in first.items()}
    a1 = analyse(_record(first), paired=True, rng=1)
    a2 = analyse(_record(second), paired=True, rng=1)
    agreement = suite_agreement(a1, a2)
    assert agreement == change_agreement(a1.changes(), a2.changes())
    assert agreement.n == 4
    assert suite_agreement(a1, a1).agree == 1.0 and suite_agreement(a1, a1).two_sided == 1.0


def test_a_non_positive_baseline_names_the_benchmark() -> None:
    base = np.linspace(0.0, 1.0, 12)
    with pytest.raises(ValueError, match=r"benchmark 'zero'.*positive"):
        analyse(_record({"zero": (base, base + 1)}), paired=True)


def _rmit_record(base: np.ndarray, cand: np.ndarray, *, repeats: int = 3) -> pd.DataFrame:
    """An RMIT record: per trial one call of each version, ``repeats`` executions each."""
    rows = []
    call = 0
    for trial in range(base.size // repeats):
        for version, sample in (("candidate", cand), ("baseline", base)):
            call += 1
            for r in range(repeats):
                v = sample[trial * repeats + r]
                rows.append((call, trial + 1, r + 1, "k", version, v))
    df = pd.DataFrame(rows, columns=["call", "trial", "repeat", "benchmark", "version", "value"])
    df["order"] = df.groupby("call").cumcount() + 1
    df["status"] = np.where(np.isnan(df["value"]), "error", "ok")
    return df


def test_rmit_by_trial_pairs_each_trials_versions() -> None:
    rng = np.random.default_rng(12)
    # The machine's speed drifts from trial to trial by far more than the change.
    state = np.repeat(rng.choice([1.0, 1.4], 15), 3)
    base = 30 * state * rng.lognormal(0, 0.02, 45)
    cand = 33 * state * rng.lognormal(0, 0.02, 45)
    cand[4] = np.nan  # a failed execution: its pair is left out
    df = _rmit_record(base, cand)
    a = analyse(df, paired=False, by_trial=True, rng=3)
    v = a.verdict("k")
    keep = ~np.isnan(cand)
    trials = np.repeat(np.arange(1, 16), 3)[keep]
    expected = relative_change(base[keep], cand[keep], paired=True, per_pair=True, groups=trials,
                               level=0.99, rng=np.random.default_rng(3))  # fmt: skip
    assert v.change == expected and (v.n_baseline, v.n_candidate, v.failed) == (44, 44, 1)
    assert v.verdict == "slower" and v.change.contains(0.10)
    assert a.by_trial and a.pairing == "paired by trial (RMIT blocks)"
    unpaired = analyse(df, paired=False, rng=3)
    assert unpaired.pairing == "unpaired" and not unpaired.by_trial
    width = unpaired.verdict("k").change.high - unpaired.verdict("k").change.low
    assert v.change.high - v.change.low < width / 3
    with pytest.raises(ValueError, match="pairing by trial needs a 'trial' column"):
        analyse(df.drop(columns="trial"), paired=False, by_trial=True)


def test_settings_of_a_record_are_read_back() -> None:
    assert analysis_settings(None) == {
        "paired": False, "by_trial": False, "level": 0.99, "min_results": 10,
        "n_resamples": 10000, "grouped": True,
    }  # fmt: skip
    # a record from before by_trial existed is judged unpaired, as it was then
    assert analysis_settings({"schedule": "rmit"})["by_trial"] is False
    duet = analysis_settings({"schedule": "duet", "level": 0.95, "grouped": False})
    assert (duet["paired"], duet["level"], duet["grouped"]) == (True, 0.95, False)
