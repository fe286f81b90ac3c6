"""relative_change (bootstrap of a relative change), its kernels, and ElastiBench agreement."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.changes import change_of

from perfstats._kernels.change import MEAN, QUANTILE, add_two_level, stat_from_counts
from perfstats._kernels.random import stream_state
from perfstats.comparison.change import change_agreement, relative_change, resampled_changes

positive = st.floats(0.5, 1e4, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_stat_from_counts_equals_numpy_on_the_resample(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 30))
    values = np.array(
        data.draw(
            st.lists(st.one_of(positive, st.integers(1, 4).map(float)), min_size=n, max_size=n)
        )
    )
    counts = np.array(
        data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.int64
    )
    if counts.sum() == 0:
        counts[data.draw(st.integers(0, n - 1))] = 1
    q = data.draw(st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]) | st.floats(0.0, 1.0))
    order = np.argsort(values, kind="stable").astype(np.int64)
    resample = np.repeat(values, counts)
    total = int(counts.sum())
    assert stat_from_counts(values, order, counts, total, QUANTILE, q) == np.quantile(resample, q)
    mean = stat_from_counts(values, order, counts, total, MEAN, math.nan)
    assert mean == pytest.approx(np.mean(resample), rel=1e-12)


def test_two_level_draws_are_uniform_within_and_between_groups() -> None:
    # groups of sizes 1, 2 and 5: each draw picks 3 groups, then members
    members = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
    starts = np.array([0, 1, 3, 8], dtype=np.int64)
    total_counts = np.zeros(8, dtype=np.int64)
    sizes = []
    for b in range(20000):
        counts = np.zeros(8, dtype=np.int64)
        state = np.uint64(stream_state(np.uint64(12345), b))  # numba boxes uint64 as int
        _, total = add_two_level(counts, members, starts, state)
        assert counts.sum() == total
        sizes.append(total)
        total_counts += counts
    # E[count of a member] = (3 draws * 1/3 per group) * (size draws * 1/size) = 1
    assert total_counts / 20000 == pytest.approx(np.ones(8), abs=0.05)
    assert np.mean(sizes) == pytest.approx(8.0, abs=0.1)  # 3 * mean group size


def test_without_groups_every_resample_has_n_points() -> None:
    members = np.arange(7, dtype=np.int64)
    starts = np.array([0, 7], dtype=np.int64)
    counts = np.zeros(7, dtype=np.int64)
    _, total = add_two_level(counts, members, starts, np.uint64(1))
    assert total == 7 and counts.sum() == 7


@settings(max_examples=40, deadline=None)
@given(st.lists(positive, min_size=1, max_size=80), st.integers(0, 2**32))
def test_identical_samples_give_zero(x: list[float], seed: int) -> None:
    unpaired = relative_change(x, x, n_resamples=300, rng=seed)
    assert unpaired.estimate == 0.0
    assert unpaired.contains(0.0) and not unpaired.changed and unpaired.direction == "none"
    paired = relative_change(x, x, paired=True, n_resamples=300, rng=seed)
    assert (paired.estimate, paired.low, paired.high) == (0.0, 0.0, 0.0)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(positive, min_size=2, max_size=60),
    st.sampled_from(["median", "mean", 0.9]),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_deterministic_per_seed(x: list[float], stat: str | float, paired: bool, seed: int) -> None:
    y = np.array(x) * 1.05
    one = relative_change(x, y, statistic=stat, paired=paired, n_resamples=500, rng=seed)
    two = relative_change(x, y, statistic=stat, paired=paired, n_resamples=500, rng=seed)
    assert one == two
    gen = relative_change(
        x, y, statistic=stat, paired=paired, n_resamples=500, rng=np.random.default_rng(seed)
    )
    assert gen == one


def test_different_seeds_differ() -> None:
    x = np.random.default_rng(0).lognormal(size=100)
    a = relative_change(x, x * 1.02, rng=1, n_resamples=2000)
    b = relative_change(x, x * 1.02, rng=2, n_resamples=2000)
    assert (a.low, a.high) != (b.low, b.high)


_THREAD_SCRIPT = """
import json
import numpy as np
from perfstats.comparison.change import relative_change
rng = np.random.default_rng(3)
x = rng.lognormal(3, 0.4, 300)
y = rng.lognormal(3.05, 0.4, 300)
g = np.arange(300) // 20
out = []
for kw in ({}, {"paired": True}, {"paired": True, "groups": g}, {"groups": (g, g)},
           {"statistic": 0.9}, {"statistic": "mean"}):
    r = relative_change(x, y, n_resamples=3000, rng=42, **kw)
    out.append([r.low.hex(), r.high.hex()])
