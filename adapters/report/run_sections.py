"""The sections of the HTML report of a run record (``perfstats run --record``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfstats import plots

from ..driver.result import judged_values
from .formatting import percent, quantity
from .images import figure_html
from .summary import counts, percentile_rows, top_errors
from .tables import (
    definitions_html,
    note_html,
    paragraph_html,
    section_html,
    table_html,
)
from .units import display_unit, record_unit

QUANTILES = (0.25, 0.5, 0.75, 0.9, 0.99)
LEVEL = 0.95
#: Values spanning more than this factor are drawn on a logarithmic axis.
LOG_SPAN = 3.0


def _rule_text(rule: Any) -> str:
    if not isinstance(rule, Mapping):
        return "?"
    config = rule.get("config") or {}
    options = ", ".join(f"{k}={v}" for k, v in config.items())
    return f"{rule.get('name', '?')}({options})"


def run_sections(measurements: pd.DataFrame, metadata: Mapping[str, Any]) -> list[str]:
    """The page sections of a run record: run, trajectory, distribution, percentiles, failures.

    Parameters
    ----------
    measurements : pandas.DataFrame
        The record (:func:`perfstats.adapters.read_record`).
    metadata : mapping
        Its metadata (empty when there is none).

    Returns
    -------
    list of str
        HTML sections, in page order.
    """
    values = judged_values(measurements)
    unit = record_unit(measurements)
    sessions = list(metadata.get("sessions", []))
    last: Mapping[str, Any] = sessions[-1] if sessions else {}
    return [
        _run_metadata(measurements, metadata, sessions, last),
        _trajectory(last),
        _distribution(values, unit),
        _percentiles(values, unit),
        failures_section(measurements),
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
    missing = "" if metadata else note_html("No metadata file beside the record.")
    return section_html("metadata", "Run", missing, definitions_html(items))


def _trajectory(last: Mapping[str, Any]) -> str:
    history = last.get("history") or []
    if not history:
        return section_html(
            "trajectory",
            "Decision trajectory",
            note_html("The metadata holds no decision history."),
        )
    fig = plots.trajectory(history)
    stops = [d for d in history if d.get("stop")]
    where = f"it stopped at n = {stops[0]['n']}" if stops else "it never said stop"
    caption = (
        f"The rule's criterion at each of its {len(history)} judgements, against the number of "
        f"runs, with its threshold; {where}."
    )
    image = figure_html(fig, name="trajectory", caption=caption)
    return section_html("trajectory", "Decision trajectory", image)


def _distribution(values: np.ndarray, unit: str) -> str:
    if values.size < 2:
        return section_html(
            "distribution", "Distribution", note_html("Fewer than two successful measurements.")
        )
    scale, shown = display_unit(values, unit)
    x = values / scale
    modes = plots.find_modes(x)
    where = ", ".join(f"{v:.4g}" for v in modes.locations)
    # A long tail (outliers, cold starts) would squeeze the bulk of the runs
    # into a few bars on a linear axis.
    log = bool(x.min() > 0 and x.max() / x.min() > LOG_SPAN)
    shown_q = (0.25, 0.5, 0.75, 0.9)
    hist = plots.histogram(x, q=shown_q, level=LEVEL, modes=modes, unit=shown, log=log)
    cdf = plots.ecdf(x, q=shown_q, level=LEVEL, unit=shown, log=log)
    text = (
        f"{values.size} successful runs. {modes.count} mode{'s' if modes.multimodal else ''} "
        f"({where} {shown}; peaks of a kernel density estimate, see perfstats.plots.find_modes)."
    )
    return section_html(
        "distribution",
        "Distribution",
        paragraph_html(text),
        figure_html(hist, name="histogram",
                    caption=f"Histogram with the {LEVEL:.0%} order-statistic CIs of P25, P50, "
                    "P75 and P90 (shaded) and the modes (triangles)."),
        figure_html(cdf, name="ecdf",
                    caption="Empirical CDF; each bar is a percentile's confidence interval."),
    )  # fmt: skip


def _percentiles(values: np.ndarray, unit: str) -> str:
    if values.size == 0:
        return section_html("percentiles", "Percentiles", note_html("No successful measurements."))
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
    return section_html("percentiles", "Percentiles", paragraph_html(explain),
                    table_html(rows, columns, name="percentiles"))  # fmt: skip


def failures_section(measurements: pd.DataFrame) -> str:
    """The most frequent failures of a record (run or A-B), or a line saying there were none."""
    errors = top_errors(measurements, limit=10)
    if not errors:
        return section_html("failures", "Failures", "<p>No failed or timed-out runs.</p>")
    columns = [("count", "count"), ("status", "status"), ("error", "error")]
    return section_html("failures", "Failures", table_html(errors, columns, name="failures"))


__all__ = ["failures_section", "run_sections"]
