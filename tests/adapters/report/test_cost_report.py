"""Price tables read from files, billed durations read from records."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from perfstats.adapters.cli import main
from perfstats.adapters.report.billing import billing, cost_text, load_prices, run_cost

from perfstats import faas_cost, faas_prices

TABLE = {
    "date": "2025-01-31",
    "region": "eu-west-1",
    "per_gb_second": {"arm64": 1.3e-5, "x86_64": 1.6e-5},
    "per_million_requests": 0.2,
}


def test_json_and_toml_tables(tmp_path: Path) -> None:
    j = tmp_path / "p.json"
    j.write_text(json.dumps(TABLE))
    t = tmp_path / "p.toml"
    t.write_text(
        'date = "2025-01-31"\nregion = "eu-west-1"\nper_million_requests = 0.2\n'
        "[per_gb_second]\narm64 = 1.3e-5\nx86_64 = 1.6e-5\n"
    )
    a, b = load_prices(j), load_prices(t)
    assert a.date == b.date == datetime.date(2025, 1, 31)
    assert a.per_gb_second == b.per_gb_second == (("arm64", 1.3e-5), ("x86_64", 1.6e-5))
    assert a.source == str(j) and b.source == str(t)
    assert load_prices(None) == faas_prices()


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("nodate.json", json.dumps({k: v for k, v in TABLE.items() if k != "date"}),
         "has no 'date'"),
        ("baddate.json", json.dumps({**TABLE, "date": "31.01.2025"}), "YYYY-MM-DD"),
        ("noregion.json", json.dumps({k: v for k, v in TABLE.items() if k != "region"}),
         "'region'"),
        ("broken.json", "{", "not valid JSON"),
        ("broken.toml", "date = ", "not valid TOML"),
        ("table.csv", "date,region", "must be a .json or .toml file"),
    ],
)  # fmt: skip
def test_bad_tables_are_clear_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as info:
        load_prices(path)
    assert str(path) in str(info.value)
    with pytest.raises(ValueError, match="does not exist"):
        load_prices(tmp_path / "missing.json")


def test_perfstats_run_rejects_an_undated_table_before_running(capsys, tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({k: v for k, v in TABLE.items() if k != "date"}))
    record = tmp_path / "r.csv"
    code = main(["run", "--prices", str(path), "--record", str(record), "--", "true"])
    assert code == 2 and "has no 'date'" in capsys.readouterr().err
    assert not record.exists()


def test_report_lines_win_over_measured_durations() -> None:
    report = json.dumps({"billed_duration_ms": 1234.0, "wall_ns": 9_000_000_000})
    df = pd.DataFrame({"extra": [report, json.dumps({"wall_ns": 500_000_000}), ""]})
    bill = billing(df)
    assert bill.durations_s.tolist() == [1.234, 0.5] and bill.requests == 3
    assert bill.from_report == 1
    cost = run_cost(df, {"kind": "lambda", "memory_mb": 1024, "architecture": "x86_64"},
                    prices=faas_prices(TABLE))  # fmt: skip
    assert cost is not None
    # 1234 ms is billed as it is (not rounded up to 1235), the failed call is a request.
    assert cost.billed_s == pytest.approx(1.734, abs=1e-12)
    assert cost.requests == 3
    assert cost.total == pytest.approx(1.734 * 1.6e-5 + 3 / 1e6 * 0.2, rel=1e-12)


def test_ab_records_bill_one_request_per_call() -> None:
    e1 = json.dumps({"call_wall_ns": 2_000_000_000})
    e2 = json.dumps({"call_wall_ns": 1_000_000_000, "billed_duration_ms": 900.0})
    df = pd.DataFrame({"call": [1, 1, 1, 1, 2, 2, 2, 2], "extra": [e1] * 4 + [e2] * 4})
    bill = billing(df)
    assert bill.durations_s.tolist() == [2.0, 0.9] and bill.requests == 2
    assert bill.from_report == 1


def test_targets_that_are_not_functions_have_no_cost() -> None:
    df = pd.DataFrame({"extra": [json.dumps({"wall_ns": 1})]})
    assert run_cost(df, {"kind": "command"}) is None
    assert cost_text(None, {"kind": "command"}) is None
    assert cost_text(None, {"kind": "http"}).startswith("not priced")


@given(st.lists(st.integers(min_value=1, max_value=10**6), min_size=1, max_size=50),
       st.sampled_from([128, 512, 1769, 10240]), st.sampled_from(["arm64", "x86_64"]))
def test_a_record_costs_what_the_core_says(ms: list[int], memory: int, arch: str) -> None:
    df = pd.DataFrame({"extra": [json.dumps({"billed_duration_ms": float(m)}) for m in ms]})
    cost = run_cost(df, {"kind": "lambda", "memory_mb": memory, "architecture": arch})
    direct = faas_cost([m / 1e3 for m in ms], memory_mb=memory, architecture=arch)
    assert cost == direct
