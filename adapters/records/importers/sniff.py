"""Which tool wrote this? Format detection from the content, and helpful errors when none fits."""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from . import asv, criterion, gbench, gotest, hyperfine, jmh, pyperf, pytest_benchmark
from .results import FormatError

#: Format key -> module, in the order sniffing tries them (most specific first).
MODULES: dict[str, Any] = {
    "jmh": jmh,
    "hyperfine": hyperfine,
    "pytest-benchmark": pytest_benchmark,
    "gbench": gbench,
    "pyperf": pyperf,
    "asv": asv,
    "criterion": criterion,
    "gotest": gotest,
}
FORMATS = tuple(MODULES)

# Keys that betray a format even in a damaged file.
MARKERS: dict[str, Callable[[str], bool]] = {
    "jmh": lambda t: '"jmhVersion"' in t or '"primaryMetric"' in t,
    "hyperfine": lambda t: '"results"' in t and '"command"' in t,
    "pytest-benchmark": lambda t: '"machine_info"' in t,
    "gbench": lambda t: '"context"' in t and ('"time_unit"' in t or '"library_build_type"' in t
                                             or '"num_cpus"' in t),
    "pyperf": lambda t: '"benchmarks"' in t and '"runs"' in t,
    "asv": lambda t: '"result_columns"' in t or '"commit_hash"' in t,
    "criterion": lambda t: '"iters"' in t and '"times"' in t,
    "gotest": lambda t: re.search(r"^Benchmark\S+\s+\d+", t, re.M) is not None,
}


def name_of(fmt: str) -> str:
    """The tool's name for a format key."""
    return str(MODULES[fmt].NAME)


def guess(text: str) -> str | None:
    """The format a (possibly damaged) text looks like, by its keys."""
    for fmt, marker in MARKERS.items():
        if marker(text):
            return fmt
    return None


def unclosed(text: str) -> int:
    """Brackets left open at the end of ``text`` (outside strings): > 0 for a cut-off file."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return depth


#: The most a gzip-compressed file may grow to when it is decompressed.
MAX_DECOMPRESSED = 1 << 30
GZIP_MAGIC = b"\x1f\x8b"


def gunzip(data: bytes, source: str | None = None) -> bytes:
    """``data`` decompressed when it is gzip (pyperf writes ``-o x.json.gz`` so), else as is.

    A damaged or cut-off compressed file, and one that would decompress to
    more than :data:`MAX_DECOMPRESSED` bytes, raise FormatError.
    """
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(MAX_DECOMPRESSED + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise FormatError(None, f"is a damaged gzip file ({exc})", source) from None
    if len(out) > MAX_DECOMPRESSED:
        raise FormatError(None, f"decompresses to more than {MAX_DECOMPRESSED} bytes", source)
    return out


# A byte-order mark and white space before a JSON document's first bracket.
_JSON_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*")


def decode(data: str | bytes, source: str | None = None) -> tuple[Any, str]:
    """``(object, text)``: decoded JSON, or the text itself when it is not JSON.

    The text of bytes that decode as JSON is not kept (``""``): a large
    file's text would double what reading it costs.

    Bytes compressed with gzip are decompressed first. Raises FormatError
    for an empty file and for JSON that does not parse (naming the format
    the text looks like).
    """
    if isinstance(data, bytes):
        data = gunzip(data, source)
        start = _JSON_START.match(data)
        if start is not None and data[start.end():start.end() + 1] in (b"[", b"{"):
            # JSON straight from the bytes: no text copy of a large file
            # beside the decoded object. What fails is read again as text
            # below, for the message.
            try:
                return json.loads(data), ""
            except (json.JSONDecodeError, UnicodeDecodeError):
                pass
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise FormatError(None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})",
                              source) from None  # fmt: skip
    else:
        text = data
    stripped = text.strip()
    if not stripped:
        raise FormatError(None, "is empty", source)
    if stripped[0] in "[{":
        try:
            return json.loads(stripped), text
        except json.JSONDecodeError as exc:
            fmt = guess(stripped)
            tool = name_of(fmt) if fmt else "JSON"
            cut = " (cut off: truncated?)" if unclosed(stripped) > 0 else ""
            raise FormatError(
                tool, f"is not valid JSON{cut}: {exc.msg} at line {exc.lineno} column {exc.colno}",
                source,
            ) from None  # fmt: skip
    return None, text


def sniff(data: Any, *, source: str | None = None) -> str:
    """The format of ``data``: text or bytes of a file, or an already decoded JSON object.

    Parameters
    ----------
    data : str, bytes or JSON object
        The file's content (bytes may be gzip-compressed), or the JSON
        object decoded from it.
    source : str, optional
        Where the data came from, named in error messages.

    Returns
    -------
    str
        The key of the format the data is in, one of :data:`FORMATS`
        (``"hyperfine"``, ``"gotest"``, ...).

    Raises
    ------
    FormatError
        When no format fits, naming what the data looked like (empty, JSON
        that does not parse, JSON of no known benchmark format, ...).

    Examples
    --------
    >>> from perfstats.adapters.records.importers import sniff
    >>> sniff(b'{"results": [{"command": "ls", "times": [0.1]}]}')
    'hyperfine'
    >>> try:
    ...     sniff(b'{"results": [{"command": "ls", "times": [0.1')
    ... except ValueError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    looks like hyperfine but is not valid JSON (cut off: truncated?):
    Expecting ',' delimiter at line 1 column 45
    """
    if isinstance(data, (str, bytes)):
        obj, text = decode(data, source)
        if obj is None:
            if gotest.looks_like(text):
                return "gotest"
            raise FormatError(
                None, "is neither JSON nor go test -bench output (no 'BenchmarkName  N  "
                "value unit' line)", source,
            )  # fmt: skip
    else:
        obj = data
    for fmt, module in MODULES.items():
        if fmt != "gotest" and module.looks_like(obj):
            return fmt
    if isinstance(obj, Mapping):
        keys = ", ".join(repr(k) for k in list(obj)[:8])
        text = json.dumps(obj)[:20000]
        like = guess(text)
        hint = f"; it resembles {name_of(like)} but lacks what that format needs" if like else ""
        raise FormatError(None, f"is JSON of no known benchmark format (keys {keys}){hint}",
                          source)  # fmt: skip
    raise FormatError(None, f"is JSON of no known benchmark format (a {type(obj).__name__})",
                      source)  # fmt: skip
