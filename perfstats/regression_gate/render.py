"""The gate's result as text: a terminal table, Markdown, and JUnit XML.

Each renderer returns a string; writing it (to a terminal, a pull-request
comment, ``$GITHUB_STEP_SUMMARY`` or a JUnit file for the CI system) is the
caller's business.
"""

from __future__ import annotations

import math
import re

from .verdicts import VERDICTS, BenchmarkVerdict, GateResult

__all__ = ["gate_junit", "gate_markdown", "gate_table"]

_SYMBOL = {
    "regression": "REGRESSION",
    "improvement": "improvement",
    "equivalent": "equivalent",
    "inconclusive": "inconclusive",
    "error": "ERROR",
}
_EMOJI = {
    "regression": ":red_circle:",
    "improvement": ":green_circle:",
    "equivalent": ":white_circle:",
    "inconclusive": ":yellow_circle:",
    "error": ":x:",
}


def _pct(ratio: float) -> str:
    return "n/a" if not math.isfinite(ratio) else f"{(ratio - 1.0) * 100:+.2f}%"


def _num(value: float, spec: str) -> str:
    return "n/a" if not math.isfinite(value) else format(value, spec)


def _runs(b: BenchmarkVerdict) -> str:
    return "" if b.runs_needed is None else f"+{b.runs_needed}"


def _rows(result: GateResult) -> list[list[str]]:
    return [
        [
            _visible(b.name),
            f"{b.n_baseline}/{b.n_contender}",
            _pct(b.ratio),
            f"[{_pct(b.ci_low)}, {_pct(b.ci_high)}]",
            _num(b.p_adjusted, ".3g"),
            _num(b.cliffs_delta, "+.2f"),
            _SYMBOL[b.verdict],
            _runs(b),
            b.direction,
            str(b.n_failed),
        ]
        for b in result.benchmarks
    ]


_HEADER = [
    "benchmark", "runs", "change", "CI", "p_adj", "cliff", "verdict", "runs needed", "better",
    "failed",
]  # fmt: skip


def _summary(result: GateResult) -> str:
    # An error is named only when there is one: most suites have none.
    shown = [v for v in VERDICTS if v != "error" or result.counts.get(v, 0)]
    counts = ", ".join(f"{result.counts.get(v, 0)} {v}" for v in shown)
    return (
        f"{len(result.benchmarks)} benchmarks ({result.statistic}, threshold "
        f"{result.threshold * 100:g}%, FDR {result.fdr:g}, {result.level * 100:g}% CI): {counts}. "
        f"Geometric mean {_pct(result.geomean)} "
        f"[{_pct(result.geomean_low)}, {_pct(result.geomean_high)}]."
    )


def _errors(result: GateResult) -> list[str]:
    return [f"error: {_visible(b.name)}: {_visible(b.reason)}"
            for b in result.benchmarks if b.verdict == "error"]  # fmt: skip


def _unmatched(result: GateResult) -> list[str]:
    lines = []
    if result.unmatched_baseline:
        lines.append("Only in baseline: " + ", ".join(map(_visible, result.unmatched_baseline)))
    if result.unmatched_contender:
        lines.append(
            "Only in contender: " + ", ".join(map(_visible, result.unmatched_contender))
        )
    return lines


def gate_table(result: GateResult) -> str:
    """A plain-text table for a terminal, with the suite's summary below it.

    Parameters
    ----------
    result : GateResult
        The suite's judgement, from :func:`perfstats.gate`.

    Returns
    -------
    str
        One aligned row per benchmark (name, runs a side, change, CI, adjusted
        p-value, Cliff's delta, verdict, runs needed, which values are
        better, failed runs) under a header, then the summary line, one line
        per benchmark in error and the names found on one side only; no
        trailing newline.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import gate
    >>> from perfstats.regression_gate.render import gate_table
    >>> rng = np.random.default_rng(0)
    >>> x = rng.lognormal(0, 0.01, 20)
    >>> print(gate_table(gate({"a": x}, {"a": x * 1.1}, rng=0, n_resamples=500)))
    ... # doctest: +NORMALIZE_WHITESPACE
    benchmark runs  change  CI                p_adj   cliff verdict    runs needed better failed
    a         20/20 +10.00% [+9.28%, +10.69%] 6.8e-08 +1.00 REGRESSION             lower  0
    1 benchmarks (median, threshold 2%, FDR 0.05, 95% CI): 1 regression, 0 improvement,
    0 equivalent, 0 inconclusive. Geometric mean +10.00% [+9.30%, +10.71%].
    """
    rows = [_HEADER, *_rows(result)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEADER))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join([*lines, _summary(result), *_errors(result), *_unmatched(result)])


