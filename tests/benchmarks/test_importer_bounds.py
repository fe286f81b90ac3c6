"""Reading a large results file stays within its memory bound; its values read right."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from perfstats.adapters.records.importers import FormatError, parse, read

from benchmarks.importer_bounds import MEMORY_BOUND, peak_extra_memory, write_hyperfine_export


def test_a_large_hyperfine_export_reads_within_four_times_its_size(tmp_path: Path) -> None:
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    write_hyperfine_export(small, 10_000)
    runs = write_hyperfine_export(big, 40_000_000)
    extra, n = peak_extra_memory(big, small)
    size = os.path.getsize(big)
    assert n == runs and size > 35_000_000
    assert extra <= MEMORY_BOUND * size, f"{extra / size:.2f}x the file"


def test_the_array_path_reads_every_value_and_run_index(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    write_hyperfine_export(path, 200_000)
    doc = json.loads(path.read_text())
    res = read(path)
    for r in doc["results"]:
        assert res.values(r["command"]).tolist() == r["times"]
    runs = res.frame.groupby("benchmark", sort=False)["run"].apply(list)
    assert all(v == list(range(len(v))) for v in runs)
    assert set(res.frame["direction"]) == {"lower"} and set(res.frame["unit"]) == {"s"}
    assert res.frame["exit_code"].tolist() == [0] * len(res.frame)


def test_null_exit_code_is_a_failed_run_and_bad_values_are_named() -> None:
    # hyperfine writes null for a run killed by a signal.
    doc = {"results": [{"command": "x", "times": [0.1, 0.2, 0.3], "exit_codes": [0, None, 0]}]}
    res = parse(doc)
    assert res.values("x").tolist() == [0.1, 0.3] and res.failed == {"x": 1}
    for times, message in [
        ([0.1, True], "benchmark 'x' value 1 is true, not a number"),
        ([0.1, "0.2"], "benchmark 'x' value 1 is a str, not a number"),
        ([0.1, 10**400], "benchmark 'x' value 1 is a 401-digit integer"),
        ([0.1, None], "benchmark 'x' value 1 is null"),
    ]:
        with pytest.raises(FormatError, match=message):
            parse({"results": [{"command": "x", "times": times}]})
    with pytest.raises(FormatError, match=r"exit_codes\[0\] is 1.5, not an integer"):
        parse({"results": [{"command": "x", "times": [0.1], "exit_codes": [1.5]}]})
    with pytest.raises(FormatError, match=r"exit_codes\[0\] is 10{30}, not an integer"):
        parse({"results": [{"command": "x", "times": [0.1], "exit_codes": [10**30]}]})
    with pytest.raises(FormatError, match="non-finite value"):
        parse('{"results": [{"command": "x", "times": [0.1, NaN]}]}')
    assert np.array_equal(parse(b'\xef\xbb\xbf {"results": [{"command": "x", "times": [1]}]}')
                          .values("x"), [1.0])  # fmt: skip
