"""The HTML report of a real run and of a real A-B suite, checked in headless Chromium.

The records are made here by the adapter layer itself: a short Python
workload run as a :class:`Command` under SuperFlow, and a two-benchmark duet
suite run by ``perfstats ab``. The page is then opened in Debian's
``chromium`` (installed by ``.ci/install-browser.sh``): it must load without
console messages (its Content-Security-Policy reports anything it blocks
there), every embedded image must decode in the browser at its full size,
and the screenshot must show the figures where the page puts them.
"""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from perfstats.adapters import Command, TargetFailed, read_record, run
from perfstats.adapters.cli import main
from perfstats.adapters.driver.result import judged_values
from perfstats.adapters.records.record import read_metadata
from perfstats.adapters.report.formatting import quantity
from perfstats.adapters.report.html import render_html_report, write_html_report
from PIL import Image
from support import browser
from support.suites import WORKLOADS

import perfstats
from perfstats.rules import SuperFlow

WINDOW = (1200, 5000)
WORKLOAD = (
    "import time\n"
    "t = time.perf_counter_ns()\n"
    "s = 0\n"
    "for i in range(20000):\n"
    "    s += i * i\n"
    "print('elapsed_ns=%d' % (time.perf_counter_ns() - t))\n"
)
AB_WORKLOADS = WORKLOADS
AB_SUITE = f"""\
schedule = "duet"
calls = 6
repeats = 2
concurrency = 2
seed = 5

[target]
argv = ["{{python}}", "-I", "-S", "{AB_WORKLOADS.name}"]
cwd = "{AB_WORKLOADS.parent}"
unit = "ns"

[[benchmarks]]
name = "same"
params = {{kernel = "lcg", size = 1000, clock = "thread"}}
baseline = {{units = 10}}
candidate = {{units = 10}}

[[benchmarks]]
name = "double"
params = {{kernel = "sort", size = 2000, clock = "thread"}}
baseline = {{units = 10}}
candidate = {{units = 20}}
"""


