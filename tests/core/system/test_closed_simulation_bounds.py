"""A closed network too large to simulate is refused at once, naming the limit."""

from __future__ import annotations

import time

import pytest

from perfstats.system.queueing import ClosedNetwork, Station
from perfstats.system.queueing.simulation import (
    MAX_SIMULATED_USERS,
    MAX_USER_REQUESTS,
    check_population,
)


def test_huge_population_simulation_is_refused_at_once() -> None:
    net = ClosedNetwork(
        [Station("s", demands={c: 0.1 for c in "abcd"})], population={c: 65_535 for c in "abcd"}
    )
    start = time.process_time()
    with pytest.raises(ValueError, match=r"262,140 users is beyond the 10,000 users one "
                       r"simulation holds; solve\(\)"):  # fmt: skip
        net.simulate(n_requests=1_000, rng=1)
    # Refused before any work: no simulation, no mean value analysis.
    assert time.process_time() - start < 5.0


def test_users_times_requests_bound_names_the_requests_that_fit() -> None:
    net = ClosedNetwork([Station("s", demands={"u": 0.01})], population={"u": 5_000},
                        think_times={"u": 1.0})  # fmt: skip
    with pytest.raises(ValueError, match=r"5,000 users x 110,000 requests .* beyond the limit "
                       r"of 50,000,000 .* use n_requests <= 0 with this warm-up"):  # fmt: skip
        net.simulate(rng=1)
    assert check_population({"u": 5_000}, 9_000, 1_000) == 5_000
    with pytest.raises(ValueError, match=r"use n_requests <= 9,000 with this warm-up"):
        check_population({"u": 5_000}, 9_001, 1_000)
    assert MAX_USER_REQUESTS // MAX_SIMULATED_USERS >= 1_000


def test_a_small_closed_network_still_simulates() -> None:
    net = ClosedNetwork([Station("s", demands={"u": 0.05})], population={"u": 3},
                        think_times={"u": 0.5})  # fmt: skip
    res = net.simulate(n_requests=500, rng=2)
    assert res.response_times["u"].size == 500
