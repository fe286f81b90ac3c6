"""Reading the files perfstats is pointed at: errors name the file and what it was for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from perfstats.adapters.ab.config import load_config
from perfstats.adapters.records.files import parse_toml, read_text_file
from perfstats.adapters.report.billing import load_prices


def test_read_text_file_reads_utf8(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"unit": "µs"}', encoding="utf-8")
    assert read_text_file(path, "price table") == '{"unit": "µs"}'


def test_read_text_file_names_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "prices.json"
    message = rf"^price table {re.escape(str(missing))} does not exist$"
    with pytest.raises(ValueError, match=message):
        read_text_file(missing, "price table")


def test_read_text_file_says_why_a_file_cannot_be_read(tmp_path: Path) -> None:
    folder = tmp_path / "suite.toml"
    folder.mkdir()
    message = rf"^cannot read the config {re.escape(str(folder))}: Is a directory$"
    with pytest.raises(ValueError, match=message):
        read_text_file(folder, "config")


def test_parse_toml_names_the_file_of_invalid_text() -> None:
    assert parse_toml('schedule = "duet"\n[function]\nname = "f"', "s.toml", "config") == {
        "schedule": "duet",
        "function": {"name": "f"},
    }
    with pytest.raises(ValueError, match=r"^price table p\.toml is not valid TOML: "):
        parse_toml("date = ", "p.toml", "price table")


def test_config_and_price_table_share_the_read_errors(tmp_path: Path) -> None:
    folder = tmp_path / "suite.toml"
    folder.mkdir()
    with pytest.raises(ValueError, match=r"cannot read the config .*: Is a directory"):
        load_config(folder)
    table = tmp_path / "prices.toml"
    table.mkdir()
    with pytest.raises(ValueError, match=r"cannot read the price table .*: Is a directory"):
        load_prices(table)
    (tmp_path / "bad.toml").write_text("region = \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"price table .*bad\.toml is not valid TOML"):
        load_prices(tmp_path / "bad.toml")
    with pytest.raises(ValueError, match=r"config .*bad\.toml is not valid TOML"):
        load_config(tmp_path / "bad.toml")