class Page(HTMLParser):
    """Every tag of a page with its attributes, and the text of each table cell."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.tags.append((tag, attributes))
        if tag == "table":
            self._table = attributes.get("id", "")
            self.rows[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.rows[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.rows[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def images(self) -> dict[str, dict[str, str]]:
        return {a["id"]: a for t, a in self.tags if t == "img"}

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if "id" in a}


def decoded(src: str) -> Image.Image:
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    return Image.open(io.BytesIO(base64.b64decode(src[len(prefix) :], validate=True)))


def chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return browser.chromium(url, profile, *extra, window=WINDOW)


def console_messages(stderr: str) -> list[str]:
    # Chromium logs the page's console (CSP violations, script errors) as
    # INFO:CONSOLE lines; everything else on stderr is about the sandbox.
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


# -- records -------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("run")
    target = Command(
        [sys.executable, "-I", "-S", "-c", WORKLOAD],
        regex=r"elapsed_ns=(\d+)",
        unit="ns",
        label="sum of squares",
    )
    result = run(
        target,
        SuperFlow(error=0.05, rng=1),
        max_n=120,
        record=folder / "run.csv",
        progress=False,
        rng=1,
    )
    assert result.stopped_by in ("rule", "max_n")
    return folder / "run.csv"


@pytest.fixture(scope="module")
def run_report(run_record: Path) -> Path:
    return write_html_report(run_record, run_record.with_name("report.html"))


@pytest.fixture(scope="module")
def ab_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ab")
    config = folder / "suite.toml"
    config.write_text(AB_SUITE)
    assert main(["ab", str(config), "--record", str(folder / "suite.csv")]) == 0
    return folder / "suite.csv"


# -- the page of a run -------------------------------------------------------------


def test_run_report_is_one_self_contained_page(run_report: Path) -> None:
    page = Page(run_report.read_text(encoding="utf-8"))
    assert {"metadata", "trajectory", "distribution", "percentiles", "failures"} <= page.ids()
    csp = [a for t, a in page.tags if t == "meta" and a.get("http-equiv")]
    assert csp and "default-src 'none'" in csp[0]["content"]
    # Nothing is loaded from anywhere: every src is an embedded image, no links.
    sources = [a.get("src", "") for _, a in page.tags if "src" in a]
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    assert not [a for _, a in page.tags if "href" in a]
    images = page.images()
    assert set(images) == {"fig-trajectory", "fig-run-series", "fig-histogram", "fig-ecdf"}
    for attrs in images.values():
        png = decoded(attrs["src"])
        assert png.size == (int(attrs["width"]), int(attrs["height"]))
        pixels = np.asarray(png.convert("L"))
        assert 0.03 < (pixels < 200).mean() < 0.6


def test_run_report_shows_the_records_numbers(run_record: Path, run_report: Path) -> None:
    values = judged_values(read_record(run_record))
    metadata = read_metadata(run_record)
    text = run_report.read_text(encoding="utf-8")
    page = Page(text)
    header, *rows = page.rows["table-percentiles"]
    assert header[0] == "percentile"
    intervals = perfstats.percentile_ci(values, [0.25, 0.5, 0.75, 0.9, 0.99], method="order")
    for row, iv in zip(rows, intervals, strict=True):
        assert row[0] == f"P{100 * iv.q:g}"
        assert row[1] == quantity(iv.estimate, "ns")
        assert row[2] == (quantity(iv.low, "ns") if np.isfinite(iv.low) else "unbounded")
        assert row[3] == (quantity(iv.high, "ns") if np.isfinite(iv.high) else "unbounded")
        assert row[5] == str(values.size)
    session = metadata["sessions"][-1]
    assert session["decision"]["reason"] in text.replace("&#x27;", "'")
    first_stop = next(d["n"] for d in session["history"] if d["stop"])
    assert f"it stopped at n = {first_stop}." in page.images()["fig-trajectory"]["alt"]
    assert f"{values.size} successful runs" in text


def _probe_copy(report: Path) -> Path:
    """The page with a script that writes each image's decoded size and box into the DOM.

    The policy that forbids scripts is taken out of this copy only; the
    layout is the page's own.
    """
    text = report.read_text(encoding="utf-8")
    script = (
        "<script>window.addEventListener('load', () => {"
        "for (const img of document.images) {"
        "const r = img.getBoundingClientRect();"
        "img.dataset.natural = img.naturalWidth + 'x' + img.naturalHeight;"
        "img.dataset.box = [r.left + scrollX, r.top + scrollY, r.width, r.height]"
        ".map(Math.round).join(',');}"
        "document.body.dataset.probed = 'yes';});</script>"
    )
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)
    probe = report.with_name("probe-" + report.name)
    probe.write_text(text.replace("</body>", script + "</body>"), encoding="utf-8")
    return probe


def test_chromium_loads_the_run_report_and_shows_its_figures(
    run_report: Path, tmp_path: Path
) -> None:
    shot = tmp_path / "shot.png"
    done = chromium(run_report.as_uri(), tmp_path / "profile-a", f"--screenshot={shot}")
    assert console_messages(done.stderr) == []
    dom = chromium(
        _probe_copy(run_report).as_uri(),
        tmp_path / "profile-b",
        "--virtual-time-budget=5000",
        "--dump-dom",
    ).stdout
    page = Page(dom)
    assert ("body", {"data-probed": "yes"}) in page.tags
    images = page.images()
    assert set(images) == {"fig-trajectory", "fig-run-series", "fig-histogram", "fig-ecdf"}
    screenshot = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert screenshot.shape[:2] == (WINDOW[1], WINDOW[0])
    for name, attrs in images.items():
        # Decoded by the browser at the size the PNG was made.
        assert attrs["data-natural"] == f"{attrs['width']}x{attrs['height']}", name
        left, top, width, height = (int(v) for v in attrs["data-box"].split(","))
        assert (width, height) == (int(attrs["width"]), int(attrs["height"])), name
        region = screenshot[top : top + height, left : left + width]
        assert region.shape[:2] == (height, width), f"{name} is below the screenshot"
        ink = (region.sum(axis=2) < 600).mean()
        assert 0.03 < ink < 0.6, (name, ink)
        # The figure's colours: the first interval or series is drawn in the
        # palette's blue (#0072B2).
        blue = (abs(region - np.array([0, 114, 178])).sum(axis=2) < 60).sum()
        assert blue > 50, name
    # Outside the figures the page is mostly white paper.
    mask = np.ones(screenshot.shape[:2], dtype=bool)
    for attrs in images.values():
        left, top, width, height = (int(v) for v in attrs["data-box"].split(","))
        mask[top : top + height, left : left + width] = False
    assert (screenshot[mask].sum(axis=1) > 720).mean() > 0.9


def test_console_check_catches_a_blocked_load(run_report: Path, tmp_path: Path) -> None:
    # A control for the check above: an external image must be reported.
    bad = tmp_path / "bad.html"
    text = run_report.read_text(encoding="utf-8")
    bad.write_text(text.replace("</body>", '<img src="https://example.com/x.png"></body>'))
    done = chromium(bad.as_uri(), tmp_path / "profile", f"--screenshot={tmp_path / 'bad.png'}")
    assert any("Content Security Policy" in m for m in console_messages(done.stderr))


# -- the page of an A-B suite ------------------------------------------------------


@pytest.mark.timing
def test_ab_report_shows_the_suites_verdicts(ab_record: Path, tmp_path: Path, capsys: Any) -> None:
    report = write_html_report(ab_record, tmp_path / "ab.html")
    page = Page(report.read_text(encoding="utf-8"))
    assert {"metadata", "verdicts", "failures"} <= page.ids()
    capsys.readouterr()
    assert main(["ab", "--from-record", str(ab_record), "--json"]) == 0
    expected = {b["benchmark"]: b for b in json.loads(capsys.readouterr().out)["benchmarks"]}
    header, *rows = page.rows["table-verdicts"]
    assert header[0] == "benchmark" and header[-1] == "verdict"
    assert {row[0]: row[-1] for row in rows} == {k: v["verdict"] for k, v in expected.items()}
    for row in rows:
        b = expected[row[0]]
        assert row[3] == f"{b['estimate']:+.2%}"
        assert row[4] == f"[{b['low']:+.2%}, {b['high']:+.2%}]"
    assert expected["double"]["verdict"] == "slower"
    (figure,) = page.images().values()
    assert figure["id"] == "fig-change-table"
    assert decoded(figure["src"]).size == (int(figure["width"]), int(figure["height"]))
    done = chromium(report.as_uri(), tmp_path / "profile", f"--screenshot={tmp_path / 'ab.png'}")
    assert console_messages(done.stderr) == []


# -- records without results, and bad input ------------------------------------------


def test_report_of_a_run_that_only_failed(tmp_path: Path) -> None:
    record = tmp_path / "failed.csv"
    target = Command([sys.executable, "-c", "import sys; sys.exit('no luck')"], label="broken")
    with pytest.raises(TargetFailed):
        run(target, "fixed", rule_options={"n": 5}, record=record, max_failures=2, progress=False)
    page = Page(write_html_report(record, tmp_path / "failed.html").read_text(encoding="utf-8"))
    assert page.images() == {}
    _, *rows = page.rows["table-failures"]
    assert rows[0][0] == "2" and rows[0][1] == "error" and "no luck" in rows[0][2]
    assert {"distribution", "percentiles", "trajectory"} <= page.ids()


def test_write_html_report_refuses_what_it_cannot_read(tmp_path: Path, run_record: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        write_html_report(tmp_path / "missing.csv", tmp_path / "x.html")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="neither a perfstats record"):
        write_html_report(other, tmp_path / "x.html")
    with pytest.raises(ValueError, match="does not exist"):
        write_html_report(run_record, tmp_path / "no" / "such" / "x.html")
    assert not (tmp_path / "x.html").exists()


def test_render_takes_the_record_as_a_string_path(run_record: Path) -> None:
    page = render_html_report(str(run_record))
    assert page.startswith("<!DOCTYPE html>")
    assert f"<title>Run report: {read_metadata(run_record)['target']['name']}" in page
