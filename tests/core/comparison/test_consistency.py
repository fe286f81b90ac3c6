"""ElastiBench's cross-experiment analyses: possible changes (VI-B6), repetitions (VI-B7)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.changes import change_of

import perfstats
from perfstats import RelativeChange, RepetitionsNeeded


def test_possible_changes_by_hand() -> None:
    experiments = {
        "baseline": {
            "add": change_of(0.020, 0.004, 0.036),  # found
            "get": change_of(0.10, 0.08, 0.12),  # found everywhere: consistent
            "put": change_of(0.001, -0.01, 0.012),  # found nowhere: consistent
            "scan": change_of(-0.05, -0.07, -0.03),  # found faster
            "flip": change_of(0.03, 0.01, 0.05),
            "alone": change_of(0.5, 0.4, 0.6),  # in one experiment only
        },
        "replication": {
            "add": change_of(0.012, -0.003, 0.027),
            "get": change_of(0.11, 0.09, 0.13),
            "put": change_of(-0.002, -0.01, 0.008),
            "scan": change_of(-0.01, -0.03, 0.01),
            "flip": change_of(-0.04, -0.06, -0.02),
        },
        "lower-memory": {
            "add": change_of(-0.031, -0.052, -0.010),  # found, larger, other sign
            "get": change_of(0.09, 0.07, 0.11),
            "scan": change_of(-0.075, -0.09, -0.06),
        },
    }
    p = perfstats.possible_changes(experiments)
    assert p.n_compared == 5
    assert p.benchmarks == ("add", "scan")
    assert p.largest == (-0.031, -0.075)
    assert p.found_by == ("lower-memory", "lower-memory")
    assert p.opposite == ("flip",)
    assert p.median == pytest.approx(np.median([0.031, 0.075]))
    assert p.p75 == pytest.approx(np.percentile([0.031, 0.075], 75))
    assert p.max == pytest.approx(0.075)
    assert repr(p).startswith("PossibleChanges(2 of 5 benchmarks disagree; largest change median")


def test_nothing_disagrees() -> None:
    same = {"a": change_of(0.1, 0.05, 0.15), "b": change_of(0.0, -0.01, 0.01)}
    p = perfstats.possible_changes({"x": same, "y": same})
    assert p.benchmarks == () and p.n_compared == 2
    assert np.isnan(p.median) and np.isnan(p.p75) and np.isnan(p.max)


interval = st.tuples(
    st.floats(-0.2, 0.2), st.floats(0.0, 0.1), st.floats(0.0, 0.1)
).map(lambda t: change_of(t[0], t[0] - t[1], t[0] + t[2]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from("abcdef"), interval), min_size=2, max_size=5))
def test_possible_changes_follow_the_definition(runs: list[dict[str, RelativeChange]]) -> None:
    experiments = {f"e{i}": r for i, r in enumerate(runs)}
    p = perfstats.possible_changes(experiments)
    for bench in "abcdef":
        found = [(e, r[bench]) for e, r in experiments.items() if bench in r]
        if len(found) < 2:
            assert bench not in p.benchmarks and bench not in p.opposite
            continue
        flagged = [(e, c) for e, c in found if c.changed]
        unflagged = len(found) - len(flagged)
        if flagged and unflagged:
            i = p.benchmarks.index(bench)
            assert abs(p.largest[i]) == max(abs(c.estimate) for _, c in flagged)
            assert experiments[p.found_by[i]][bench].changed
        else:
            assert bench not in p.benchmarks
        directions = {c.direction for _, c in found}
        assert (bench in p.opposite) == (not unflagged and len(directions) > 1)


@pytest.mark.parametrize(
    ("experiments", "message"),
    [
        ({"only": {"a": change_of(0, -1, 1)}}, "at least two"),
        ([{"a": change_of(0, -1, 1)}, {"a": change_of(0, -1, 1)}], "at least two"),
        ({"x": {"a": change_of(0, 1, -1)}, "y": {}}, "invalid interval"),
        ({"x": {"a": 0.3}, "y": {}}, "estimate, low and high"),
        ({"x": [change_of(0, -1, 1)], "y": {}}, "must map benchmark names"),
    ],
)
def test_possible_changes_bad_input(experiments: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        perfstats.possible_changes(experiments)  # type: ignore[arg-type]


def duet(n: int, change: float, seed: int, noise: float = 0.02) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    state = np.repeat(rng.lognormal(0.0, 0.1, n // 3 + 1), 3)[:n]  # one instance per call
    base = state * rng.lognormal(0.0, noise, n)
    cand = state * (1 + change) * rng.lognormal(0.0, noise, n)
    calls = np.repeat(np.arange(n // 3 + 1), 3)[:n]
    return base, cand, calls


def test_repetitions_needed_reads_its_own_intervals() -> None:
    base, cand, calls = duet(45, 0.05, 1)
    original = perfstats.relative_change(base, cand, paired=True, per_pair=True, groups=calls,
                                         n_resamples=2000, rng=2)  # fmt: skip
    b2, c2, calls2 = duet(135, 0.05, 3)
    r = perfstats.repetitions_needed(original, b2, c2, groups=calls2, n_resamples=2000, rng=4)
    assert r.repetitions == tuple(range(12, 136, 3))
    width = r.high - r.low
    ok = (width <= original.high - original.low) & (r.low <= original.high) & (
        original.low <= r.high
    )
    assert r.needed == r.repetitions[int(np.argmax(ok))] if ok.any() else r.needed is None
    assert r.final_overlap == bool(r.low[-1] <= original.high and original.low <= r.high[-1])
    # Three times the results of the same process: the CI ends up narrower.
    assert r.final_overlap and r.needed is not None
    assert width[-1] < original.high - original.low
    assert not r.low.flags.writeable


def test_last_step_is_relative_change_on_everything() -> None:
    base, cand, calls = duet(100, 0.03, 5)
    ref = change_of(0.03, 0.0, 0.06)
    r = perfstats.repetitions_needed(ref, base, cand, groups=calls, n_resamples=500, rng=6)
    assert r.repetitions[0] == 12 and r.repetitions[-2:] == (99, 100)
    seed = int(np.random.default_rng(6).integers(2**63))
    full = perfstats.relative_change(base, cand, paired=True, per_pair=True, groups=calls,
                                     n_resamples=500, rng=seed)  # fmt: skip
    assert (r.low[-1], r.high[-1]) == (full.low, full.high)


def test_a_different_change_never_overlaps_and_a_tiny_ci_is_never_matched() -> None:
    base, cand, _ = duet(90, 0.20, 7)
    far = perfstats.repetitions_needed(
        change_of(0.05, 0.04, 0.06), base, cand, n_resamples=500, rng=1
    )
    assert not far.final_overlap and far.needed is None
    near = perfstats.repetitions_needed(change_of(0.20, 0.2, 0.2 + 1e-9), base, cand,
                                        n_resamples=500, rng=1)  # fmt: skip
    assert near.final_overlap and near.needed is None


def test_consistent_ci_curve_counts_only_overlapping_benchmarks() -> None:
    z = np.zeros(3)

    def r(needed: int | None, overlap: bool = True) -> RepetitionsNeeded:
        return RepetitionsNeeded((45, 90, 135), z, z, 0.0, 0.0, needed, overlap)

    curve = perfstats.consistent_ci_curve({"a": r(45), "b": r(90), "c": r(None), "d": r(45, False)})
    assert curve.repetitions == (45, 90, 135)
    assert curve.share == (1 / 3, 2 / 3, 2 / 3)
    assert (curve.eligible, curve.total) == (3, 4)
    assert curve.share_at(10) == 0.0 and curve.share_at(100) == 2 / 3
    with pytest.raises(ValueError, match="empty"):
        perfstats.consistent_ci_curve([])
    with pytest.raises(ValueError, match="no benchmark's final CI overlaps"):
        perfstats.consistent_ci_curve([r(45, False)])
    with pytest.raises(ValueError, match="must be a RepetitionsNeeded"):
        perfstats.consistent_ci_curve([change_of(0, -1, 1)])  # type: ignore[list-item]


def test_repetitions_needed_bad_input() -> None:
    base, cand, calls = duet(30, 0.0, 8)
    with pytest.raises(ValueError, match="min_repetitions=10"):
        perfstats.repetitions_needed(change_of(0, -1, 1), base[:9], cand[:9])
    with pytest.raises(ValueError, match="equal length"):
        perfstats.repetitions_needed(change_of(0, -1, 1), base, cand[:20])
    with pytest.raises(ValueError, match="one label per result"):
        perfstats.repetitions_needed(change_of(0, -1, 1), base, cand, groups=calls[:5])
    with pytest.raises(ValueError, match="reference"):
        perfstats.repetitions_needed(change_of(0, 1, -1), base, cand)
    with pytest.raises(ValueError, match="step"):
        perfstats.repetitions_needed(change_of(0, -1, 1), base, cand, step=0)
