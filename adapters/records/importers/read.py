"""Read another tool's results: sniff the format, parse it into tidy :class:`Results`.

:func:`parse` is pure (content in, results out); :func:`read` is the file
entry point (a file, or a criterion output directory).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from .results import FormatError, Results
from .sniff import FORMATS, MODULES, decode, gunzip, name_of, sniff


def parse(data: Any, *, format: str | None = None, source: str | None = None,
          keep_unrun: bool = False, **options: Any) -> Results:  # fmt: skip
    """Parse results of another tool from text, bytes or a decoded JSON object.

    Parameters
    ----------
    data : str, bytes or JSON object
        The file's content.
    format : str, optional
        One of :data:`FORMATS`; sniffed when not given.
    source : str, optional
        Where the data came from, for error messages.
    keep_unrun : bool, default False
        Keep a benchmark with failed runs and no successful one (in
        :attr:`Results.unrun`, for the gate to report it as an error)
        instead of refusing the file, naming it.
    **options
        Passed to the format's parser (``metric=`` for gbench and gotest,
        ``name=`` for criterion).

    Returns
    -------
    Results
        The tidy per-run values of every benchmark in ``data``, with the
        format read and what the tool recorded beside them.

    Raises
    ------
    FormatError
        A ValueError naming the format the data looked like and what was
        wrong (empty, truncated, a missing field, no per-run values, ...).

    Examples
    --------
    >>> from perfstats.adapters.records.importers import parse
    >>> parse("BenchmarkF-2  100  20 ns/op\\n")
    Results(gotest: 1 benchmarks, 1 values)
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    with _format_errors(source):
        res = _parse(data, format, source, options)
        if res.unrun and not keep_unrun:
            name, count = next(iter(res.unrun.items()))
            raise FormatError(name_of(res.format),
                              f"benchmark {name!r} has no successful run ({count} failed)", source)
        return res


@contextlib.contextmanager
def _format_errors(source: str | None) -> Iterator[None]:
    """Whatever a damaged file makes the parsers raise, as one FormatError naming ``source``."""
    try:
        yield
    except FormatError as exc:
        if exc.source is None and source is not None:
            raise FormatError(exc.format, exc.problem, source) from None
        raise
    except RecursionError:
        raise FormatError(None, "is nested too deeply to be a results file", source) from None
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError) as exc:
        # A field of an unexpected type deep in a file (a list where an
        # object belongs, ...): the file's fault, said in one line.
        raise FormatError(
            None, f"has a field of an unexpected type or shape ({type(exc).__name__}: {exc})",
            source,
        ) from None


def _parse(data: Any, format: str | None, source: str | None, options: dict[str, Any]) -> Results:
    obj: Any = data
    if isinstance(data, (str, bytes)):
        # Decoded once, for sniffing and parsing alike.
        obj, text = decode(data, source)
        if obj is None:
            data = text
    fmt = format or sniff(data if obj is None else obj, source=source)
    module = MODULES[fmt]
    if fmt == "gotest":
        text = gunzip(data, source).decode("utf-8-sig") if isinstance(data, bytes) else data
        if not isinstance(text, str):
            raise FormatError(name_of(fmt), "needs text, got a JSON object", source)
        return dataclasses.replace(module.parse(text, source=source, **options), format=fmt)
    if obj is None:
        raise FormatError(name_of(fmt), "is not JSON", source)
    if format is not None and not module.looks_like(obj):
        raise FormatError(name_of(fmt), "lacks the fields that format has", source)
    return dataclasses.replace(module.parse(obj, source=source, **options), format=fmt)


def read(
    path: str | Path, *, format: str | None = None, keep_unrun: bool = False, **options: Any
) -> Results:
    """Read a results file of another tool (format sniffed unless given).

    A gzip-compressed file (pyperf's ``-o x.json.gz``) is decompressed. A
    criterion ``sample.json`` takes its benchmark's name from the
    ``benchmark.json`` beside it (criterion 0.2 wrote none: then the
    benchmark's directory names it); a directory is read as criterion's
    output (``target/criterion``): every ``new/sample.json`` below it. A
    directory with another ``format`` is refused rather than read as
    criterion's.

    Parameters
    ----------
    path : str or pathlib.Path
        The results file (gzip-compressed or not), or a directory of
        criterion's output.
    format : str, optional
        One of :data:`FORMATS`; sniffed from the content when not given.
    keep_unrun : bool, default False
        Keep a benchmark with failed runs and no successful one (in
        :attr:`Results.unrun`) instead of refusing the file, as in :func:`parse`.
    **options
        Passed to the format's parser (``metric=`` for gbench and gotest,
        ``name=`` for criterion; for a criterion ``sample.json`` the name is
        found beside the file unless given).

    Returns
    -------
    Results
        The tidy per-run values of every benchmark in the file (of every
        ``sample.json`` below a directory), with the format read and what
        the tool recorded beside them.

    Raises
    ------
    ValueError
        A ``format`` that is none of :data:`FORMATS`.
    FormatError
        A ValueError naming the file, the format it looked like and what was
        wrong.

    Examples
    --------
    >>> import gzip, json, tempfile
    >>> from pathlib import Path
    >>> from perfstats.adapters.records.importers import read
    >>> doc = {"version": "1.0", "metadata": {"name": "f", "unit": "second"},
    ...        "benchmarks": [{"runs": [{"values": [0.1, 0.2]}]}]}
    >>> path = Path(tempfile.mkdtemp()) / "x.json.gz"
    >>> _ = path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    >>> read(path).values("f").tolist()
    [0.1, 0.2]
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    p = Path(path)
    if p.is_dir():
        if format not in (None, "criterion"):
            raise FormatError(name_of(format), "is a directory; of the formats only "
                              "criterion's output is read from a directory", str(p))  # fmt: skip
        return _criterion_tree(p)
    data = p.read_bytes()
    source = str(p)
    if format in (None, "criterion") and p.name == "sample.json" and "name" not in options:
        meta = p.parent / "benchmark.json"
        if meta.exists():
            options["name"] = json.loads(meta.read_text()).get("full_id", p.parent.parent.name)
        elif p.parent.name == "new":
            options["name"] = p.parent.parent.name
    # Decoded here so that the file's bytes are let go before the parser
    # builds its frame: a large file would hold both.
    with _format_errors(source):
        obj, text = decode(data, source)
    del data
    content: Any = text if obj is None else obj
    return parse(content, format=format, source=source, keep_unrun=keep_unrun, **options)


def _criterion_tree(root: Path) -> Results:
    samples = sorted(root.rglob("new/sample.json"))
    if not samples:
        raise FormatError("criterion", "directory has no */new/sample.json", str(root))
    parts = []
    for s in samples:
        # Without benchmark.json (criterion 0.2) the path below the root names it.
        named: dict[str, Any] = {} if (s.parent / "benchmark.json").exists() else {
            "name": s.parent.parent.relative_to(root).as_posix()}  # fmt: skip
        parts.append(read(s, format="criterion", **named))
    names = [r.benchmarks[0] for r in parts]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise FormatError("criterion", f"benchmark {dup!r} appears twice", str(root))
    frame = pd.concat([r.frame for r in parts], ignore_index=True)
    return Results(frame, "criterion", parts[0].metadata, {})
