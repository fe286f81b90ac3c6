"""``perfstats report run.csv -o report.html``: one self-contained HTML page per record.

The page holds the run's metadata, the stopping rule's decision trajectory,
the distribution of the judged values with percentile intervals (histogram
and ECDF, modes marked), the percentile table and the failures; for an A-B
record of ``perfstats ab`` (see :mod:`perfstats.adapters.report.ab_sections`) the
suite's settings, the verdict table of every benchmark and its change plot.
Figures are embedded as base64 PNG and the page declares a
Content-Security-Policy that forbids loading anything else, so it opens the
same offline, attached to an e-mail or archived with the record.
"""

from __future__ import annotations

import csv
import html
import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import perfstats
from perfstats.planning.faas_cost import FaasPrices

from ..records.files import write_atomic
from ..records.outputs import check_output
from ..records.record import COLUMNS, read_metadata, read_record, record_inputs
from ..records.series_table import read_series
from .ab_sections import ab_sections, is_ab_header
from .run_sections import run_sections

_STYLE = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
.sub { color: #666; margin-top: 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1.2em; }
dt { font-weight: bold; } dd { margin: 0; word-break: break-word; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td { white-space: nowrap; }
th { background: #f2f2f2; } td:first-child { text-align: left; }
tr.slower td { background: #fbe3d6; } tr.faster td { background: #d9ebf7; }
figure { margin: 1em 0; } img { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
.note { color: #8a4b00; }
"""

# Nothing but the page itself and its embedded images may load.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def write_html_report(
    record: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    prices: FaasPrices | None = None,
) -> Path:
    """Write the HTML report of a record (a run record or an A-B record).

    Parameters
    ----------
    record : str or path-like
        A record CSV written by :func:`perfstats.adapters.run` (``perfstats
        run --record``) or an A-B record of ``perfstats ab --record``
        (:mod:`perfstats.adapters.report.ab_sections`); the metadata JSON beside it
        is read when present.
    out : str or path-like
        The HTML file to write (replaced if it exists).
    prices : FaasPrices, optional
        Price table for the cost of a run on a FaaS target
        (:func:`perfstats.adapters.report.billing.load_prices`; default the
        packaged one).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    ValueError
        When the record is missing or is neither kind of record, the folder
        of ``out`` does not exist, or ``out`` is the record or its metadata
        (also through a link).

    Examples
    --------
    >>> from pathlib import Path
    >>> from perfstats.adapters.report.html import write_html_report
    >>> write_html_report(Path("run.csv"), Path("report.html"))  # doctest: +SKIP
    PosixPath('report.html')
    """
    record, out = Path(record), Path(out)
    check_output(out, record_inputs(record), what="the HTML report")
    page = render_html_report(record, prices=prices)
    if not out.parent.is_dir():
        raise ValueError(f"folder {os.fspath(out.parent)} does not exist")
    # Readers never see half a page, and a symlink at out is replaced, not followed.
    return write_atomic(out, page)


def render_html_report(record: str | os.PathLike[str], *, prices: FaasPrices | None = None) -> str:
    """The report page of ``record`` as a string (see :func:`write_html_report`).

    Parameters
    ----------
    record : str or path-like
        As for :func:`write_html_report`.
    prices : FaasPrices, optional
        As for :func:`write_html_report`.

    Returns
    -------
    str
        The whole self-contained HTML page: the sections of a run or of an
        A-B suite, figures embedded as base64 PNG, and the metadata JSON.

    Raises
    ------
    ValueError
        When the record is missing, cannot be read, or is neither kind of
        record.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from perfstats.adapters import Command, run
    >>> from perfstats.adapters.report import render_html_report
    >>> path = Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = run(Command(["true"], label="noop"), "fixed", rule_options={"n": 5},
    ...         record=path, progress=False)
    >>> page = render_html_report(path)
    >>> page.startswith("<!DOCTYPE html>"), "<title>Run report: noop</title>" in page
    (True, True)
    """
    record = Path(record)
    header = _header(record)
    metadata = read_metadata(record)
    if tuple(header) == COLUMNS:
        title = f"Run report: {(metadata.get('target') or {}).get('name', record.name)}"
        sections = run_sections(
            read_record(record), metadata, prices=prices, series=read_series(record)
        )
    elif is_ab_header(header):
        title = f"A-B report: {record.name}"
        sections = ab_sections(record, prices=prices)
    else:
        raise ValueError(
            f"{os.fspath(record)} is neither a perfstats record (perfstats run --record) nor an "
            f"A-B record (perfstats ab --record); its columns are {', '.join(header) or 'none'}"
        )
    return _page(title, record, metadata, sections)


def _header(record: Path) -> list[str]:
    try:
        with open(record, newline="", encoding="utf-8") as f:
            return next(csv.reader(f), [])
    except FileNotFoundError:
        raise ValueError(f"record {os.fspath(record)} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {os.fspath(record)}: {exc.strerror}") from None


def _page(title: str, record: Path, metadata: Mapping[str, Any], sections: Sequence[str]) -> str:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    raw = html.escape(json.dumps(metadata, indent=2, default=str)) if metadata else "(none)"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{html.escape(title)}</h1>",
            f'<p class="sub">{html.escape(os.fspath(record))}; generated {now} by perfstats '
            f"{html.escape(perfstats.__version__)}</p>",
            *sections,
            '<section id="raw-metadata"><h2>Metadata file</h2><details><summary>'
            "show the metadata JSON</summary>",
            f"<pre>{raw}</pre></details></section>",
            "</body></html>",
        ]
    )


__all__ = ["render_html_report", "write_html_report"]
