"""The sections of the HTML report of a run record (``perfstats run --record``)."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfstats import plots
from perfstats.characterization import characterize
from perfstats.planning.faas_cost import FaasPrices

from ..driver.result import judged_values
from ..records.record import WARMUP
from ..records.series_table import series_values
from .billing import cost_text, run_cost
from .formatting import percent, quantity
from .images import figure_html
from .summary import counts, percentile_rows, run_characterization, top_errors
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
#: Size in inches of the runs-in-order panel.
SERIES_SIZE = (7.0, 3.0)


def _rule_text(rule: Any) -> str:
    if not isinstance(rule, Mapping):
        return "?"
    config = rule.get("config") or {}
    options = ", ".join(f"{k}={v}" for k, v in config.items())
    return f"{rule.get('name', '?')}({options})"


def run_sections(
    measurements: pd.DataFrame,
    metadata: Mapping[str, Any],
    *,
    prices: FaasPrices | None = None,
    series: pd.DataFrame | None = None,
) -> list[str]:
    """The sections of a run record: run, trajectory, runs, distribution, percentiles, failures.

    A record with named series (format ``perfstats-record/1.1``) gets a
    section of every series after the trajectory (:func:`series_section`).

    Parameters
    ----------
    measurements : pandas.DataFrame
        The record (:func:`perfstats.adapters.read_record`).
    metadata : mapping
        Its metadata (empty when there is none).
    prices : FaasPrices, optional
        Price table for a FaaS target's cost (default the packaged one).
    series : pandas.DataFrame, optional
        The record's series table
        (:func:`perfstats.adapters.records.series_table.read_series`), for
        each series' median and its interval.

    Returns
    -------
    list of str
        HTML sections, in page order.
    """
    values = judged_values(measurements)
    unit = record_unit(measurements)
    sessions = list(metadata.get("sessions", []))
    last: Mapping[str, Any] = sessions[-1] if sessions else {}
    several = [series_section(measurements, metadata, series)] if metadata.get("series") else []
    return [
        _run_metadata(measurements, metadata, sessions, last, prices),
        _trajectory(last),
        *several,
        _run_series(measurements, unit),
        _distribution(values, unit),
        _percentiles(values, unit),
        failures_section(measurements),
    ]


def _run_metadata(
    measurements: pd.DataFrame,
    metadata: Mapping[str, Any],
    sessions: Sequence[Mapping[str, Any]],
    last: Mapping[str, Any],
    prices: FaasPrices | None = None,
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
        ("warm-up", _warmup_text(last)),
        ("git", _git_text(last.get("git"))),
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
        ("cost", cost_text(run_cost(measurements, target, prices=prices), target)),
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


def _warmup_text(last: Mapping[str, Any]) -> str | None:
    """The run's warm-up setting, and what an automatic one found."""
    setting = (last.get("settings") or {}).get("warmup")
    found = last.get("warmup")
    if isinstance(found, Mapping):
        if found.get("start") is None:
            return "auto: no steady state found"
        capped = " (capped)" if found.get("capped") else ""
        return f"auto: {found['start']} runs, judged from run {found.get('start_run')}{capped}"
    return None if not setting else f"{setting} runs"


def _git_text(git: Any) -> str | None:
    if not isinstance(git, Mapping) or not git.get("commit"):
        return None
    dirty = " with uncommitted changes" if git.get("dirty") else ""
    return f"{git['commit']}{dirty} ({git.get('work_tree') or git.get('directory')})"


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


#: Series with a trajectory figure of their own; more are listed in the table only.
MAX_SERIES_FIGURES = 12


