"""What a record shows: the HTML report page, its tables, figures, units and summary numbers.

* :func:`write_html_report`, :func:`render_html_report`
  (:mod:`~perfstats.adapters.report.html`): one self-contained page per
  record, with the sections of a run (:mod:`~perfstats.adapters.report.run_sections`)
  or of an A-B suite (:mod:`~perfstats.adapters.report.ab_sections`);
* escaped HTML fragments (:mod:`~perfstats.adapters.report.tables`),
  embedded figures (:mod:`~perfstats.adapters.report.images`) and readable
  time units (:mod:`~perfstats.adapters.report.units`);
* the numbers a summary shows (:mod:`~perfstats.adapters.report.summary`)
  and their text form for the terminal (:mod:`~perfstats.adapters.report.formatting`).
"""

from .formatting import percent, quantity, table
from .html import render_html_report, write_html_report
from .summary import counts, describe, percentile_rows, top_errors
from .units import display_unit, record_unit

__all__ = [
    "counts",
    "describe",
    "display_unit",
    "percent",
    "percentile_rows",
    "quantity",
    "record_unit",
    "render_html_report",
    "table",
    "top_errors",
    "write_html_report",
]
