"""``perfstats run --stop-when`` and the summary of a run over several series."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from perfstats.adapters import run
from perfstats.adapters.cli.run import show_run
from support.cli import perfstats
from support.series_suite import Suite

from perfstats.rules import CIWidth


def test_the_summary_lists_every_series_and_names_the_capped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = run(Suite(seed=11), CIWidth(error=0.01), max_n=40, progress=False)
    assert "noisy" in result.capped
    show_run(result, as_json=False)
    text = capsys.readouterr().out
    assert "series (stop when all)" in text
    for name in ("value", "quiet", "mid", "noisy"):
        assert f"decision trajectory of {name}" in text
    capped_line = next(ln for ln in text.splitlines() if ln.startswith("reached the cap"))
    assert "noisy" in capped_line and "quiet" not in capped_line
    show_run(result, as_json=True)
    data = json.loads(capsys.readouterr().out)
    assert data["stop_when"] == "all"
    assert set(data["series"]) == {"value", "quiet", "mid", "noisy"}
    assert data["series"]["noisy"]["capped"] is True
    assert data["series"]["quiet"]["decision"]["stop"] is True


def test_stop_when_on_the_command_line(tmp_path: Path) -> None:
    common = ["run", "--no-progress", "--rule", "fixed", "-r", "n=3", "--json"]
    done = perfstats([*common, "--stop-when", "value", "--", "true"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["stop_when"] == "value" and data["decision"]["n"] == 3
    bad = perfstats([*common, "--stop-when", "nosuch", "--", "true"], cwd=tmp_path)
    assert bad.returncode != 0
    assert "stop_when names the series 'nosuch'" in bad.stderr


def test_the_metric_option_defaults_to_the_primary() -> None:
    from perfstats.adapters.cli.parser import Parser, metric_argument

    p = Parser(prog="perfstats report")
    metric_argument(p)
    assert p.parse_args([]).metric == "value"
    assert p.parse_args(["--metric", "parse"]).metric == "parse"
