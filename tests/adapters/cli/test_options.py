"""key=value options of the command line parsed into Python values."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from perfstats.adapters.cli.options import parse_options, parse_value

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)

class TestOptions:
    def test_literals_and_words(self) -> None:
        assert parse_options(["a=1", "b=0.5", "c=true", "d=(0.25, 0.75)", "e=order"]) == {
            "a": 1,
            "b": 0.5,
            "c": True,
            "d": (0.25, 0.75),
            "e": "order",
        }
        assert parse_value('{"A": "1"}') == {"A": "1"}
        assert parse_value("none") is None
        assert parse_options(["block-kind=moving"]) == {"block_kind": "moving"}

    @pytest.mark.parametrize("item", ["novalue", "=3", "two words=1"])
    def test_malformed(self, item: str) -> None:
        with pytest.raises(ValueError, match="key=value"):
            parse_options([item])

    def test_duplicates(self) -> None:
        with pytest.raises(ValueError, match="twice"):
            parse_options(["a=1", "a=2"])
