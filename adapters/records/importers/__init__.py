"""Importers of other benchmark tools' results, and exporters back to them.

Each format module parses what is already read (text, bytes or a decoded
JSON object) into :class:`Results`, tidy per-run values; :func:`read` reads
a file and sniffs its format; :func:`write` exports to pyperf JSON or the
Bencher Metric Format.
"""

from __future__ import annotations

from .read import parse, read
from .results import FormatError, Results
from .sniff import FORMATS, sniff
from .write import to_bmf, to_pyperf, write

__all__ = [
    "FORMATS",
    "FormatError",
    "Results",
    "parse",
    "read",
    "sniff",
    "to_bmf",
    "to_pyperf",
    "write",
]
