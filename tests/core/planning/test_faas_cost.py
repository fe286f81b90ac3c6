"""perfstats.faas_cost and the packaged FaaS price table."""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import perfstats

REPO = Path(__file__).resolve().parents[3]
TABLE = {
    "date": "2025-06-30",
    "region": "eu-central-1",
    "per_gb_second": {"arm64": 1.0e-5, "x86_64": 2.0e-5},
    "per_million_requests": 0.5,
}


def test_packaged_table_states_date_region_and_the_lambda_prices() -> None:
    p = perfstats.faas_prices()
    raw = json.loads((REPO / "perfstats" / "planning" / "data" / "faas_prices.json").read_text())
    assert p.date == datetime.date.fromisoformat(raw["date"])
    assert p.region == "us-east-1"
    assert p.currency == "USD"
    assert p.price("arm64") == 0.0000133334
    assert p.price("x86_64") == 0.0000166667
    assert p.per_million_requests == 0.20
    assert p.duration_granularity_s == 0.001
    assert "data/*.json" in (REPO / "pyproject.toml").read_text()


def test_cost_by_hand() -> None:
    # 1,000 calls of 300 ms on 512 MB x86_64: 150 GB-s.
    c = perfstats.faas_cost([0.3] * 1000, memory_mb=512, architecture="x86_64")
    assert c.billed_s == pytest.approx(300.0)
    assert c.gb_seconds == pytest.approx(150.0)
    assert c.compute == pytest.approx(150.0 * 0.0000166667)
    assert c.request == pytest.approx(1000 / 1e6 * 0.20)
    assert c.total == pytest.approx(c.compute + c.request)
    assert (c.calls, c.requests, c.memory_mb, c.region) == (1000, 1000, 512, "us-east-1")
    # ElastiBench's function: 2048 MB arm64.
    arm = perfstats.faas_cost([1.5, 2.5], memory_mb=2048, architecture="arm64")
    assert arm.gb_seconds == pytest.approx(8.0)
    assert arm.total == pytest.approx(8.0 * 0.0000133334 + 2 * 0.20 / 1e6)


def test_durations_round_up_to_the_millisecond_but_billed_ones_stay() -> None:
    c = perfstats.faas_cost([0.0301, 0.0000001], memory_mb=1024, architecture="arm64")
    assert c.billed_s == pytest.approx(0.031 + 0.001)
    # A REPORT line's billed duration is already whole milliseconds.
    billed = [1.234, 0.001, 12.0, 0.1 + 0.2]
    assert perfstats.faas_cost(billed, memory_mb=1024, architecture="arm64").billed_s == (
        pytest.approx(sum(billed))
    )


def test_requests_override_and_calls_without_durations() -> None:
    c = perfstats.faas_cost([], memory_mb=128, architecture="arm64", requests=3)
    assert c.compute == 0.0
    assert c.total == pytest.approx(3 * 0.20 / 1e6)
    more = perfstats.faas_cost([1.0], memory_mb=128, architecture="arm64", requests=5)
    assert more.requests == 5 and more.calls == 1


def test_a_given_table_is_used() -> None:
    c = perfstats.faas_cost([10.0], memory_mb=1024, architecture="x86_64", prices=TABLE)
    assert c.total == pytest.approx(10 * 2.0e-5 + 0.5e-6)
    assert c.price_date == datetime.date(2025, 6, 30)
    assert c.region == "eu-central-1"
    validated = perfstats.faas_prices(TABLE)
    assert perfstats.faas_cost([10.0], memory_mb=1024, architecture="x86_64",
                               prices=validated) == c  # fmt: skip
    assert repr(validated).startswith("FaasPrices(FaaS eu-central-1 2025-06-30: arm64 1e-05/GB-s")


@settings(max_examples=50, deadline=None)
@given(
    durations=st.lists(st.floats(0.0, 900.0), min_size=1, max_size=50),
    memory=st.integers(128, 10240),
)
def test_compute_cost_scales_with_memory(durations: list[float], memory: int) -> None:
    one = perfstats.faas_cost(durations, memory_mb=memory, architecture="arm64")
    two = perfstats.faas_cost(durations, memory_mb=2 * memory, architecture="arm64")
    assert two.compute == pytest.approx(2 * one.compute)
    assert two.request == one.request
    assert one.billed_s >= sum(durations) - 1e-9
    assert one.billed_s <= sum(durations) + 0.001 * len(durations) + 1e-9


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({k: v for k, v in TABLE.items() if k != "date"}, "has no 'date'"),
        ({**TABLE, "date": ""}, "has no 'date'"),
        ({**TABLE, "date": "30/06/2025"}, "YYYY-MM-DD"),
        ({**TABLE, "date": "2025-6-3"}, "YYYY-MM-DD"),
        ({**TABLE, "date": 20250630}, "YYYY-MM-DD"),
        ({k: v for k, v in TABLE.items() if k != "region"}, "region"),
        ({**TABLE, "per_gb_second": {}}, "per_gb_second"),
        ({**TABLE, "per_gb_second": {"arm64": -1.0}}, "non-negative"),
        ({**TABLE, "per_gb_second": {"arm64": "cheap"}}, "non-negative"),
        ({**TABLE, "per_million_requests": math.nan}, "per_million_requests"),
        ({**TABLE, "duration_granularity_s": 0}, "duration_granularity_s"),
        ({**TABLE, "duration_granularity_s": 1e-320}, "duration_granularity_s must be at least"),
        (["date", "2025-06-30"], "must be a mapping"),
    ],
)
def test_bad_tables_are_clear_errors(table: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        perfstats.faas_prices(table)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        perfstats.faas_cost([1.0], memory_mb=128, architecture="arm64", prices=table)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"billed_durations_s": [1.0, -0.5]}, r"billed_durations_s\[1\] is -0.5"),
        ({"billed_durations_s": [math.inf]}, "finite"),
        ({"memory_mb": 0}, "memory_mb"),
        ({"memory_mb": 10**400}, r"memory_mb must be at most 2\*\*53"),
        ({"memory_mb": 2**53, "billed_durations_s": [1e300]}, "memory_mb=9007199254740992"),
        ({"architecture": "riscv"}, "architecture must be one of"),
        ({"requests": -1}, "requests"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    args = {"billed_durations_s": [1.0], "memory_mb": 128, "architecture": "arm64", **kwargs}
    durations = args.pop("billed_durations_s")
    with pytest.raises(ValueError, match=message):
        perfstats.faas_cost(durations, **args)


def test_a_granularity_too_fine_is_named_even_in_a_built_table() -> None:
    import dataclasses

    table = dataclasses.replace(perfstats.faas_prices(), duration_granularity_s=1e-320)
    with pytest.raises(ValueError, match="duration_granularity_s must be at least 1e-09"):
        perfstats.faas_cost([0.3] * 10, memory_mb=512, architecture="x86_64", prices=table)
