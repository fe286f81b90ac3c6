"""Docstrings and comments of the library say what and why, never when, where or how fast.

Every docstring (read with :mod:`ast`: the string statements of modules,
classes and functions, including attribute docstrings) and every comment
(read with :mod:`tokenize`) of ``perfstats/`` and ``adapters/`` is scanned
for what belongs in a benchmark's results file or a commit message instead:

* dates: ISO-like (``2026-11-25``, ``2025-01``) and with a month's name
  (``25 November 2026``, ``Nov 25``, ``November 2026``);
* the word "measured": the library's prose says what a thing is and why, not
  that someone measured it; the driver's counted runs are "measurement
  runs";
* timing figures: a number followed by a time unit (``25 ms``, ``1.2 s``,
  ``about 40 µs``, ``12-19 us``, ``3 seconds``);
* issue, stop and item numbers (``issue 14``, ``stop 35``, ``item 11``,
  ``#38``);
* states of the machine a figure came from (``on this VM``, ``the hog``,
  ``fast phase``, ``a quiet machine``, ``the shared 2-core machine``, ``load
  average 19``; the kernel's load average as a quantity is no machine
  state).

Each entry of a numpydoc References section names the work's title in
quotes (besides authors, venue and year), or is a web page's address: a short
entry ("Wen et al., SuperFlow, 2023") may point to a full one elsewhere, but
still says which paper it is.

What is not prose is not scanned: doctest examples (their source and
expected output, found by :class:`doctest.DocTestParser`), inline literals
(````...````) and reST literal blocks (the indented lines after ``::``), which
quote data, formats and API values (a price table's date, a REPORT line).

Decisions about timing figures:

* A figure that is an API fact is allowed: a billing granularity, a time
  limit, a maximum, a timeout or a default ("billing granularity (1 ms)",
  "Lambda's maximum run time is 900 s"). It is recognised by one of those
  words shortly before the figure or right after it.
* A unit of a rate (``ns/op``) is a format, not a duration.
* A bare ``s`` counts only after a space (``1.2 s``), so ``1s`` in "PID 1s"
  is no figure; the longer units count with or without a space.
* The prose of a numpydoc Examples section states the example's input
  values ("45 calls of 2 s"), so dates and timing figures are allowed there;
  the other checks still apply to it.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = (REPO / "perfstats", REPO / "adapters")

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|"
    r"Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_NUMBER = r"(?<![\w.])~?\d+(?:[.,]\d+)*(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)*)?"
_UNIT = (
    r"(?:\s*(?:µs|μs|us|ns|ms|msec|secs?|seconds?|milliseconds?|microseconds?|"
    r"nanoseconds?)|\s+s)"
)
_API_BEFORE = re.compile(
    r"(?:granularity|limit|maximum|minimum|timeout|default)\b[^.;]{0,20}$", re.IGNORECASE
)
_API_AFTER = re.compile(r"^\s*(?:granularity|limit|maximum|minimum|timeout)\b", re.IGNORECASE)

PATTERNS: dict[str, re.Pattern[str]] = {
    "date": re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?\b"),
    "month date": re.compile(
        rf"\b{_MONTH}\.?\s+(?:\d{{1,2}}\b|(?:19|20)\d\d\b)|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b"
    ),
    "measured": re.compile(r"\bmeasured\b", re.IGNORECASE),
    "timing": re.compile(rf"{_NUMBER}{_UNIT}(?![\w/-])"),
    "issue number": re.compile(
        r"\b(?:issues?|stops?|items?)\s+#?\d+\b|(?<![\w&#])#\d+\b", re.IGNORECASE
    ),
    "machine state": re.compile(
        r"\b(?:on|of|in) this (?:VM|box|laptop)\b|\bthe hog\b|\b(?:fast|slow) phase\b|"
        r"\b(?:quiet|idle|loaded|shared|noisy)(?: \d+-core)? machine\b|"
        r"\b\d+-core machine\b|\bload average (?:of )?\d",
        re.IGNORECASE,
    ),
}

# Checks that do not apply to the prose of an Examples section (example values).
EXAMPLE_VALUES = ("date", "month date", "timing")


@dataclass(frozen=True)
class Line:
    """One line of prose: where it is, whether a docstring's Examples section holds it."""

    path: Path
    lineno: int
    kind: str
    text: str
    in_examples: bool = False