print(json.dumps(out))
"""


def test_same_result_for_one_and_two_threads() -> None:
    results = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        done = subprocess.run(
            [sys.executable, "-c", _THREAD_SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        results.append(json.loads(done.stdout))
    assert results[0] == results[1]


def _numpy_bootstrap(
    x: np.ndarray, y: np.ndarray, level: float, b: int, paired: bool
) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    ix = rng.integers(0, x.size, (b, x.size))
    iy = ix if paired else rng.integers(0, y.size, (b, y.size))
    dist = np.median(y[iy], axis=1) / np.median(x[ix], axis=1) - 1
    lo, hi = np.quantile(dist, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


@pytest.mark.parametrize("paired", [False, True])
def test_interval_agrees_with_a_numpy_bootstrap(paired: bool) -> None:
    rng = np.random.default_rng(21)
    x = rng.lognormal(4.0, 0.3, 150)
    y = x * rng.lognormal(0.03, 0.05, 150) if paired else rng.lognormal(4.03, 0.3, 150)
    res = relative_change(x, y, level=0.95, paired=paired, n_resamples=20000, rng=5)
    lo, hi = _numpy_bootstrap(x, y, 0.95, 20000, paired)
    width = hi - lo
    # Monte Carlo error of a 2.5% quantile over 20,000 resamples is ~1% of the width.
    assert res.low == pytest.approx(lo, abs=0.05 * width)
    assert res.high == pytest.approx(hi, abs=0.05 * width)
    assert res.estimate == pytest.approx(np.median(y) / np.median(x) - 1, rel=1e-12)


def test_false_positive_rate_and_power_on_simulated_data() -> None:
    rng = np.random.default_rng(77)
    flagged_aa = flagged_ab = 0
    runs = 200
    for i in range(runs):
        x, y = rng.lognormal(3.0, 0.5, (2, 60))
        flagged_aa += relative_change(x, y, level=0.95, n_resamples=1000, rng=i).changed
        res = relative_change(x, y * 1.6, level=0.95, n_resamples=1000, rng=i)
        flagged_ab += res.changed and res.direction == "slower"
    assert flagged_aa / runs <= 0.10  # nominal 5%
    assert flagged_ab / runs >= 0.90


def test_pairing_cancels_shared_noise() -> None:
    # Each pair shares an instance effect much larger than the change.
    rng = np.random.default_rng(4)
    instance = rng.lognormal(0.0, 0.5, 100)
    x = 100 * instance * rng.lognormal(0, 0.01, 100)
    y = 108 * instance * rng.lognormal(0, 0.01, 100)
    paired = relative_change(x, y, paired=True, rng=1)
    unpaired = relative_change(x, y, paired=False, rng=1)
    assert paired.changed and paired.direction == "slower"
    assert not unpaired.changed
    assert paired.high - paired.low < 0.25 * (unpaired.high - unpaired.low)


def test_per_pair_reads_the_statistic_of_the_ratios() -> None:
    rng = np.random.default_rng(31)
    x = rng.lognormal(3.0, 0.2, 120)
    y = x * rng.lognormal(0.05, 0.03, 120)
    res = relative_change(x, y, paired=True, per_pair=True, level=0.95, n_resamples=20000, rng=2)
    ratios = y / x
    assert res.per_pair and res.paired and "per pair" in repr(res)
    assert res.estimate == pytest.approx(np.median(ratios) - 1, rel=1e-12)
    # the same percentile bootstrap of the median of the ratios, done with NumPy
    idx = np.random.default_rng(0).integers(0, 120, (20000, 120))
    lo, hi = np.quantile(np.median(ratios[idx], axis=1) - 1, [0.025, 0.975])
    assert res.low == pytest.approx(lo, abs=0.05 * (hi - lo))
    assert res.high == pytest.approx(hi, abs=0.05 * (hi - lo))
    mean = relative_change(x, y, paired=True, per_pair=True, statistic="mean", rng=2)
    assert mean.estimate == pytest.approx(np.mean(ratios) - 1, rel=1e-12)


def test_per_pair_is_exact_for_an_exact_ratio() -> None:
    x = np.random.default_rng(5).lognormal(3.0, 0.5, 40)
    res = relative_change(x, x * 1.25, paired=True, per_pair=True, groups=np.arange(40) // 4, rng=1)
    assert res.low == pytest.approx(0.25, abs=1e-12)
    assert res.high == pytest.approx(0.25, abs=1e-12)


def test_per_pair_survives_a_bimodal_shared_state() -> None:
    # An instance is fast or 35% slow (a VM's virtual CPUs on busy host
    # cores); both executions of a pair share the state. The ratio of the
    # medians jumps with the share of slow pairs in a resample; the median
    # of the ratios does not see it.
    rng = np.random.default_rng(9)
    hits = 0
    widths = []
    for i in range(20):
        state = np.where(rng.random(45) < 0.5, 1.0, 1.35)
        x = 30 * state * rng.lognormal(0, 0.02, 45)
        y = 33 * state * rng.lognormal(0, 0.02, 45)
        calls = np.arange(45) // 3
        joint = relative_change(
            x, y, paired=True, groups=calls, level=0.99, n_resamples=2000, rng=i
        )
        ratios = relative_change(
            x, y, paired=True, per_pair=True, groups=calls, level=0.99, n_resamples=2000, rng=i
        )
        hits += ratios.changed and ratios.contains(0.10)
        widths.append((ratios.high - ratios.low, joint.high - joint.low))
    assert hits == 20
    assert np.median([r / j for r, j in widths]) < 0.8


def test_groups_widen_the_interval_when_groups_differ() -> None:
    # 8 instances with strong instance effects, 25 measurements each.
    rng = np.random.default_rng(8)
    labels = np.repeat(np.arange(8), 25)
    x = 100 * rng.lognormal(0, 0.3, 8)[labels] * rng.lognormal(0, 0.02, 200)
    y = 100 * rng.lognormal(0, 0.3, 8)[labels] * rng.lognormal(0, 0.02, 200)
    flat = relative_change(x, y, rng=1)
    grouped = relative_change(x, y, groups=(labels, labels), rng=1)
    assert grouped.grouped and not flat.grouped
    assert grouped.high - grouped.low > 3 * (flat.high - flat.low)
    # one measurement per group is the ordinary bootstrap again
    single = relative_change(x, y, groups=(np.arange(200), np.arange(200)), rng=1)
    assert single.high - single.low == pytest.approx(flat.high - flat.low, rel=0.15)
    # string labels work as well as numbers
    names = np.array([f"inst-{i}" for i in labels])
    assert relative_change(x, y, paired=True, groups=names, rng=1).grouped


@pytest.mark.parametrize(
    ("statistic", "point"),
    [("median", np.median), ("mean", np.mean), (0.9, lambda v: np.quantile(v, 0.9))],
)
def test_statistics_and_directions(statistic: str | float, point: object) -> None:
    rng = np.random.default_rng(12)
    x = rng.lognormal(3.0, 0.1, 300)
    slower = relative_change(x, x * 1.2, statistic=statistic, rng=1)
    faster = relative_change(x, x * 0.8, statistic=statistic, paired=True, rng=1)
    assert slower.estimate == pytest.approx(0.2, rel=1e-9)
    assert (slower.changed, slower.direction) == (True, "slower")
    assert (faster.changed, faster.direction) == (True, "faster")
    assert faster.contains(-0.2)
    y = rng.lognormal(3.0, 0.1, 300)
    other = relative_change(x, y, statistic=statistic, rng=1)
    assert other.estimate == pytest.approx(point(y) / point(x) - 1, rel=1e-12)  # type: ignore[operator]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"statistic": "mean"},
        {"statistic": 0.9, "engine": "direct"},
        {"statistic": "p10", "engine": "order"},
        {"paired": True},
        {"paired": True, "per_pair": True},
        {"paired": True, "groups": np.arange(60) % 4},
        {"groups": (np.arange(60) % 3, np.arange(70) % 5)},
    ],
    ids=repr,
)
def test_resampled_changes_are_the_ones_the_interval_is_read_from(kwargs: dict) -> None:
    rng = np.random.default_rng(21)
    x = rng.lognormal(3.0, 0.1, 60)
    y = x * rng.lognormal(0.04, 0.05, 60) if kwargs.get("paired") else rng.lognormal(3.04, 0.1, 70)
    reps = resampled_changes(x, y, n_resamples=999, rng=5, **kwargs)
    rc = relative_change(x, y, level=0.9, n_resamples=999, rng=5, **kwargs)
    assert reps.shape == (999,)
    alpha = (1.0 - 0.9) / 2.0
    assert np.quantile(reps, [alpha, 1.0 - alpha]).tolist() == [rc.low, rc.high]


def test_level_widens_interval() -> None:
    x = np.random.default_rng(1).lognormal(size=80)
    y = np.random.default_rng(2).lognormal(size=80)
    narrow = relative_change(x, y, level=0.8, rng=3)
    wide = relative_change(x, y, level=0.99, rng=3)
    assert wide.low < narrow.low < narrow.high < wide.high
    assert "at 99%" in repr(wide) and "unpaired" in repr(wide)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"baseline": [1.0, 0.0]}, r"baseline must be positive.*baseline\[1\] is 0\.0"),
        ({"baseline": [1.0, math.nan]}, r"baseline\[1\]"),
        ({"candidate": []}, "candidate is empty"),
        ({"candidate": [[1.0, 2.0]]}, "candidate must be 1-D"),
        # "p50" is a quantile spelling now (perfstats._quantiles); "mode" is none.
        ({"statistic": "mode"}, "statistic must be 'mean', 'median', a quantile"),
        ({"statistic": 1.5}, r"statistic must be .*a quantile in \[0, 1\].*got 1.5"),
        ({"statistic": True}, "statistic must be"),
        ({"level": 1.0}, r"level must be in \(0, 1\)"),
        ({"n_resamples": 0}, "n_resamples must be >= 1"),
        ({"rng": "seed"}, "rng must be None"),
        ({"paired": "yes"}, "paired must be True or False"),
        ({"paired": True, "candidate": [1.0, 2.0]}, "equal length, got 3 and 2"),
        ({"paired": True, "groups": [0, 1]}, r"groups must have one label per measurement \(3\)"),
        ({"paired": True, "groups": [[0, 1, 2]]}, "groups must be 1-D"),
        ({"paired": True, "groups": "abc"}, "groups must be a 1-D sequence"),
        ({"groups": [0, 1, 2]}, "groups for unpaired samples must be a tuple"),
        ({"groups": ([0, 1, 2], [0, 1])}, r"groups\[1\] must have one label per measurement"),
        ({"per_pair": True}, "per_pair=True compares pairs and needs paired=True"),
        ({"paired": True, "per_pair": 1}, "per_pair must be True or False"),
    ],
)
def test_bad_input(kwargs: dict, match: str) -> None:
    args = {"baseline": [1.0, 2.0, 3.0], "candidate": [1.5, 2.5, 3.5], "rng": 1} | kwargs
    with pytest.raises(ValueError, match=match):
        relative_change(**args)
    if "level" not in kwargs:  # the replicates have no level; all else is checked alike
        with pytest.raises(ValueError, match=match):
            resampled_changes(**args)


def test_agreement_definitions() -> None:
    first = [
        # slower / slower, each inside the other: agree, both coverages
        change_of(0.05, 0.02, 0.08),
        change_of(0.00, -0.01, 0.01),  # none / none, first inside second only: agree
        change_of(-0.10, -0.12, -0.08),  # faster / slower: disagree, no coverage
        change_of(0.02, -0.01, 0.05),  # none / slower, second's estimate inside first only
        change_of(0.03, 0.01, 0.05),  # bound case: estimates exactly on the other's bounds
    ]
    second = [
        change_of(0.06, 0.03, 0.09),
        change_of(0.02, -0.02, 0.03),
        change_of(0.06, 0.05, 0.07),
        change_of(0.04, 0.035, 0.045),
        change_of(0.05, 0.03, 0.06),
    ]
    res = change_agreement(first, second)
    assert res.agreed == (True, True, False, False, True)
    assert res.n == 5
    assert res.agree == 3 / 5
    assert res.one_sided == 3 / 5  # first's estimate in second's CI: items 0, 1, 4
    assert res.one_sided_reverse == 3 / 5  # second's in first's: items 0, 3, 4
    assert res.two_sided == 2 / 5  # items 0 and 4
    assert "agree=60.00%" in repr(res)


def test_agreement_reproduces_the_papers_arithmetic() -> None:
    # ElastiBench's baseline vs original data: 92 shared benchmarks, 88 agree,
    # one-sided coverage 80 and 48, two-sided 46 (95.65%, 86.96%, 52.17%, 50%).
    first, second = {}, {}
    for i in range(92):
        e1, e2 = 0.05, (-0.05 if i < 4 else 0.06)
        both = (min(e1, e2) - 0.005, max(e1, e2) + 0.005)
        in_second, in_first = i < 80, 34 <= i < 82
        lo2, hi2 = both if in_second else (e2 - 0.005, e2 + 0.005)
        lo1, hi1 = both if in_first else (e1 - 0.005, e1 + 0.005)
        first[f"b{i}"] = change_of(e1, lo1, hi1)
        second[f"b{i}"] = change_of(e2, lo2, hi2)
    first["only_in_first"] = change_of(0.0, -0.1, 0.1)
    res = change_agreement(first, second)
    assert res.n == 92 and "only_in_first" not in res.names
    counts = [round(v * 92) for v in (res.agree, res.one_sided, res.one_sided_reverse)]
    assert counts == [88, 80, 48]
    assert [round(100 * v, 2) for v in (res.agree, res.one_sided, res.two_sided)] == [
        95.65,
        86.96,
        50.0,
    ]


def test_agreement_bad_input() -> None:
    with pytest.raises(ValueError, match="aligned: got 1 and 2"):
        change_agreement([change_of(0, -1, 1)], [change_of(0, -1, 1), change_of(0, -1, 1)])
    with pytest.raises(ValueError, match="both be mappings or both be sequences"):
        change_agreement({"a": change_of(0, -1, 1)}, [change_of(0, -1, 1)])
    with pytest.raises(ValueError, match="share no benchmark"):
        change_agreement({"a": change_of(0, -1, 1)}, {"b": change_of(0, -1, 1)})
    with pytest.raises(ValueError, match=r"first\['0'\] must have numeric estimate"):
        change_agreement([object()], [change_of(0, -1, 1)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"second\['0'\] has an invalid interval"):
        change_agreement([change_of(0, -1, 1)], [change_of(0, 1, -1)])
