"""The documentation site builds without a warning, links soundly and renders.

One Sphinx build (warnings are errors, the notebooks executed by MyST-NB in
quick mode) into a temporary folder serves every test here: no relative link
or anchor of any page may point at nothing, each notebook page shows the
figures its execution drew, and headless Chromium renders the front page with
the theme's scripts run. The pages' Python examples run as doctests, as the
README's do. Controls show that the link check and the validation of the
classes' methods find what they look for.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
from PIL import Image
from support import browser

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
WINDOW = (1280, 900)
# Attributes that hold a link to follow, by tag.
LINKS = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src"}

pytestmark = pytest.mark.slow


class Page(HTMLParser):
    """The ids and the outgoing links of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v for k, v in attrs if v is not None}
        for key in ("id", "name"):
            if key in values and (key == "id" or tag == "a"):
                self.ids.add(values[key])
        attr = LINKS.get(tag)
        if attr and attr in values:
            self.links.append((tag, values[attr]))


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken_links(site: Path) -> list[str]:
    """Every relative link or anchor of the site that points at nothing."""
    # _static/ holds the theme's files, among them Jinja templates named .html.
    pages = {
        path.resolve(): parse(path)
        for path in site.rglob("*.html")
        if "_static" not in path.relative_to(site).parts
    }
    problems = []
    for path, page in pages.items():
        for tag, link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue  # external (https:, mailto:, data:) or protocol-relative
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site.resolve())}: <{tag}> {link}"
            if not target.is_file():
                problems.append(f"{where}: no file {target}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where}: no anchor #{parts.fragment}")
    return problems


def build_site(work: Path, perfstats_data: Path) -> Path:
    """The site built, warnings as errors, into ``work/html``."""
    out = work / "html"
    env = {**os.environ, "PERFSTATS_DATA": str(perfstats_data), "PERFSTATS_QUICK": "1"}
    argv = [
        sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
        "-d", str(work / "doctrees"),
        "-D", f"nb_execution_cache_path={work / 'jupyter_cache'}",
        str(DOCS), str(out),
    ]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stderr[-6000:]}"
    return out


def test_site_builds_links_soundly_and_renders(perfstats_data: Path, tmp_path: Path) -> None:
    # One test, so that one pytest-xdist worker builds the site once (the
    # build writes the API stubs into docs/api/generated).
    site = build_site(tmp_path, perfstats_data)
    check_sections(site)
    assert broken_links(site) == []
    check_notebook_figures(site)
    check_front_page_in_chromium(site, tmp_path)


def check_sections(site: Path) -> None:
    expected = [
        "index.html",
        "getting-started.html",
        "guide/index.html",
        "examples.html",
        "api/index.html",
        "reproductions.html",
        "changelog.html",
    ]
    guide = [
        "precision", "stopping-rules", "comparison", "characterization",
        "system-regression", "ci-gate", "planning", "targets", "ab-suites",
    ]  # fmt: skip
    expected += [f"guide/{name}.html" for name in guide]
    subpackages = [
        "precision", "characterization", "comparison", "rules", "replay",
        "system", "regression_gate", "planning", "plots", "adapters",
    ]  # fmt: skip
    expected += [f"api/{name}.html" for name in subpackages]
    missing = [name for name in expected if not (site / name).is_file()]
    assert missing == []
    # The reference is generated from the docstrings: a page per public name.
    for name in (
        "perfstats.precision.percentile_ci",
        "perfstats.system.queueing.OpenNetwork",
        "perfstats.replay.scoring.score_distribution",
        "perfstats.adapters.run",
    ):
        page = site / "api" / "generated" / f"{name}.html"
        assert page.is_file(), name
        assert "Parameters" in page.read_text(encoding="utf-8"), name
    # A class's page documents its methods: a harness's loop is built on
    # Monitor.add, a rule is called through the check it inherits, and a
    # model simulates through a method of its private base.
    for cls, methods in (
        ("perfstats.rules.monitor.Monitor", ("add",)),
        ("perfstats.rules.SuperFlow", ("check",)),
        ("perfstats.system.queueing.OpenNetwork", ("solve", "simulate", "with_demand_factors")),
    ):
        page = parse(site / "api" / "generated" / f"{cls}.html")
        for method in methods:
            assert any(i.endswith(f".{method}") for i in page.ids), (cls, method)
    # Section headers are read as headers, not as parameters named "Returns".
    text = (site / "api" / "generated" / "perfstats.precision.percentile_ci.html").read_text(
        encoding="utf-8"
    )
    assert "<strong>Returns</strong>" not in text