# Characters a name must not carry into XML 1.0 (which forbids C0 controls
# but tab, newline and carriage return, even escaped), a Markdown table row
# (a line break ends the row) or a terminal: shown as visible escapes.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
_BREAKS = re.compile("[\t\n\r\u0085\u2028\u2029]")


def _shown(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _visible(text: str, *, breaks: bool = True) -> str:
    """``text`` with control characters (and line breaks when ``breaks``) as ``\\xNN``."""
    text = _CONTROL.sub(_shown, text)
    return _BREAKS.sub(_shown, text) if breaks else text


def _md_code(text: str, *, in_table: bool = False) -> str:
    """``text`` as one Markdown code span: nothing in it is read as Markdown or HTML.

    The fence is one backtick longer than the longest run inside; line
    breaks are shown as escapes (a break would end a table row or start a
    heading or a checkbox); in a table a pipe is escaped, as GitHub reads
    it before the code span.
    """
    text = _visible(text)
    run = max((len(r) for r in re.findall("`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    code = f"{fence}{pad}{text}{pad}{fence}"
    return code.replace("|", "\\|") if in_table else code


def _md_cell(text: str) -> str:
    return _visible(text).replace("|", "\\|")


def gate_markdown(result: GateResult) -> str:
    """Markdown for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

    Parameters
    ----------
    result : GateResult
        The judgement of :func:`perfstats.gate` to write up for a review.

    Returns
    -------
    str
        A heading with the number of regressions, the summary line, a table
        with one row per benchmark (the columns of :func:`gate_table`, the
        verdict with an emoji), then a bullet per benchmark in error and per
        side with names found there only; names are code spans, so nothing
        in them is read as Markdown. Ends with a newline.

    Examples
    --------
    A suite where one benchmark got 10% faster and the other did not move:

    >>> import numpy as np
    >>> import perfstats
    >>> from perfstats.regression_gate.render import gate_markdown
    >>> rng = np.random.default_rng(1)
    >>> before = {"parse": rng.lognormal(0, 0.01, 20), "emit": rng.lognormal(1, 0.01, 20)}
    >>> after = {"parse": before["parse"] * 0.9, "emit": before["emit"]}
    >>> result = perfstats.gate(before, after, rng=0, n_resamples=500)
    >>> gate_markdown(result).splitlines()[0]
    '### perfstats gate: no regression'
    """
    n_reg = result.counts["regression"]
    title = (
        f"### perfstats gate: {n_reg} regression{'s' if n_reg != 1 else ''}"
        if n_reg
        else "### perfstats gate: no regression"
    )
    out = [title, "", _summary(result), ""]
    out.append("| " + " | ".join(_HEADER) + " |")
    out.append(
        "|" + "|".join(["---", "--:", "--:", "---", "--:", "--:", "---", "--:", "---", "--:"]) + "|"
    )
    for b, row in zip(result.benchmarks, _rows(result), strict=True):
        row[6] = f"{_EMOJI[b.verdict]} {b.verdict}"
        cells = [_md_code(row[0], in_table=True), *(_md_cell(c) for c in row[1:])]
        out.append("| " + " | ".join(cells) + " |")
    errors = [b for b in result.benchmarks if b.verdict == "error"]
    if errors:
        out.append("")
        out.extend(f"- Error: {_md_code(b.name)}: {_md_cell(b.reason)}" for b in errors)
    for side, names in (
        ("baseline", result.unmatched_baseline),
        ("contender", result.unmatched_contender),
    ):
        if names:
            if out[-1]:
                out.append("")
            out.append(f"- Only in {side}: " + ", ".join(_md_code(n) for n in names))
    return "\n".join(out) + "\n"


def gate_junit(result: GateResult, *, strict: bool = False, suite: str = "perfstats gate") -> str:
    """JUnit XML: one test case per benchmark, so that CI systems list them.

    A regression is a ``<failure>``; an inconclusive benchmark is a
    ``<skipped>`` test, or a ``<failure>`` when ``strict``; a benchmark
    with no successful run (verdict ``"error"``) is an ``<error>``;
    improvements and equivalent benchmarks pass. Each case's ``system-out`` carries the
    numbers.

    Parameters
    ----------
    result : GateResult
        The judgement of :func:`perfstats.gate`; each benchmark becomes a test case.
    strict : bool, default False
        Report an inconclusive benchmark as a ``<failure>`` rather than a
        ``<skipped>`` test, as ``result.exit_code(strict=True)`` fails on it.
    suite : str, default "perfstats gate"
        Name of the ``<testsuite>`` and ``classname`` of every ``<testcase>``.

    Returns
    -------
    str
        An XML document (UTF-8 declared): one ``<testsuite>`` with the counts
        of tests, failures, errors and skipped tests, ``<properties>`` with
        the geometric mean and its CI, and one ``<testcase>`` per benchmark;
        ends with a newline.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import gate
    >>> from perfstats.regression_gate.render import gate_junit
    >>> x = np.random.default_rng(0).lognormal(0, 0.01, 20)
    >>> xml = gate_junit(gate({"a": x}, {"a": x * 1.1}, rng=0, n_resamples=500))
    >>> import xml.etree.ElementTree as ET
    >>> ET.fromstring(xml).attrib["failures"]
    '1'
    """
    # saxutils loads urllib; the core imports it only when XML is asked for.
    from xml.sax.saxutils import escape, quoteattr

    cases = []
    failures = skipped = errors = 0
    for b in result.benchmarks:
        detail = (
            f"ratio {b.ratio:.6g} [{b.ci_low:.6g}, {b.ci_high:.6g}] ({result.level * 100:g}% CI), "
            f"p={b.p_value:.3g}, p_adj={b.p_adjusted:.3g}, cliffs_delta={b.cliffs_delta:+.3f}, "
            f"n={b.n_baseline}/{b.n_contender}, threshold {b.threshold * 100:g}%: "
            f"{_visible(b.reason, breaks=False)}"
        )
        if b.runs_needed is not None:
            detail += f"; about {b.runs_needed} more runs a side would likely decide it"
        body = ""
        if b.verdict == "error":
            errors += 1
            detail = f"n={b.n_baseline}/{b.n_contender}: {_visible(b.reason, breaks=False)}"
            body = (
                f"<error message={quoteattr('error: ' + _visible(b.reason))} "
                f"type=\"error\">{escape(detail)}</error>"
            )
        elif b.verdict == "regression" or (b.verdict == "inconclusive" and strict):
            failures += 1
            body = (
                f"<failure message={quoteattr(f'{b.verdict}: {_pct(b.ratio)}')} "
                f"type={quoteattr(b.verdict)}>{escape(detail)}</failure>"
            )
        elif b.verdict == "inconclusive":
            skipped += 1
            body = f"<skipped message={quoteattr('inconclusive: ' + _visible(b.reason))}/>"
        name = quoteattr(_visible(b.name))
        cases.append(
            f"  <testcase classname={quoteattr(_visible(suite))} name={name}>"
            f"{body}<system-out>{escape(detail)}</system-out></testcase>"
        )
    head = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<testsuite name={quoteattr(_visible(suite))} tests=\"{len(result.benchmarks)}\" "
        f'failures="{failures}" errors="{errors}" skipped="{skipped}">'
    )
    props = (
        "  <properties>"
        f"<property name=\"geomean\" value=\"{result.geomean:.6g}\"/>"
        f"<property name=\"geomean_ci\" value=\"{result.geomean_low:.6g} "
        f"{result.geomean_high:.6g}\"/></properties>"
    )
    return "\n".join([head, props, *cases, "</testsuite>"]) + "\n"
