"""What each column of a record means: the field descriptions its metadata carries.

Like SHARP's logger, which writes a description of every field beside its
measurements, a run record's metadata holds a ``fields`` section with one
sentence per CSV column, so the record can be read without perfstats.

References
----------
Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
Evaluation", manuscript (undated); see the References of :mod:`perfstats.rules.sharp`.
"""

from __future__ import annotations

from collections.abc import Mapping

from .record import MEASURE, RUN, WARMUP, RecordFormat

#: One description per column of :data:`~perfstats.adapters.records.record.RUN`.
RUN_FIELDS: Mapping[str, str] = {
    "run": "Invocation number, 1, 2, ... in the order the invocations were started "
    "(a resumed record continues the numbering).",
    "interval": "The batch of invocations the run belongs to: the rule's run interval "
    "(0 for a fixed warm-up); with --warmup auto, the batch between two warm-up checks.",
    "phase": f"'{WARMUP}' for a run of the warm-up (a fixed count, or the measured warm-up "
    f"of --warmup auto), never given to the stopping rule; '{MEASURE}' for a judged run. "
    "The boolean warm-up flag of the record is phase == 'warmup'.",
    "target": "The target's label (its name in the metadata's target section).",
    "value": "The measurement, in the unit of the unit column; empty for a failed run.",
    "unit": "Unit of value (ns, ms, s, ...).",
    "cold": "true for a cold start, false for a warm one, empty when the target cannot tell.",
    "started_at": "When the invocation started, UTC, ISO 8601 with microseconds.",
    "status": "ok, error (the target failed) or timeout; only ok runs have a value.",
    "error": "Why a run failed (one line); empty for an ok run.",
    "extra": "JSON object of what the target reported besides the value (e.g. wall_ns, "
    "returncode, a Lambda REPORT line's fields); empty when nothing.",
}


def field_descriptions(fmt: RecordFormat = RUN) -> dict[str, str]:
    """The description of every column of ``fmt``, in column order.

    Raises
    ------
    ValueError
        When a column of the format has no description (a new column must
        be described here).

    Examples
    --------
    >>> from perfstats.adapters.records.fields import field_descriptions
    >>> fields = field_descriptions()
    >>> list(fields)[:3], fields["unit"]
    (['run', 'interval', 'phase'], 'Unit of value (ns, ms, s, ...).')
    """
    known = RUN_FIELDS if fmt.marker == RUN.marker else {}
    missing = [c for c in fmt.columns if c not in known]
    if missing:
        raise ValueError(f"no description of the column(s) {', '.join(missing)} of {fmt.kind}")
    return {c: known[c] for c in fmt.columns}


__all__ = ["RUN_FIELDS", "field_descriptions"]
