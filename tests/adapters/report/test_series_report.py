"""The HTML report of a run over several series: a section listing and plotting every series."""

from __future__ import annotations

import re
from pathlib import Path

from perfstats.adapters import run
from perfstats.adapters.records.record import read_metadata, read_record
from perfstats.adapters.records.series_table import read_series
from perfstats.adapters.report.html import render_html_report
from perfstats.adapters.report.run_sections import run_sections
from support.series_suite import Suite

from perfstats.rules import CIWidth


def test_the_series_section_lists_every_series_and_names_the_capped(tmp_path: Path) -> None:
    path = tmp_path / "suite.csv"
    run(Suite(seed=21), CIWidth(error=0.01), record=path, max_n=40, progress=False)
    sections = run_sections(read_record(path), read_metadata(path), series=read_series(path))
    (section,) = [s for s in sections if 'id="series"' in s]
    table = section[section.index("<table") : section.index("</table>")]
    for name in ("value", "quiet", "mid", "noisy"):
        assert f"<td>{name}</td>" in table
    # The primary's trajectory is the page's own figure, not drawn again here.
    for name in ("quiet", "mid", "noisy"):
        assert f'id="fig-trajectory-{name}"' in section
    assert 'id="fig-trajectory-value"' not in section
    one_row = r"(?:(?!</tr>).)*"
    assert re.search(rf"<td>noisy</td>{one_row}<td>capped</td>", table, re.S)
    assert re.search(rf"<td>quiet</td>{one_row}<td>stopped</td>", table, re.S)
    assert "Reached the cap before their rule stopped: noisy." in section
    assert "median [95% CI]" in table and " ns [" in table
    # The page of the record shows the section too, from the metadata alone.
    page = render_html_report(path)
    assert 'id="series"' in page and "<td>noisy</td>" in page


def test_a_one_number_record_has_no_series_section(tmp_path: Path) -> None:
    import sys

    from perfstats.adapters import Command

    path = tmp_path / "one.csv"
    run(Command([sys.executable, "-c", "pass"], rusage=False), "fixed", rule_options={"n": 5},
        record=path, progress=False)  # fmt: skip
    assert 'id="series"' not in "".join(run_sections(read_record(path), read_metadata(path)))


def test_a_commands_recorded_metrics_are_listed_as_not_judged(tmp_path: Path) -> None:
    import sys

    from perfstats.adapters import Command

    path = tmp_path / "metrics.csv"
    run(Command([sys.executable, "-c", "pass"]), "fixed", rule_options={"n": 5}, record=path,
        progress=False)  # fmt: skip
    sections = run_sections(read_record(path), read_metadata(path), series=read_series(path))
    (section,) = [s for s in sections if 'id="series"' in s]
    assert "1 judged by its own copy of the rule, 3 recorded beside them" in section
    one_row = r"(?:(?!</tr>).)*"
    for name in ("cpu_user", "cpu_system", "max_rss"):
        assert re.search(rf"<td>{name}</td>{one_row}<td>not judged</td>", section, re.S), name