def _blank_literals(text: str) -> str:
    """``text`` with its inline literals replaced by spaces (columns kept)."""
    return re.sub(r"``.*?``", lambda m: " " * len(m.group()), text)


def _doctest_lines(doc: str) -> set[int]:
    """0-based line numbers of ``doc`` that belong to doctest examples."""
    lines: set[int] = set()
    for example in doctest.DocTestParser().get_examples(doc):
        n = example.source.count("\n") + example.want.count("\n")
        lines.update(range(example.lineno, example.lineno + max(n, 1)))
    return lines


def docstring_prose(doc: str) -> Iterator[tuple[int, str, bool]]:
    """``(0-based line, text, in Examples)`` for each prose line of a docstring."""
    skip = _doctest_lines(doc)
    lines = doc.splitlines()
    literal_indent: int | None = None
    in_examples = False
    for i, raw in enumerate(lines):
        indent = len(raw) - len(raw.lstrip())
        stripped = raw.strip()
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"} and stripped:
            in_examples = stripped == "Examples"
        if stripped.endswith("::"):
            literal_indent = indent
        if i in skip:
            continue
        yield i, _blank_literals(raw), in_examples


def prose(path: Path) -> Iterator[Line]:
    """Every docstring line (outside examples and literals) and comment of ``path``."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                for i, text, in_examples in docstring_prose(stmt.value.value):
                    yield Line(path, stmt.lineno + i, "docstring", text, in_examples)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield Line(path, token.start[0], "comment", _blank_literals(token.string[1:]))


def problems(text: str, *, in_examples: bool = False) -> list[str]:
    """Names of the checks ``text`` (one line of prose) fails."""
    found = []
    for name, pattern in PATTERNS.items():
        if in_examples and name in EXAMPLE_VALUES:
            continue
        for match in pattern.finditer(text):
            if name == "timing" and (
                _API_BEFORE.search(text[: match.start()]) or _API_AFTER.match(text[match.end() :])
            ):
                continue
            found.append(name)
            break
    return found


def references(doc: str) -> list[str]:
    """The entries of a docstring's References section, each on one line."""
    lines = inspect.cleandoc(doc).splitlines()
    entries: list[list[str]] = []
    inside = False
    for i, raw in enumerate(lines):
        header = i + 1 < len(lines) and raw.strip() and set(lines[i + 1].strip()) == {"-"}
        if header:
            inside = raw.strip() == "References"
            entries.append([])
            continue
        if not inside or set(raw.strip()) == {"-"}:
            continue
        if not raw.strip() or raw.startswith(".. ["):
            entries.append([])
        if raw.strip():
            entries[-1].append(raw.strip())
    return [" ".join(e) for e in entries if e]


def _complete(entry: str) -> bool:
    return bool(re.search(r'"[^"]{8,}"', entry)) or "https://" in entry


def _files() -> list[Path]:
    return sorted(p for root in ROOTS for p in root.rglob("*.py") if "__pycache__" not in p.parts)


FLAGGED = [
    ("Chosen 2026-11-25 on the speed runs.", "date"),
    ("The tables of 2025-01 were smaller.", "date"),
    ("Re-run on 25 November 2026.", "month date"),
    ("Since Nov 25 the tables are used.", "month date"),
    ("As of November 2026.", "month date"),
    ("Measured with one thread.", "measured"),
    ("counting that measured three times the draws", "measured"),
    ("a resample takes 25 ms at n = 1000", "timing"),
    ("1.2 s per replay", "timing"),
    ("about 40 µs a call", "timing"),
    ("about 0.2 us of a 0.4 us resample", "timing"),
    ("(51-60 us there)", "timing"),
    ("scipy.stats costs ~0.7 s to import", "timing"),
    ("about 6 ns per point", "timing"),
    ("wall 4.7-8 s on two cores", "timing"),
    ("1.1-1.9 CPU seconds, 3 seconds in all", "timing"),
    ("see issue 14", "issue number"),
    ("the bracket of stop 35", "issue number"),
    ("as item 11 asked", "issue number"),
    ("fixed in #38", "issue number"),
    ("the tables win on this VM", "machine state"),
    ("while the hog ran", "machine state"),
    ("in the fast phase", "machine state"),
    ("about 15 us on a quiet machine", "machine state"),
    ("on the shared 2-core machine", "machine state"),
    ("at load average 19", "machine state"),
]