def test_link_check_finds_a_broken_link_and_anchor(tmp_path: Path) -> None:
    # A control for the link check, on two small pages.
    copy = tmp_path / "site"
    (copy / "sub").mkdir(parents=True)
    (copy / "index.html").write_text(
        '<h1 id="top">x</h1><a href="sub/c.html#there">ok</a><a href="sub/">ok</a>',
        encoding="utf-8",
    )
    (copy / "sub" / "c.html").write_text('<p id="there"></p><a href="../b.html">ok</a>', "utf-8")
    (copy / "sub" / "index.html").write_text('<a href="../index.html#top">ok</a>', "utf-8")
    (copy / "b.html").write_text(
        '<p id="here"></p><a href="index.html#nowhere">x</a><img src="gone.png">'
        '<a href="#here">ok</a><a href="https://example.com/x">external</a>',
        encoding="utf-8",
    )
    problems = broken_links(copy)
    assert len(problems) == 2, problems
    assert all(p.startswith("b.html") for p in problems), problems
    assert any("no anchor #nowhere" in p for p in problems)
    assert any("gone.png" in p for p in problems)


def load_member_docstrings() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "member_docstrings", DOCS / "_ext" / "member_docstrings.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Gauge:
    """A class whose members document themselves well and badly."""

    def reading(self, unit: str) -> float:
        """The reading in ``unit``."""
        return 0.0

    def scaled(self, factor: float) -> float:
        """The reading times ``factor``.

        Parameters
        ----------
        factor : float
            Scale of the reading.

        Returns
        -------
        float
            The scaled reading.
        """
        return 0.0 * factor


def test_member_check_finds_an_undocumented_parameter_and_return() -> None:
    # A control for the validation of methods, which the build applies to
    # every class page: a method without its sections is found, one with them is not.
    members = load_member_docstrings()
    checks = {"PR01", "RT01"}
    assert members.member_problems(Gauge.scaled, checks) == []
    problems = members.member_problems(Gauge.reading, checks)
    assert [p[:4] for p in problems] == ["PR01", "RT01"], problems
    assert "unit" in problems[0]
    assert members.member_problems(Gauge.reading, {"RT01"}) == [problems[1]]


def check_notebook_figures(site: Path) -> None:
    pages = sorted((site / "notebooks").glob("*.html"))
    assert [p.stem for p in pages] == sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
    for page in pages:
        images = [link for tag, link in parse(page).links if tag == "img"]
        assert len(images) >= 3, f"{page.name} shows {len(images)} figures"
        for src in images:
            with Image.open(page.parent / src) as picture:
                assert picture.size[0] > 200 and picture.size[1] > 150, src


PAGES_WITH_EXAMPLES = sorted(p for p in DOCS.rglob("*.md") if ">>> " in p.read_text("utf-8"))


def test_there_are_examples_to_run() -> None:
    names = {p.relative_to(DOCS).as_posix() for p in PAGES_WITH_EXAMPLES}
    assert {"getting-started.md", "guide/precision.md", "guide/system-regression.md"} <= names


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_page_examples_pass_as_doctests(
    page: Path, perfstats_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The examples read the traces as the README does: ../shared/data from the
    # repository, here pointed at PERFSTATS_DATA.
    text = page.read_text(encoding="utf-8").replace("../shared/data", str(perfstats_data))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, page.name, str(page), 0)
    assert test.examples, page
    monkeypatch.chdir(REPO)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)


def chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return browser.chromium(url, profile, *extra, window=WINDOW)


def check_front_page_in_chromium(site: Path, tmp_path: Path) -> None:
    index = (site / "index.html").as_uri()
    shot = tmp_path / "index.png"
    chromium(index, tmp_path / "profile-a", f"--screenshot={shot}")
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0])
    # Text on paper: mostly light, with dark ink in a fair share of the page.
    ink = (pixels.sum(axis=2) < 300).mean()
    assert 0.005 < ink < 0.5, ink
    done = chromium(index, tmp_path / "profile-b", "--virtual-time-budget=5000", "--dump-dom")
    dom = done.stdout
    assert "<title>perfstats" in dom
    assert "Trustworthy performance measurements" in dom
    # The theme's script ran: it sets the colour mode on the root element.
    assert 'data-theme="light"' in dom or 'data-theme="dark"' in dom
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert [line for line in console if "Uncaught" in line] == []
