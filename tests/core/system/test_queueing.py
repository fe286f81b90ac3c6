"""perfstats.system.queueing against textbook formulas and its own simulation.

Reference values are computed here independently of the library:
M/M/1 and M/M/c (Erlang C from its factorial closed form), the
finite-population M/M/1//N "machine repairman" system (Kleinrock,
Queueing Systems Vol. 1, 1975, Section 3.8) and, for multi-class closed
networks, the product-form (BCMP) state probabilities summed by brute force.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats.system.queueing import (
    ClosedNetwork,
    OpenNetwork,
    QueueingSolution,
    SimulationResult,
    Station,
    erlang_c,
)


def erlang_c_closed_form(c: int, a: float) -> float:
    rho = a / c
    top = a**c / math.factorial(c) / (1.0 - rho)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def test_mm1_textbook() -> None:
    net = OpenNetwork([Station("cpu", demands={"req": 0.5})], arrival_rates={"req": 1.0})
    sol = net.solve()
    assert sol.utilization["cpu"] == pytest.approx(0.5, rel=1e-12)
    assert sol.response_time["req"] == pytest.approx(1.0, rel=1e-12)
    assert sol.throughput["req"] == 1.0


@settings(max_examples=60, deadline=None)
@given(c=st.integers(min_value=1, max_value=40), rho=st.floats(min_value=0.01, max_value=0.99))
def test_erlang_c_equals_closed_form(c: int, rho: float) -> None:
    assert erlang_c(c, rho * c) == pytest.approx(erlang_c_closed_form(c, rho * c), rel=1e-9)


def erlang_c_in_logs(c: int, a: float) -> float:
    """Erlang C from the Poisson terms summed in logarithms (any c; O(c) operations)."""
    logs = [k * math.log(a) - math.lgamma(k + 1) for k in range(c + 1)]
    top = logs[-1] - math.log1p(-a / c)
    peak = max(*logs[:-1], top)
    rest = sum(math.exp(v - peak) for v in logs[:-1])
    return math.exp(top - peak) / (rest + math.exp(top - peak))


@pytest.mark.parametrize("c", [1_000, 1_025, 5_000, 100_000])
@pytest.mark.parametrize("rho", [0.5, 0.95, 0.999])
def test_erlang_c_with_many_servers_matches_the_poisson_sum(c: int, rho: float) -> None:
    assert erlang_c(c, rho * c) == pytest.approx(erlang_c_in_logs(c, rho * c), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_erlang_c_with_a_trillion_servers_follows_halfin_whitt(beta: float) -> None:
    # a = c - beta sqrt(c): the wait probability tends to 1 / (1 + beta Phi(beta) / phi(beta)),
    # with an error of order 1/sqrt(c). A loop per server would never finish here.
    from scipy.stats import norm

    c = 10**12
    limit = 1.0 / (1.0 + beta * norm.cdf(beta) / norm.pdf(beta))
    assert erlang_c(c, c - beta * math.sqrt(c)) == pytest.approx(limit, rel=1e-5)


def test_more_servers_than_the_maximum_are_refused() -> None:
    from perfstats.system.queueing.analytic import MAX_SERVERS

    with pytest.raises(ValueError, match="servers must be <= 1000000000000"):
        erlang_c(MAX_SERVERS + 1, 5.0)


def test_mva_refuses_a_state_space_beyond_its_limit_by_name() -> None:
    # 65536**4 population vectors overflow int64: refused, not an IndexError.
    net = ClosedNetwork(
        [Station("s", demands={c: 0.1 for c in "abcd"})], population={c: 65_535 for c in "abcd"}
    )
    with pytest.raises(ValueError, match=r"18,446,744,073,709,551,616 population vectors .* "
                       r"exceed the limit of 10,000,000"):
        net.solve()


@pytest.mark.parametrize(("c", "lam", "mu"), [(2, 2.0, 2.0), (3, 5.0, 2.0), (8, 30.0, 4.5)])
def test_mmc_response_time(c: int, lam: float, mu: float) -> None:
    net = OpenNetwork(
        [Station("pool", servers=c, demands={"req": 1.0 / mu})], arrival_rates={"req": lam}
    )
    sol = net.solve()
    expected = 1.0 / mu + erlang_c_closed_form(c, lam / mu) / (c * mu - lam)
    assert sol.response_time["req"] == pytest.approx(expected, rel=1e-10)
    assert sol.utilization["pool"] == pytest.approx(lam / (c * mu), rel=1e-12)


def test_open_multiclass_processor_sharing_formula() -> None:
    # BCMP single-server processor sharing: R_r = D_r / (1 - U) per station.
    net = OpenNetwork(
        [
            Station("gateway", demands={"browse": 0.002, "buy": 0.004}),
            Station("db", demands={"browse": 0.010, "buy": 0.030}),
        ],
        arrival_rates={"browse": 30.0, "buy": 10.0},
    )
    sol = net.solve()
    u_gw, u_db = 30 * 0.002 + 10 * 0.004, 30 * 0.010 + 10 * 0.030
    assert sol.utilization == pytest.approx({"gateway": u_gw, "db": u_db})
    assert sol.response_time["browse"] == pytest.approx(0.002 / (1 - u_gw) + 0.010 / (1 - u_db))
    assert sol.response_time["buy"] == pytest.approx(0.004 / (1 - u_gw) + 0.030 / (1 - u_db))
    assert sol.residence_time["buy"]["db"] == pytest.approx(0.030 / (1 - u_db))


@pytest.mark.parametrize(("n", "s", "z"), [(1, 1.0, 1.0), (5, 0.2, 1.0), (20, 0.05, 0.5)])
def test_closed_machine_repairman(n: int, s: float, z: float) -> None:
    p0 = 1.0 / sum(math.factorial(n) / math.factorial(n - k) * (s / z) ** k for k in range(n + 1))
    x = (1.0 - p0) / s
    net = ClosedNetwork(
        [Station("cpu", demands={"u": s})], population={"u": n}, think_times={"u": z}
    )
    sol = net.solve()
    assert sol.utilization["cpu"] == pytest.approx(1.0 - p0, rel=1e-10)
    assert sol.throughput["u"] == pytest.approx(x, rel=1e-10)
    assert sol.response_time["u"] == pytest.approx(n / x - z, rel=1e-10)


def product_form(
    demands: list[list[float]],
    servers: list[int],
    pop: list[int],
    think: list[float],
    slowdown: list[list[float]] | None = None,
) -> tuple[list[float], list[float]]:
    """Throughput and response time per class by summing the BCMP probabilities."""
    n_cls, n_st = len(pop), len(servers)

    def rate(k: int, i: int) -> float:
        table = [1.0] if slowdown is None else slowdown[k]
        g = table[min(i, len(table)) - 1]
        return min(i, servers[k]) / g

    def station_factor(k: int, counts: tuple[int, ...]) -> float:
        total = sum(counts)
        beta = math.prod(rate(k, i) for i in range(1, total + 1))
        f = math.factorial(total) / beta
        for r in range(n_cls):
            f *= demands[r][k] ** counts[r] / math.factorial(counts[r])
        return f

    per_class = [
        [comp for comp in itertools.product(range(pop[r] + 1), repeat=n_st) if sum(comp) <= pop[r]]
        for r in range(n_cls)
    ]
    norm = 0.0
    thinking = [0.0] * n_cls
    for choice in itertools.product(*per_class):
        w = 1.0
        for k in range(n_st):
            w *= station_factor(k, tuple(choice[r][k] for r in range(n_cls)))
        for r in range(n_cls):
            m = pop[r] - sum(choice[r])
            w *= think[r] ** m / math.factorial(m)
        norm += w
        for r in range(n_cls):
            thinking[r] += w * (pop[r] - sum(choice[r]))
    x = [thinking[r] / norm / think[r] for r in range(n_cls)]
    return x, [pop[r] / x[r] - think[r] for r in range(n_cls)]


def test_closed_multiclass_mva_equals_product_form() -> None:
    demands = [[0.2, 0.3, 0.05], [0.1, 0.5, 0.02]]
    servers = [1, 2, 3]
    pop, think = [3, 2], [1.0, 0.5]
    net = ClosedNetwork(
        [
            Station(name, servers=servers[k], demands={"u": demands[0][k], "v": demands[1][k]})
            for k, name in enumerate(["cpu", "disk", "net"])
        ],
        population={"u": pop[0], "v": pop[1]},
        think_times={"u": think[0], "v": think[1]},
    )
    sol = net.solve()
    x, r = product_form(demands, servers, pop, think)
    assert [sol.throughput["u"], sol.throughput["v"]] == pytest.approx(x, rel=1e-9)
    assert [sol.response_time["u"], sol.response_time["v"]] == pytest.approx(r, rel=1e-9)
    u_disk = (x[0] * 0.3 + x[1] * 0.5) / 2
    assert sol.utilization["disk"] == pytest.approx(u_disk, rel=1e-9)


def test_simulation_mm1_default_length_within_3_percent() -> None:
    net = OpenNetwork([Station("cpu", demands={"req": 0.5})], arrival_rates={"req": 1.0})
    sim = net.simulate(rng=2024)
    assert sim.n_requests == 100_000
    assert sim.mean_response_time["req"] == pytest.approx(1.0, rel=0.03)
    assert sim.utilization["cpu"] == pytest.approx(0.5, abs=0.01)
    assert sim.cpu_percent["cpu"] == pytest.approx(50.0, abs=1.0)
    assert sim.throughput["req"] == pytest.approx(1.0, rel=0.02)


def test_simulation_multiclass_multiserver_within_3_percent() -> None:
    net = OpenNetwork(
        [
            Station("gateway", demands={"browse": 0.002, "buy": 0.003}),
            Station("catalogue", servers=2, demands={"browse": 0.020, "buy": 0.015}),
            Station("pricing", demands={"buy": 0.012}),
        ],
        arrival_rates={"browse": 40.0, "buy": 20.0},
    )
    sol = net.solve()
    sim = net.simulate(n_requests=30_000, rng=7)
    for cls in ("browse", "buy"):
        assert sim.mean_response_time[cls] == pytest.approx(sol.response_time[cls], rel=0.03)
    for name, u in sol.utilization.items():
        assert sim.utilization[name] == pytest.approx(u, abs=0.015)
    assert sim.cpu_percent["catalogue"] == pytest.approx(200 * sol.utilization["catalogue"], abs=3)
    ratio = sim.response_times["browse"].size / sim.n_requests
    assert ratio == pytest.approx(40 / 60, abs=0.02)


def test_simulation_closed_within_3_percent() -> None:
    net = ClosedNetwork(
        [
            Station("cpu", demands={"u": 0.2, "v": 0.1}),
            Station("disk", servers=2, demands={"u": 0.3, "v": 0.5}),
        ],
        population={"u": 3, "v": 2},
        think_times={"u": 1.0, "v": 0.5},
    )
    sol = net.solve()
    sim = net.simulate(n_requests=20_000, rng=3)
    for cls in ("u", "v"):
        assert sim.mean_response_time[cls] == pytest.approx(sol.response_time[cls], rel=0.03)
        assert sim.throughput[cls] == pytest.approx(sol.throughput[cls], rel=0.03)
    for name, u in sol.utilization.items():
        assert sim.utilization[name] == pytest.approx(u, abs=0.015)


def test_simulation_is_reproducible_and_leaves_random_alone() -> None:
    net = OpenNetwork([Station("cpu", demands={"req": 0.5})], arrival_rates={"req": 1.0})
    random.seed(5)
    expected_next = random.random()
    random.seed(5)
    a = net.simulate(n_requests=500, rng=11)
    assert random.random() == expected_next
    b = net.simulate(n_requests=500, rng=11)
    np.testing.assert_array_equal(a.response_times["req"], b.response_times["req"])
    assert a.warmup == 50 and a.n_requests == 500


@pytest.mark.parametrize("scv", [0.0, 0.25, 4.0])
def test_simulation_mean_insensitive_to_service_variability(scv: float) -> None:
    # Processor sharing: the mean response time depends on the service-time
    # distribution only through its mean, so the analytic solution still holds.
    net = OpenNetwork(
        [
            Station("gateway", demands={"browse": 0.004, "buy": 0.003}, scv=scv),
            Station("catalogue", servers=2, demands={"browse": 0.020, "buy": 0.015}, scv=scv),
        ],
        arrival_rates={"browse": 30.0, "buy": 20.0},
    )
    sol = net.solve()
    sim = net.simulate(n_requests=40_000, rng=13)
    for cls in ("browse", "buy"):
        assert sim.mean_response_time[cls] == pytest.approx(sol.response_time[cls], rel=0.03)


def test_service_variability_sets_the_spread_of_response_times() -> None:
    def spread(scv: float) -> float:
        net = OpenNetwork([Station("cpu", demands={"r": 0.3}, scv=scv)], arrival_rates={"r": 1.0})
        x = net.simulate(n_requests=20_000, rng=5).response_times["r"]
        return float(np.std(x) / np.mean(x))

    low, exp, high = spread(0.0), spread(1.0), spread(4.0)
    assert low < exp < high
    # M/D/1-PS at 30% load: most of the spread is the sharing, well below 1.
    assert low < 0.6 < exp


def test_scv_one_keeps_the_exponential_stream() -> None:
    a = OpenNetwork([Station("cpu", demands={"r": 0.5})], arrival_rates={"r": 1.0})
    b = OpenNetwork([Station("cpu", demands={"r": 0.5}, scv=1.0)], arrival_rates={"r": 1.0})
    np.testing.assert_array_equal(
        a.simulate(n_requests=500, rng=3).response_times["r"],
        b.simulate(n_requests=500, rng=3).response_times["r"],
    )


def test_closed_simulation_with_constant_service_times() -> None:
    net = ClosedNetwork(
        [Station("cpu", demands={"u": 0.2}, scv=0.0), Station("disk", demands={"u": 0.3}, scv=0.0)],
        population={"u": 3},
        think_times={"u": 1.0},
    )
    sim = net.simulate(n_requests=20_000, rng=4)
    assert sim.mean_response_time["u"] == pytest.approx(net.solve().response_time["u"], rel=0.03)


def test_scv_is_kept_by_demand_factors_and_shown() -> None:
    net = OpenNetwork([Station("cpu", demands={"r": 0.1}, scv=0.2)], arrival_rates={"r": 1.0})
    scaled = net.with_demand_factors({"cpu": 2.0})
    assert scaled.stations[0].scv == 0.2
    assert scaled.stations[0].demands["r"] == pytest.approx(0.2)
    assert repr(net.stations[0]) == "Station('cpu', servers=1, demands={'r': 0.1}, scv=0.2)"


def test_with_demand_factors() -> None:
    net = OpenNetwork(
        [Station("a", demands={"x": 0.1, "y": 0.2}), Station("b", demands={"x": 0.1})],
        arrival_rates={"x": 1.0, "y": 1.0},
    )
    up = net.with_demand_factors({"a": 1.5})
    assert dict(up.stations[0].demands) == pytest.approx({"x": 0.15, "y": 0.3})
    assert dict(up.stations[1].demands) == {"x": 0.1}
    per_class = net.with_demand_factors({"y": {"a": 2.0}})
    assert dict(per_class.stations[0].demands) == pytest.approx({"x": 0.1, "y": 0.4})
    with pytest.raises(ValueError, match=r"unknown station\(s\) \['c'\]"):
        net.with_demand_factors({"c": 1.1})
    with pytest.raises(ValueError, match="demand factor of station 'a'"):
        net.with_demand_factors({"a": 0.0})
    with pytest.raises(ValueError, match=r"station 'a' has utilisation 1\.2"):
        net.with_demand_factors({"a": 4.0})


def test_unstable_model_names_station_and_excess() -> None:
    with pytest.raises(
        ValueError, match=r"station 'db' has utilisation 1.25 \(25% over capacity\)"
    ):
        OpenNetwork(
            [Station("web", demands={"r": 0.1}), Station("db", demands={"r": 1.25})],
            arrival_rates={"r": 1.0},
        )
    with pytest.raises(ValueError, match=r"station 'pool' has utilisation 1 \(0% over"):
        OpenNetwork([Station("pool", servers=2, demands={"r": 2.0})], arrival_rates={"r": 1.0})


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: Station("s", demands={"r": 0.0}), "demand of class 'r' at station 's'"),
        (lambda: Station("s", demands={"r": -1.0}), "positive finite"),
        (lambda: Station("s", demands={}), "non-empty mapping"),
        (lambda: Station("s", servers=0, demands={"r": 1.0}), "servers of station 's'"),
        (lambda: Station("", demands={"r": 1.0}), "station name"),
        (lambda: Station("s", demands={"r": 1.0}, scv=-0.5), "scv of station 's'"),
        (lambda: Station("s", demands={"r": 1.0}, scv=float("nan")), "scv of station 's'"),
        (lambda: Station("s", demands={"r": 1.0}, scv=True), "scv of station 's'"),
        (
            lambda: OpenNetwork([Station("s", demands={"r": 0.1})], arrival_rates={"q": 1.0}),
            r"request class\(es\) \['q'\] that no station serves",
        ),
        (
            lambda: OpenNetwork(
                [Station("s", demands={"r": 0.1, "q": 0.1})], arrival_rates={"r": 1.0}
            ),
            r"no entry for request class\(es\) \['q'\]",
        ),
        (
            lambda: OpenNetwork([Station("s", demands={"r": 0.1})], arrival_rates={"r": -1.0}),
            "arrival rate of class 'r'",
        ),
        (lambda: OpenNetwork([], arrival_rates={"r": 1.0}), "stations is empty"),
        (
            lambda: OpenNetwork(
                [Station("s", demands={"r": 0.1}), Station("s", demands={"r": 0.1})],
                arrival_rates={"r": 1.0},
            ),
            "'s' appears twice",
        ),
        (
            lambda: ClosedNetwork([Station("s", demands={"r": 0.1})], population={"r": 0}),
            "population is 0",
        ),
        (
            lambda: ClosedNetwork(
                [Station("s", demands={"r": 0.1})], population={"r": 2}, think_times={"r": -1}
            ),
            "think time of class 'r'",
        ),
        (lambda: erlang_c(2, 2.0), "below servers 2"),
    ],
)
def test_bad_models(build: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        build()  # type: ignore[operator]


# --- load-dependent stations --------------------------------------------------


def assert_simulation_agrees(sol: QueueingSolution, sim: SimulationResult) -> None:
    """Simulated means within 3 % of the analytic ones, utilisations within 1.5 points."""
    for cls, r in sol.response_time.items():
        assert sim.mean_response_time[cls] == pytest.approx(r, rel=0.03)
    for name, u in sol.utilization.items():
        assert sim.utilization[name] == pytest.approx(u, abs=0.015)


def truncated_birth_death(
    a: float, c: int, g: list[float], top: int = 20_000
) -> tuple[float, float]:
    """Mean requests present and busy servers by summing P(n) directly up to ``top``."""
    p = [1.0]
    for n in range(1, top + 1):
        p.append(p[-1] * a * g[min(n, len(g)) - 1] / min(n, c))
    norm = math.fsum(p)
    mean_n = math.fsum(n * x for n, x in enumerate(p)) / norm
    busy = math.fsum(min(n, c) * x for n, x in enumerate(p)) / norm
    return mean_n, busy


@settings(max_examples=40, deadline=None)
@given(c=st.integers(min_value=1, max_value=12), rho=st.floats(min_value=0.02, max_value=0.95))
def test_speedup_by_servers_is_the_mmc_queue(c: int, rho: float) -> None:
    # One server that works min(n, c) times faster with n present is M/M/c
    # (its response times); it is busy whenever anyone is there.
    mu, lam = 2.0, 2.0 * rho * c
    one = OpenNetwork(
        [Station("s", demands={"r": 1 / mu}, slowdown=[1 / min(k, c) for k in range(1, c + 1)])],
        arrival_rates={"r": lam},
    ).solve()
    a = lam / mu
    expected = 1 / mu + erlang_c_closed_form(c, a) / (c * mu - lam)
    assert one.response_time["r"] == pytest.approx(expected, rel=1e-9)
    p0 = 1.0 / (
        sum(a**k / math.factorial(k) for k in range(c))
        + a**c / math.factorial(c) / (1 - a / c)
    )
    assert one.utilization["s"] == pytest.approx(1 - p0, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(g=st.floats(min_value=0.5, max_value=3.0), rho=st.floats(min_value=0.02, max_value=0.95))
def test_constant_slowdown_is_a_longer_demand(g: float, rho: float) -> None:
    d = 0.1
    lam = rho / (d * g)
    slow = OpenNetwork(
        [Station("s", demands={"r": d}, slowdown=[g])], arrival_rates={"r": lam}
    ).solve()
    plain = OpenNetwork([Station("s", demands={"r": d * g})], arrival_rates={"r": lam}).solve()
    assert slow.response_time["r"] == pytest.approx(plain.response_time["r"], rel=1e-9)
    assert slow.utilization["s"] == pytest.approx(plain.utilization["s"], rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    c=st.integers(min_value=1, max_value=4),
    g=st.lists(st.floats(min_value=0.6, max_value=1.6), min_size=1, max_size=12),
    load=st.floats(min_value=0.05, max_value=0.9),
)
def test_birth_death_equals_the_direct_sum(c: int, g: list[float], load: float) -> None:
    a = load * c / g[-1]  # stable: a g_last / c = load < 1
    net = OpenNetwork(
        [Station("s", servers=c, demands={"x": 0.2 * a, "y": 0.8 * a}, slowdown=g)],
        arrival_rates={"x": 1.0, "y": 1.0},
    )
    sol = net.solve()
    mean_n, busy = truncated_birth_death(a, c, g)
    assert sol.utilization["s"] == pytest.approx(busy / c, rel=1e-8)
    # Little's law per class, with BCMP's split of the requests present
    total = sol.response_time["x"] * 1.0 + sol.response_time["y"] * 1.0
    assert total == pytest.approx(mean_n, rel=1e-8)
    assert sol.response_time["y"] == pytest.approx(4 * sol.response_time["x"], rel=1e-12)


def test_birth_death_with_hundreds_of_servers_stays_finite() -> None:
    sol = OpenNetwork(
        [Station("s", servers=400, demands={"r": 1.0}, slowdown=[1.0, 1.2])],
        arrival_rates={"r": 300.0},
    ).solve()
    assert math.isfinite(sol.response_time["r"])
    assert sol.utilization["s"] == pytest.approx(300 * 1.2 / 400, rel=1e-6)


def test_closed_load_dependent_mva_equals_product_form() -> None:
    demands = [[0.2, 0.3], [0.1, 0.5]]
    servers = [1, 2]
    slowdown = [[1.0, 1.1, 1.25], [1.0, 0.9]]
    pop, think = [3, 2], [1.0, 0.5]
    net = ClosedNetwork(
        [
            Station(name, servers=servers[k], demands={"u": demands[0][k], "v": demands[1][k]},
                    slowdown=slowdown[k])
            for k, name in enumerate(["cpu", "disk"])
        ],
        population={"u": pop[0], "v": pop[1]},
        think_times={"u": think[0], "v": think[1]},
    )  # fmt: skip
    sol = net.solve()
    x, r = product_form(demands, servers, pop, think, slowdown)
    assert [sol.throughput["u"], sol.throughput["v"]] == pytest.approx(x, rel=1e-9)
    assert [sol.response_time["u"], sol.response_time["v"]] == pytest.approx(r, rel=1e-9)
    # slower under load: busier than the offered work says
    assert sol.utilization["cpu"] > x[0] * 0.2 + x[1] * 0.1


def test_closed_machine_repairman_with_a_slowdown() -> None:
    # M/M/1//N with service rate mu / g(n): P(n) ~ N! / (N - n)! (s / z)^n prod g
    n_users, s, z, g = 6, 0.3, 1.0, [1.0, 1.05, 1.1, 1.2]
    w = [
        math.factorial(n_users) / math.factorial(n_users - k) * (s / z) ** k
        * math.prod(g[min(i, len(g)) - 1] for i in range(1, k + 1))
        for k in range(n_users + 1)
    ]  # fmt: skip
    p0 = w[0] / sum(w)
    net = ClosedNetwork(
        [Station("cpu", demands={"u": s}, slowdown=g)], population={"u": n_users},
        think_times={"u": z},
    )  # fmt: skip
    sol = net.solve()
    assert sol.utilization["cpu"] == pytest.approx(1 - p0, rel=1e-10)
    busy_rate = sum(w[k] / g[min(k, len(g)) - 1] for k in range(1, n_users + 1)) / sum(w) / s
    assert sol.throughput["u"] == pytest.approx(busy_rate, rel=1e-10)


def test_load_dependent_simulation_within_3_percent() -> None:
    net = OpenNetwork(
        [
            Station("gateway", demands={"browse": 0.002, "buy": 0.003}),
            Station("pricing", demands={"buy": 0.020}, slowdown=[1.0, 1.05, 1.1, 1.15, 1.2]),
            Station("catalogue", servers=2, demands={"browse": 0.020}, slowdown=[1.0, 1.0, 1.1]),
        ],
        arrival_rates={"browse": 40.0, "buy": 30.0},
    )
    sol = net.solve()
    assert sol.utilization["pricing"] > net.offered_load()["pricing"] + 0.03
    assert_simulation_agrees(sol, net.simulate(n_requests=60_000, rng=17))


def test_closed_load_dependent_simulation_within_3_percent() -> None:
    net = ClosedNetwork(
        [
            Station("cpu", demands={"u": 0.2, "v": 0.1}, slowdown=[1.0, 1.2, 1.3]),
            Station("disk", servers=2, demands={"u": 0.3, "v": 0.5}, slowdown=[1.0, 1.0, 1.15]),
        ],
        population={"u": 3, "v": 2},
        think_times={"u": 1.0, "v": 0.5},
    )
    assert_simulation_agrees(net.solve(), net.simulate(n_requests=20_000, rng=3))


def test_slowdown_kept_by_demand_factors_shown_and_checked_for_stability() -> None:
    net = OpenNetwork(
        [Station("cpu", demands={"r": 0.1}, slowdown=[1.0, 1.5])], arrival_rates={"r": 5.0}
    )
    assert net.stability_load() == pytest.approx({"cpu": 0.75})
    assert net.offered_load() == pytest.approx({"cpu": 0.5})
    scaled = net.with_demand_factors({"cpu": 1.2})
    assert scaled.stations[0].slowdown == (1.0, 1.5)
    assert repr(net.stations[0]) == (
        "Station('cpu', servers=1, demands={'r': 0.1}, slowdown=(1, 1.5))"
    )
    # stable without the slowdown (0.7), not with it (1.05)
    with pytest.raises(ValueError, match=r"utilisation 1\.05 .*slowdown of 1\.5 under load"):
        net.with_demand_factors({"cpu": 1.4})


def test_slowdown_is_read_by_requests_present() -> None:
    station = Station("cpu", demands={"r": 0.1}, slowdown=[1.0, 1.5])
    assert [station.slowdown_at(n) for n in (1, 2, 3, 100)] == [1.0, 1.5, 1.5, 1.5]
    assert Station("io", demands={"r": 0.1}).slowdown_at(7) == 1.0
    # With no request present there is no service to slow: not the last entry.
    for bad in (0, -1):
        with pytest.raises(ValueError, match="n must be at least 1"):
            station.slowdown_at(bad)


@pytest.mark.parametrize(
    ("slowdown", "match"),
    [
        ([], "is empty"),
        ([1.0, 0.0], r"with 2 request\(s\) present"),
        ([1.0, float("nan")], "positive finite"),
        ([1.0, -2.0], "positive finite"),
        ("fast", "must be a sequence"),
        ({1: 1.0}, "must be a sequence"),
        (1.5, "must be a sequence"),
        ([True], "positive number"),
    ],
)
def test_bad_slowdown(slowdown: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Station("s", demands={"r": 0.1}, slowdown=slowdown)  # type: ignore[arg-type]