ALLOWED = [
    "Billed durations are rounded up to the billing granularity (1 ms by default).",
    "The function's time limit (1 to 900 s).",
    "Seconds to wait for a response (Lambda's maximum run time is 900 s).",
    "A default of 30 s per call.",
    "BenchmarkName-8 1000000 1234 ns/op",
    "busybox-like PID 1s ignore SIGTERM",
    "Silverman's bandwidth 0.9 min(sd, IQR/1.349) n^(-1/5)",
    "The measurement runs, after the warm-up.",
    "a and b were run together on one instance",
    "Step 6 of Liao et al.'s pipeline",
    "Mayer et al. may 3 times differ",
    "64-bit nanosecond times",
    "the noqa code E501 # 1 comment",
    "CPU model, cores, memory, OS and kernel of this machine.",
    "idle OpenMP workers spinning on a busy machine cost more than the fit",
    "1e-160 (their squares overflow or underflow)",
    "unlike the one-minute load average, which lags",
]


@pytest.mark.parametrize(("text", "check"), FLAGGED)
def test_pattern_flags(text: str, check: str) -> None:
    assert check in problems(text)


@pytest.mark.parametrize("text", ALLOWED)
def test_pattern_allows(text: str) -> None:
    assert problems(text) == []


def test_prose_skips_examples_and_literals() -> None:
    doc = (
        "Summary ``2025-01-31``.\n"
        "\n"
        "A format::\n"
        "\n"
        "    Duration: 12.34 ms\n"
        "\n"
        "Back to prose, measured.\n"
        "\n"
        "Examples\n"
        "--------\n"
        "45 calls of 2 s:\n"
        "\n"
        ">>> {'date': '2025-01-31', 'measured': 3}\n"
        "{'date': '2025-01-31', 'measured': 3}\n"
    )
    found = [(i, problems(text, in_examples=ex)) for i, text, ex in docstring_prose(doc)]
    assert [(i, p) for i, p in found if p] == [(6, ["measured"])]
    assert {i for i, _ in found} == {0, 1, 2, 6, 7, 8, 9, 10, 11}


def test_scan_reads_docstrings_and_comments(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text(
        '"""Module, measured."""\n'
        "\n"
        "def f() -> int:\n"
        '    """Function, 2026-11-25."""\n'
        "    x = 1  # about 40 us\n"
        "    return x\n"
        "\n"
        "class C:\n"
        '    """Class, see issue 14."""\n'
        "\n"
        "    y = 2\n"
        '    """Attribute, on this VM."""\n',
        encoding="utf-8",
    )
    hits = {(line.lineno, line.kind, tuple(problems(line.text))) for line in prose(module)}
    assert {h for h in hits if h[2]} == {
        (1, "docstring", ("measured",)),
        (4, "docstring", ("date",)),
        (5, "comment", ("timing",)),
        (9, "docstring", ("issue number",)),
        (12, "docstring", ("machine state",)),
    }


def test_scan_covers_the_library() -> None:
    files = _files()
    assert len(files) > 100
    assert any(p.parts[-2:] == ("planning", "faas_cost.py") for p in files)
    assert any(p.parts[-2:] == ("driver", "stop_loop.py") for p in files)


def test_references_check() -> None:
    doc = """Summary.

    References
    ----------
    .. [Wen2023] Wen et al., SuperFlow, 2023; see the References of
       :mod:`perfstats.rules.superflow`.
    .. [He2021] He et al., "Performance Testing for Cloud Computing with Dependent
       Data Bootstrapping", ASE 2021.

    AWS Lambda pricing, https://aws.amazon.com/lambda/pricing/.

    Examples
    --------
    Wen et al., SuperFlow, 2023 (not a References entry).
    """
    entries = references(doc)
    assert len(entries) == 3
    assert [_complete(e) for e in entries] == [False, True, True]


def test_references_name_their_titles() -> None:
    short = []
    for path in _files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                short += [
                    f"{path.relative_to(REPO)}: {entry}"
                    for entry in references(doc or "")
                    if not _complete(entry)
                ]
    assert not short, "References entries without a title:\n" + "\n".join(short)


def test_docstrings_and_comments_are_clean() -> None:
    hits = [
        f"{line.path.relative_to(REPO)}:{line.lineno}: {line.kind}: {', '.join(found)}: "
        f"{line.text.strip()}"
        for path in _files()
        for line in prose(path)
        if (found := problems(line.text, in_examples=line.in_examples))
    ]
    assert not hits, "dates, timings, issue numbers or machine states in prose:\n" + "\n".join(hits)
