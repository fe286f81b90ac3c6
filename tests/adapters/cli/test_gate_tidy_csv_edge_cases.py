"""Tidy CSV inputs of ``perfstats gate`` at their edges: one honest line and exit 2, or read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from perfstats.adapters.cli import main

GOOD = "benchmark,value\n" + "".join(f"a,{v}\n" for v in (1.0, 1.1, 1.2, 1.05, 1.15, 1.08))


def _gate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["gate", *argv, "--seed", "1", "--resamples", "200"])
    got = capsys.readouterr()
    return code, got.out, got.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"benchmark,value\n", "has a header but no rows"),
        (b"benchmark,time\na,1\na,2\n", "neither a perfstats record nor a CSV with columns "
         "benchmark and value (its header: benchmark, time)"),
        (b"value\n1\n2\n", "(its header: value)"),
        (b"benchmark,value\na,1.0\na,abc\n", "line 3: value 'abc' is not a number"),
        (b"benchmark,value\na,1.0\na,NaN\na,1.2\n", "line 3: value 'NaN' is not a finite number"),
        (b"benchmark,value\na,1.0\na,-inf\na,1.2\n", "line 3: value '-inf' is not a finite"),
        (b"benchmark,value\na,1e400\na,1.0\n", "line 2: value '1e400' is not a finite number"),
        (b"benchmark,value\n,1.0\n,1.1\n", "line 2: no benchmark name"),
        (b"benchmark,value,value\na,1,2\n", "the column 'value' appears twice in the header"),
        (b"benchmark,value\na,1.0,extra\n", "line 2 has 3 fields but the header has 2"),
        (b"benchmark,value\r\na\rb,1.0\r\na\rb,1.1\r\n",
         "a carriage return alone ends a line in CSV: is one inside a name? quote the name"),
        (b"benchmark,value\na,1.0\n\xff,2.0\n", "is not a readable CSV"),
        (b"benchmark,value\na,1.0\na,\na,1.2\n", "baseline['a'] must contain only finite numbers"),
    ],
)
def test_bad_tidy_csv_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, message: str
) -> None:
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_bytes(content)
    good.write_text(GOOD)
    code, out, err = _gate(capsys, str(bad), str(good))
    assert code == 2, out
    assert err.startswith("perfstats: error: ") and len(err.strip().splitlines()) == 1, err
    assert message in err, err
    assert "Traceback" not in err


def test_edge_cases_that_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = tmp_path / "good.csv"
    good.write_text(GOOD)
    # A byte-order mark (a spreadsheet's CSV export) is no part of the header.
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    code, out, _ = _gate(capsys, str(bom), str(good), "--format", "json")
    assert code == 0 and json.loads(out)["benchmarks"][0]["n_baseline"] == 6
    # Duplicate rows are runs with equal values (a coarse timer gives them).
    dup = tmp_path / "dup.csv"
    dup.write_text(GOOD + "a,1.0\na,1.0\n")
    code, out, _ = _gate(capsys, str(dup), str(good), "--format", "json")
    assert code == 0 and json.loads(out)["benchmarks"][0]["n_baseline"] == 8
    # A benchmark named NA, None or null is a name, not a missing value;
    # blank lines and CRLF line ends are read.
    named = tmp_path / "named.csv"
    rows = "".join(f"{n},{v}\r\n\r\n" for n in ("NA", "null") for v in (1.0, 1.1, 1.2))
    named.write_text("benchmark,value\r\n" + rows)
    code, out, _ = _gate(capsys, str(named), str(named), "--format", "json")
    data = json.loads(out)
    assert code == 0 and [b["name"] for b in data["benchmarks"]] == ["NA", "null"]
    assert [b["n_baseline"] for b in data["benchmarks"]] == [3, 3]
    # A carriage return inside a quoted name is part of the name, shown escaped.
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('benchmark,value\n"a\rb",1.0\n"a\rb",1.1\n"a\rb",1.2\n', newline="")
    code, out, _ = _gate(capsys, str(quoted), str(quoted))
    assert code == 0 and "a\\x0db" in out and "\r" not in out
