"""HTML fragments of the report page: sections, notes, tables, definition lists (escaped)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any


def table_html(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]], *, name: str
) -> str:
    """An HTML table of ``rows``; ``columns`` are ``(key, header)`` pairs, in order.

    Cells are shown with ``str`` and escaped; a row may carry a ``"_class"``
    key, set as the ``<tr>``'s class (the page colours verdicts with it).

    Examples
    --------
    >>> from perfstats.adapters.report.tables import table_html
    >>> print(table_html([{"a": 1, "b": "<x>"}], [("a", "A"), ("b", "B")], name="t"))
    <table id="table-t"><thead><tr><th>A</th><th>B</th></tr></thead><tbody>
    <tr><td>1</td><td>&lt;x&gt;</td></tr>
    </tbody></table>
    """
    head = "".join(f"<th>{html.escape(title)}</th>" for _, title in columns)
    body = []
    for row in rows:
        cls = row.get("_class")
        attr = f' class="{html.escape(str(cls))}"' if cls else ""
        cells = "".join(f"<td>{html.escape(str(row.get(key, '')))}</td>" for key, _ in columns)
        body.append(f"<tr{attr}>{cells}</tr>")
    return (
        f'<table id="table-{html.escape(name)}"><thead><tr>{head}</tr></thead><tbody>\n'
        + "\n".join(body)
        + "\n</tbody></table>"
    )


def definitions_html(items: Sequence[tuple[str, Any]]) -> str:
    """A definition list of ``(term, value)`` pairs; empty values are left out.

    Examples
    --------
    >>> from perfstats.adapters.report.tables import definitions_html
    >>> definitions_html([("seed", 1), ("note", None)])
    '<dl><dt>seed</dt><dd>1</dd></dl>'
    """
    parts = [
        f"<dt>{html.escape(term)}</dt><dd>{html.escape(str(value))}</dd>"
        for term, value in items
        if value is not None and value != ""
    ]
    return "<dl>" + "".join(parts) + "</dl>"


def section_html(name: str, heading: str, *parts: str) -> str:
    """A ``<section id=name>`` with a heading and the given HTML parts.

    Examples
    --------
    >>> from perfstats.adapters.report.tables import section_html
    >>> section_html("runs", "Runs & more", "<p>x</p>")
    '<section id="runs"><h2>Runs &amp; more</h2><p>x</p></section>'
    """
    return (
        f'<section id="{html.escape(name)}"><h2>{html.escape(heading)}</h2>'
        + "".join(parts)
        + "</section>"
    )


def note_html(text: str) -> str:
    """A highlighted remark (missing data and the like), escaped.

    Examples
    --------
    >>> from perfstats.adapters.report.tables import note_html
    >>> note_html("no <data>")
    '<p class="note">no &lt;data&gt;</p>'
    """
    return f'<p class="note">{html.escape(text)}</p>'


def paragraph_html(text: str) -> str:
    """A paragraph of plain text, escaped.

    Examples
    --------
    >>> from perfstats.adapters.report.tables import paragraph_html
    >>> paragraph_html("a < b")
    '<p>a &lt; b</p>'
    """
    return f"<p>{html.escape(text)}</p>"
