"""The shop's component benchmark (examples/shop/component_benchmark.py): paired runs."""

from __future__ import annotations

import pstats

import numpy as np
import pytest

from examples.shop import injection
from examples.shop.component_benchmark import ComponentRun, relative_changes, run_components
from examples.shop.injection import Injection


def _run(times: dict[str, np.ndarray]) -> ComponentRun:
    return ComponentRun(times=times, profile=pstats.Stats(), wall_s=1.0)


def test_relative_change_reads_pairs_through_slow_phases() -> None:
    # The machine runs at speed 1 or 1/1.65 in phases of a few seconds; in
    # 8 of 30 pairs the phase changed between the two versions' runs, and
    # always towards the slow phase for the new version (the worst case).
    rng = np.random.default_rng(3)
    phase = np.where(rng.random(30) < 0.5, 1.0, 1.65)
    phase_after = phase.copy()
    phase_after[:8] = 1.65
    phase[:8] = 1.0
    noise = rng.uniform(0.99, 1.01, size=(2, 30))
    before = 0.0012 * phase * noise[0]
    after = 0.0012 * 3.5 * phase_after * noise[1]
    rel = relative_changes(_run({"c": before}), _run({"c": after}), ["c"])
    by_means = after.mean() / before.mean() - 1
    assert rel["c"] == pytest.approx(2.5, abs=0.05)
    assert abs(by_means - 2.5) > 0.2  # what the ratio of means would have said
    assert relative_changes(_run({"c": before}), _run({"c": after}), []) == {}


@pytest.mark.timing
def test_component_benchmark_of_a_regressed_version() -> None:
    # L1-High spins 250% of compute_price's own CPU time on every call: its
    # test takes 3.5 times as long; a component L1 does not touch does not
    # change (the bounds leave room for a machine shared with other work).
    previous = injection.active()
    before, after = run_components(Injection(), Injection.parse("L1-High"), runs=6, profile_runs=1)
    assert injection.active() == previous
    assert all(len(v) == 6 for v in (*before.times.values(), *after.times.values()))
    assert set(before.times) == set(after.times)
    rel = relative_changes(before, after, ["compute_price", "filter_items", "quote"])
    assert 1.8 < rel["compute_price"] < 3.2
    assert abs(rel["filter_items"]) < 0.4
    # The quote prices two items and applies the discounts: less than the
    # component alone, more than nothing.
    assert 1.0 < rel["quote"] < rel["compute_price"] + 0.2
    assert before.wall_s > 0 and after.wall_s > 0
    with pytest.raises(ValueError, match="runs must be >= 2"):
        run_components(Injection(), Injection(), runs=1)
