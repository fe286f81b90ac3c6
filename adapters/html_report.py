"""``perfstats report run.csv -o report.html``: one self-contained HTML page per record.

The page holds the run's metadata, the stopping rule's decision trajectory,
the distribution of the judged values with percentile intervals (histogram
and ECDF, modes marked), the percentile table and the failures; for an A-B
record (see :mod:`perfstats.adapters.report_ab` for its columns) the verdict
table of every benchmark instead. Figures are embedded as base64 PNG and the
page declares a Content-Security-Policy that forbids loading anything else,
so it opens the same offline, attached to an e-mail or archived with the
record.
"""

from __future__ import annotations

import csv
import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import perfstats
from perfstats import plots

from .formatting import percent, quantity
from .record import COLUMNS, read_metadata, read_record
from .report_ab import is_ab_header, read_ab, verdicts
from .report_images import figure_html
from .report_tables import definitions_html, table_html
from .report_units import display_unit
from .result import judged_values
from .summary import counts, percentile_rows, top_errors

QUANTILES = (0.25, 0.5, 0.75, 0.9, 0.99)
LEVEL = 0.95
#: Values spanning more than this factor are drawn on a logarithmic axis.
LOG_SPAN = 3.0

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
th { background: #f2f2f2; } td:first-child { text-align: left; }
tr.slower td { background: #fbe3d6; } tr.faster td { background: #d9ebf7; }
figure { margin: 1em 0; } img { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
.note { color: #8a4b00; }
"""

# Nothing but the page itself and its embedded images may load.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def write_html_report(record: Path, out: Path) -> Path:
    """Write the HTML report of a record (a run record or an A-B record).

    Parameters
    ----------
    record : pathlib.Path
        A record CSV written by :func:`perfstats.adapters.run` (its metadata
        JSON beside it is read when present), or an A-B record with
        ``benchmark``, ``version`` and ``value`` columns
        (:mod:`perfstats.adapters.report_ab`).
    out : pathlib.Path
        The HTML file to write (replaced if it exists).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    ValueError
        When the record is missing or is neither kind of record, or the
        folder of ``out`` does not exist.

    Examples
    --------
    >>> from pathlib import Path
    >>> from perfstats.adapters.html_report import write_html_report
    >>> write_html_report(Path("run.csv"), Path("report.html"))  # doctest: +SKIP
    PosixPath('report.html')
    """
    record, out = Path(record), Path(out)
    page = render_html_report(record)
    if not out.parent.is_dir():
        raise ValueError(f"folder {os.fspath(out.parent)} does not exist")
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    # Readers never see half a page: the finished file replaces the old one.
    os.replace(tmp, out)
    return out


def render_html_report(record: Path) -> str:
    """The report page of ``record`` as a string (see :func:`write_html_report`)."""
    header = _header(record)
    metadata = read_metadata(record)
    if tuple(header) == COLUMNS:
        title = f"Run report: {(metadata.get('target') or {}).get('name', record.name)}"
        sections = _run_sections(record, read_record(record), metadata)
    elif is_ab_header(header):
        title = f"A-B report: {record.name}"
        sections = _ab_sections(read_ab(record), metadata)
    else:
        raise ValueError(
            f"{os.fspath(record)} is neither a perfstats record (columns {', '.join(COLUMNS)}) "
            f"nor an A-B record (benchmark, version, value); found {', '.join(header) or 'none'}"
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


def _section(name: str, heading: str, *parts: str) -> str:
    return f'<section id="{name}"><h2>{html.escape(heading)}</h2>' + "".join(parts) + "</section>"


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


# -- a run record ------------------------------------------------------------


def _rule_text(rule: Any) -> str:
    if not isinstance(rule, Mapping):
        return "?"
    config = rule.get("config") or {}
    options = ", ".join(f"{k}={v}" for k, v in config.items())
    return f"{rule.get('name', '?')}({options})"


def _run_sections(
    record: Path, measurements: pd.DataFrame, metadata: Mapping[str, Any]
) -> list[str]:
    values = judged_values(measurements)
    units = sorted(set(measurements.loc[measurements["status"] == "ok", "unit"]))
    unit = units[0] if len(units) == 1 else ""
    sessions = list(metadata.get("sessions", []))
    last: Mapping[str, Any] = sessions[-1] if sessions else {}
    return [
        _run_metadata(measurements, metadata, sessions, last),
        _trajectory(last),
        _distribution(values, unit),
        _percentiles(values, unit),
        _failures(measurements),
    ]


def _run_metadata(
    measurements: pd.DataFrame,
    metadata: Mapping[str, Any],
    sessions: Sequence[Mapping[str, Any]],
    last: Mapping[str, Any],
) -> str:
    target = metadata.get("target") or {}
    machine = last.get("machine") or {}
    software = last.get("software") or {}
    decision = last.get("decision") or {}
    c = counts(measurements)
    argv = target.get("argv")
    items: list[tuple[str, Any]] = [
        ("target", f"{target.get('name', '?')} ({target.get('kind', '?')})" if target else None),
        ("command", " ".join(map(str, argv)) if isinstance(argv, list) else None),
        ("rule", _rule_text(metadata.get("rule")) if metadata.get("rule") else None),
        ("seed", metadata.get("seed")),
        ("stopped by", last.get("stopped_by")),
        ("final decision", decision.get("reason")),
        (
            "runs",
            f"{c['measured']} measured ({c['ok']} ok, {c['error']} error, {c['timeout']} "
            f"timeout), {c['warmup']} warm-up, {c['intervals']} intervals, {c['cold']} cold, "
            f"{c['warm']} warm",
        ),
        (
            "time",
            f"{sessions[0].get('started_at')} .. {last.get('ended_at')} "
            f"({len(sessions)} session{'s' if len(sessions) != 1 else ''})"
            if sessions
            else None,
        ),
        (
            "machine",
            f"{machine.get('cpu_model', '?')}, {machine.get('cores_logical', '?')} cores, "
            f"{machine.get('os', '?')}, kernel {machine.get('kernel', '?')}"
            if machine
            else None,
        ),
        (
            "software",
            f"Python {software.get('python', '?')}, perfstats "
            f"{(software.get('packages') or {}).get('perfstats', '?')}"
            if software
            else None,
        ),
    ]
    missing = "" if metadata else _note("No metadata file beside the record.")
    return _section("metadata", "Run", missing, definitions_html(items))


def _trajectory(last: Mapping[str, Any]) -> str:
    history = last.get("history") or []
    if not history:
        return _section(
            "trajectory", "Decision trajectory", _note("The metadata holds no decision history.")
        )
    fig = plots.trajectory(history)
    stops = [d for d in history if d.get("stop")]
    where = f"it stopped at n = {stops[0]['n']}" if stops else "it never said stop"
    caption = (
        f"The rule's criterion at each of its {len(history)} judgements, against the number of "
        f"runs, with its threshold; {where}."
    )
    image = figure_html(fig, name="trajectory", caption=caption)
    return _section("trajectory", "Decision trajectory", image)


def _distribution(values: np.ndarray, unit: str) -> str:
    if values.size < 2:
        return _section(
            "distribution", "Distribution", _note("Fewer than two successful measurements.")
        )
    scale, shown = display_unit(values, unit)
    x = values / scale
    modes = plots.find_modes(x)
    where = ", ".join(f"{v:.4g}" for v in modes.locations)
    # A long tail (outliers, cold starts) would squeeze the bulk of the runs
    # into a few bars on a linear axis.
    log = bool(x.min() > 0 and x.max() / x.min() > LOG_SPAN)
    shown_q = (0.25, 0.5, 0.75, 0.9)
    hist = plots.histogram(x, quantiles=shown_q, level=LEVEL, modes=modes, unit=shown, log=log)
    cdf = plots.ecdf(x, quantiles=shown_q, level=LEVEL, unit=shown, log=log)
    text = (
        f"{values.size} successful runs. {modes.count} mode{'s' if modes.multimodal else ''} "
        f"({where} {shown}; peaks of a kernel density estimate, see perfstats.plots.find_modes)."
    )
    return _section(
        "distribution",
        "Distribution",
        f"<p>{html.escape(text)}</p>",
        figure_html(hist, name="histogram",
                    caption=f"Histogram with the {LEVEL:.0%} order-statistic CIs of P25, P50, "
                    "P75 and P90 (shaded) and the modes (triangles)."),
        figure_html(cdf, name="ecdf",
                    caption="Empirical CDF; each bar is a percentile's confidence interval."),
    )  # fmt: skip


def _percentiles(values: np.ndarray, unit: str) -> str:
    if values.size == 0:
        return _section("percentiles", "Percentiles", _note("No successful measurements."))
    rows = []
    for r in percentile_rows(values, quantiles=QUANTILES, level=LEVEL):
        rows.append(
            {
                "percentile": r["percentile"],
                "estimate": quantity(r["estimate"], unit),
                "low": quantity(r["low"], unit) if math.isfinite(r["low"]) else "unbounded",
                "high": quantity(r["high"], unit) if math.isfinite(r["high"]) else "unbounded",
                "rel": percent(r["rel_error"]) if math.isfinite(r["rel_error"]) else "unbounded",
                "n": r["n"],
            }
        )
    columns = [
        ("percentile", "percentile"),
        ("estimate", "estimate"),
        ("low", f"{LEVEL:.0%} CI low"),
        ("high", f"{LEVEL:.0%} CI high"),
        ("rel", "relative error"),
        ("n", "n"),
    ]
    explain = (
        "Exact distribution-free order-statistic intervals (perfstats.percentile_ci, "
        "method='order'); the relative error is the larger distance from the estimate to a "
        "bound, over the estimate; 'unbounded' means too few runs for that percentile."
    )
    return _section("percentiles", "Percentiles", f"<p>{html.escape(explain)}</p>",
                    table_html(rows, columns, name="percentiles"))  # fmt: skip


def _failures(measurements: pd.DataFrame) -> str:
    errors = top_errors(measurements, limit=10)
    if not errors:
        return _section("failures", "Failures", "<p>No failed or timed-out runs.</p>")
    columns = [("count", "count"), ("status", "status"), ("error", "error")]
    return _section("failures", "Failures", table_html(errors, columns, name="failures"))


# -- an A-B record -----------------------------------------------------------


def _ab_sections(frame: pd.DataFrame, metadata: Mapping[str, Any]) -> list[str]:
    found = verdicts(frame, metadata)
    units = sorted({str(u) for u in frame.get("unit", pd.Series(dtype=str)) if str(u)})
    unit = units[0] if len(units) == 1 else ""
    base = found[0].baseline if found else "?"
    level = float(metadata.get("level", 0.99))
    failed = int((~frame["judged"]).sum())
    items: list[tuple[str, Any]] = [
        ("benchmarks", frame["benchmark"].nunique()),
        ("versions", ", ".join(dict.fromkeys(frame["version"].astype(str)))),
        ("baseline", base),
        ("measurements", f"{len(frame)} ({int(frame['judged'].sum())} judged, {failed} not)"),
        ("pairs", "duet pairs resampled jointly" if "pair" in frame.columns else "unpaired"),
        ("statistic", metadata.get("statistic", "median")),
        ("level", f"{level:.0%}"),
    ]
    rows = []
    judged = {}
    for v in found:
        name = (
            v.benchmark
            if len({x.candidate for x in found}) == 1
            else f"{v.benchmark} ({v.candidate})"
        )
        change = v.change
        if change is not None:
            judged[name] = change
        rows.append(
            {
                "benchmark": name,
                "n": f"{v.n_baseline} / {v.n_candidate}",
                "base": quantity(v.statistic_baseline, unit)
                if math.isfinite(v.statistic_baseline)
                else "",
                "cand": quantity(v.statistic_candidate, unit)
                if math.isfinite(v.statistic_candidate)
                else "",
                "change": f"{change.estimate:+.2%}" if change else "",
                "ci": f"[{change.low:+.2%}, {change.high:+.2%}]" if change else "",
                "verdict": v.verdict,
                "_class": v.verdict if v.verdict in ("slower", "faster") else "",
            }
        )
    columns = [
        ("benchmark", "benchmark"),
        ("n", "n baseline / candidate"),
        ("base", "baseline"),
        ("cand", "candidate"),
        ("change", "change"),
        ("ci", f"{level:.0%} CI"),
        ("verdict", "verdict"),
    ]
    explain = (
        "Bootstrap CI of the relative change of the statistic, candidate / baseline - 1 "
        "(perfstats.relative_change); a change when the CI excludes 0 (ElastiBench)."
    )
    parts = [f"<p>{html.escape(explain)}</p>", table_html(rows, columns, name="verdicts")]
    if judged:
        fig = plots.change_table(judged)
        caption = "Each benchmark's change with its CI, coloured by verdict."
        parts.append(figure_html(fig, name="change-table", caption=caption))
    return [
        _section("metadata", "Experiment", definitions_html(items)),
        _section("verdicts", "Verdicts", *parts),
    ]


__all__ = ["render_html_report", "write_html_report"]