def series_section(
    measurements: pd.DataFrame,
    metadata: Mapping[str, Any],
    series: pd.DataFrame | None = None,
) -> str:
    """Every series of a run: its description, decision and runs, the capped named, trajectories.

    Parameters
    ----------
    measurements : pandas.DataFrame
        The run CSV.
    metadata : mapping
        Its metadata; its ``series`` section describes each series and the
        last session's ``series`` holds each one's decision and history.
    series : pandas.DataFrame, optional
        The series table, for each series' median and its 95% interval.

    Returns
    -------
    str
        An HTML section (``id="series"``).

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.report.run_sections import series_section
    >>> meta = {"series": {"parse": {"unit": "ns", "direction": "lower", "source": "suite"}}}
    >>> "parse" in series_section(frame([]), meta)
    True
    """
    described: Mapping[str, Any] = metadata.get("series") or {}
    sessions = list(metadata.get("sessions", []))
    last: Mapping[str, Any] = sessions[-1] if sessions else {}
    judged: Mapping[str, Any] = last.get("series") or {}
    stop_when = (last.get("settings") or {}).get("stop_when", "all")
    primary = {"unit": record_unit(measurements), "direction": "lower", "source": "target"}
    names = [str(metadata.get("primary", "value")), *described]
    rows = []
    for name in names:
        about = described.get(name) or primary
        state = judged.get(name) or {}
        decision = state.get("decision") or {}
        unit = str(about.get("unit", ""))
        row = {
            "series": name,
            "unit": unit,
            "direction": about.get("direction", ""),
            "source": about.get("source", ""),
            "n": state.get("n", ""),
            "state": _state(state),
            "reason": decision.get("reason", "not judged"),
            "median": "",
        }
        if series is not None:
            values = series_values(measurements, series, name)
            if values.size:
                (r,) = percentile_rows(values, quantiles=(0.5,), level=LEVEL)
                low = quantity(r["low"], unit) if math.isfinite(r["low"]) else "unbounded"
                high = quantity(r["high"], unit) if math.isfinite(r["high"]) else "unbounded"
                row["median"] = f"{quantity(r['estimate'], unit)} [{low}, {high}]"
        rows.append(row)
    columns = [
        ("series", "series"),
        ("unit", "unit"),
        ("direction", "better"),
        ("source", "source"),
        ("n", "runs judged"),
        ("state", "state"),
        ("median", f"median [{LEVEL:.0%} CI]"),
        ("reason", "decision"),
    ]
    capped = [name for name in names if (judged.get(name) or {}).get("capped")]
    ruled = [name for name in names if judged.get(name)]
    kept = len(names) - len(ruled)
    parts = [
        paragraph_html(
            f"{len(names)} series, {len(ruled)} judged by its own copy of the rule"
            + (f", {kept} recorded beside them" if kept else "")
            + f"; the run stopped when {_stop_when_text(stop_when)}."
        ),
        table_html(rows, columns, name="series"),
    ]
    if capped:
        parts.append(note_html(f"Reached the cap before their rule stopped: {', '.join(capped)}."))
    # The primary's trajectory is the page's own trajectory figure.
    drawn = [n for n in names[1:] if (judged.get(n) or {}).get("history")]
    for name in drawn[:MAX_SERIES_FIGURES]:
        history = judged[name]["history"]
        stops = [d for d in history if d.get("stop")]
        where = f"stopped at n = {stops[0]['n']}" if stops else "never said stop"
        parts.append(
            figure_html(
                plots.trajectory(history),
                name=f"trajectory-{_slug(name)}",
                caption=f"Series {name}: the rule's criterion at each of its {len(history)} "
                f"judgements; {where}.",
            )
        )
    return section_html("series", "Series", *parts)


def _state(state: Mapping[str, Any]) -> str:
    if state.get("abandoned"):
        return "abandoned"
    if state.get("capped"):
        return "capped"
    decision = state.get("decision") or {}
    if not decision:
        return ""
    return "stopped" if decision.get("stop") else "going"


def _stop_when_text(stop_when: str) -> str:
    if stop_when == "all":
        return "all had stopped"
    if stop_when == "any":
        return "any had stopped"
    return f"series {stop_when} had stopped"


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def _run_series(measurements: pd.DataFrame, unit: str) -> str:
    """Every successful run's value in run order, warm-up included, with its characterisation."""
    heading = "Runs in order"
    values, characterization = run_characterization(measurements)
    if characterization is None:
        return section_html(
            "runs",
            heading,
            note_html(f"{values.size} successful runs; the characterisation needs at least 5."),
        )
    from matplotlib.figure import Figure

    scale, shown = display_unit(values, unit)
    if scale != 1.0:
        # In the unit shown, so the segment means sit on the axis of the runs;
        # the steady state and change points do not depend on the unit.
        characterization = characterize(values / scale)
    # Smaller than run_series' own default, so the page's figures share one width.
    fig = Figure(figsize=SERIES_SIZE, layout="constrained")
    plots.run_series(
        values / scale,
        characterization=characterization,
        unit=shown,
        log=bool(values.min() > 0 and values.max() / values.min() > LOG_SPAN),
        ax=fig.add_subplot(),
    )
    recorded = int((measurements["phase"] == WARMUP).sum())
    found = characterization.steady_state
    start = characterization.steady_state_start
    text = (
        f"All {values.size} successful runs in run order, warm-up included (the record marks "
        f"{recorded} run{'s' if recorded != 1 else ''} as warm-up). perfstats.characterize "
        f"classifies the series as {found}"
        + (f", steady from the {_ordinal(start + 1)} successful run" if start else "")
        + " (PELT change points, penalty 15 ln n; segments within 2% of the final one are "
        "steady)."
    )
    caption = (
        "Each run's value against its index among the successful runs; the detected warm-up "
        "is shaded, change points are dashed lines, segment means blue steps."
    )
    return section_html(
        "runs",
        heading,
        paragraph_html(text),
        figure_html(fig, name="run-series", caption=caption),
        paragraph_html(
            f"The characterisation (values in {shown}):" if shown else "The characterisation:"
        ),
        f'<pre id="characterization">{html.escape(str(characterization))}</pre>',
    )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


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
