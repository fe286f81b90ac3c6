"""The gate's JUnit XML and Markdown stay well-formed whatever the benchmark names hold.

A name with a C0 control character, a line break, a pipe, backticks or
Markdown of its own (a heading, a checkbox, a link, HTML) must neither make
the XML unparsable nor add a row, a heading or a checkbox to the comment.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.cli import main

from perfstats import gate
from perfstats.regression_gate.render import gate_junit, gate_markdown, gate_table

NASTY = [
    "ctl\x01\x02\x1bname",
    "two\nlines",
    "a|b",
    "tick`s``here",
    "x\n### Injected heading",
    "y\n- [x] approved by bot",
    "<img src=x onerror=alert(1)>",
    "cr\rname\x7f",
]


def _values(seed: int, n: int = 12) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(1.0, 0.01, n)


@pytest.fixture
def result():
    base = {name: _values(i) for i, name in enumerate(NASTY)}
    cont = {name: _values(i) * 1.2 for i, name in enumerate(NASTY[:5])}
    base["common"] = _values(50)
    cont["common"] = _values(51)
    cont["only\n## in contender"] = _values(52)
    return gate(base, cont, rng=0, n_resamples=300)


def test_junit_parses_with_control_characters_in_names(result) -> None:
    xml = gate_junit(result)
    root = ET.fromstring(xml)
    names = [case.attrib["name"] for case in root.iter("testcase")]
    assert len(names) == 6
    assert "ctl\\x01\\x02\\x1bname" in names
    assert "two\\x0alines" in names


def test_markdown_table_has_one_row_per_benchmark(result) -> None:
    md = gate_markdown(result)
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + 6  # the header and one row per judged benchmark
    for row in rows[1:]:
        # Unescaped pipes split cells: every row has as many cells as the header.
        cells = row.replace("\\|", "").strip("|").split("|")
        assert len(cells) == len(rows[0].strip("|").split("|")), row


def test_markdown_names_cannot_inject_headings_or_checkboxes(result) -> None:
    md = gate_markdown(result)
    lines = md.splitlines()
    assert [line for line in lines if line.startswith("#")] == [lines[0]]
    assert not any(line.lstrip().startswith(("- [", "* [")) for line in lines)
    assert "<img" not in md.replace("`<img", "")
    only_base = next(line for line in lines if line.startswith("- Only in baseline:"))
    assert "`` cr\\x0dname\\x7f ``" not in only_base  # no stray padding
    assert "`cr\\x0dname\\x7f`" in only_base
    assert "`<img src=x onerror=alert(1)>`" in only_base
    assert "- Only in contender: `only\\x0a## in contender`" in lines


def test_markdown_code_span_survives_backticks(result) -> None:
    md = gate_markdown(result)
    assert "```tick`s``here```" in md


def test_terminal_table_keeps_one_line_per_benchmark(result) -> None:
    text = gate_table(result)
    assert len(text.splitlines()) == 1 + 6 + 1 + 2


def test_cli_junit_and_markdown_from_files_with_nasty_names(capsys, tmp_path: Path) -> None:
    # A bare carriage return does not survive a CSV file: left out here.
    names = [n for n in NASTY if "\r" not in n]
    rows = [(name, float(v), "ms") for i, name in enumerate(names) for v in _values(i)]
    base = tmp_path / "base.csv"
    cont = tmp_path / "cont.csv"
    pd.DataFrame(rows, columns=["benchmark", "value", "unit"]).to_csv(base, index=False)
    pd.DataFrame(
        [(n, v * 1.2, u) for n, v, u in rows], columns=["benchmark", "value", "unit"]
    ).to_csv(cont, index=False)
    junit = tmp_path / "gate.xml"
    code = main(["gate", str(base), str(cont), "--format", "markdown", "--junit", str(junit),
                 "--resamples", "300", "--seed", "1"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 1, err
    root = ET.fromstring(junit.read_text(encoding="utf-8"))
    assert root.attrib["tests"] == str(len(names)) == root.attrib["failures"]
    rows_md = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(rows_md) == 1 + len(names)
    assert [line for line in out.splitlines() if line.startswith("#")] == [
        out.splitlines()[0]
    ]
