"""The runs-in-order panel and the characterisation of a real run's record, in HTML and text."""

from __future__ import annotations

import base64
import html
import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from perfstats.adapters import Command, read_record, run
from perfstats.adapters.cli import main
from perfstats.adapters.report.html import write_html_report
from PIL import Image
from support.services import HERE

from perfstats import characterize
from perfstats.rules import Fixed

WARMING = str(HERE / "warming.py")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 runs of a real command whose first 20 calls are slow, nothing discarded."""
    folder = tmp_path_factory.mktemp("series")
    target = Command([sys.executable, "-I", "-S", WARMING, str(folder / "state"), "slow=20"],
                     regex=r"value=([0-9.]+)", unit="ms", label="warming")  # fmt: skip
    run(target, Fixed(n=40), warmup=2, record=folder / "run.csv", progress=False, rng=2)
    return folder / "run.csv"


def test_html_report_has_the_run_series_panel_and_summary(record: Path) -> None:
    text = write_html_report(record, record.with_name("r.html")).read_text(encoding="utf-8")
    df = read_record(record)
    values = df.sort_values("run")["value"].to_numpy()
    assert values.size == 42  # the two fixed warm-up runs are in the panel too
    expected = characterize(values)
    assert expected.steady_state == "warm-up" and abs(expected.steady_state_start - 20) <= 3
    summary = re.search(r'<pre id="characterization">(.*?)</pre>', text, re.S)
    assert summary is not None and html.unescape(summary.group(1)) == str(expected)
    image = re.search(r'<img id="fig-run-series"[^>]*width="(\d+)" height="(\d+)" src="([^"]+)"',
                      text)  # fmt: skip
    assert image is not None
    prefix = "data:image/png;base64,"
    assert image.group(3).startswith(prefix)
    png = Image.open(io.BytesIO(base64.b64decode(image.group(3)[len(prefix) :])))
    assert png.size == (int(image.group(1)), int(image.group(2)))
    pixels = np.asarray(png.convert("RGB")).astype(int)
    # The warm-up is shaded in the palette's vermilion (#D55E00 at 12% on white).
    shade = np.array([255, 255, 255]) * 0.88 + np.array([0xD5, 0x5E, 0x00]) * 0.12
    assert (np.abs(pixels - shade).sum(axis=2) < 12).sum() > 1000
    assert "the record marks 2 runs as warm-up" in text
    start = expected.steady_state_start + 1
    assert f"classifies the series as warm-up, steady from the {start}" in text


def test_text_and_json_report_print_the_characterisation(record: Path, capsys) -> None:
    values = read_record(record).sort_values("run")["value"].to_numpy()
    expected = characterize(values)
    assert main(["report", str(record)]) == 0
    out = capsys.readouterr().out
    assert str(expected) in out
    assert main(["report", str(record), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["characterization"]["steady_state"] == "warm-up"
    assert data["characterization"]["steady_state_start"] == expected.steady_state_start
    assert data["characterization_text"] == str(expected)


def test_panel_and_summary_are_in_the_unit_shown() -> None:
    from perfstats.adapters import Measurement
    from perfstats.adapters.records.measurement import utc_now
    from perfstats.adapters.records.record import frame, row_of
    from perfstats.adapters.report.run_sections import run_sections

    rng = np.random.default_rng(4)
    ns = np.concatenate([rng.normal(3.0e6, 5e4, 20), rng.normal(1.5e6, 5e4, 40)])
    rows = [row_of(i + 1, 1, "measure", "t", Measurement(float(v), "ns", None, utc_now()))
            for i, v in enumerate(ns)]  # fmt: skip
    page = "".join(run_sections(frame(rows), {}))
    summary = re.search(r'<pre id="characterization">(.*?)</pre>', page, re.S)
    assert summary is not None
    assert html.unescape(summary.group(1)) == str(characterize(ns / 1e6))
    assert "values in ms" in page and "steady from run 20" in summary.group(1)
