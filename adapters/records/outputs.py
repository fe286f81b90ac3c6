"""Outputs never overwrite inputs: one check for every command that reads and writes files."""

from __future__ import annotations

import os
from collections.abc import Iterable


def check_output(
    output: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str]],
    *,
    what: str = "output",
) -> None:
    """Refuse ``output`` when it is one of ``inputs``, before anything is written.

    The same file is found by its resolved path (symlinks followed) and, for
    files that exist, by device and inode, so a hard link or a symlink to an
    input is refused too.

    Raises
    ------
    ValueError
        Naming the output and the input it would overwrite.

    Examples
    --------
    >>> from perfstats.adapters.records.outputs import check_output
    >>> check_output("report.html", ["run.csv", "run.csv.meta.json"])
    >>> check_output("./run.csv", ["run.csv"], what="the HTML report")
    Traceback (most recent call last):
    ...
    ValueError: the HTML report ./run.csv is the input run.csv; choose another path
    """
    out = os.fspath(output)
    for given in inputs:
        source = os.fspath(given)
        if os.path.realpath(out) == os.path.realpath(source) or _same_existing(out, source):
            raise ValueError(f"{what} {out} is the input {source}; choose another path")


def _same_existing(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        # One of them does not exist (or cannot be seen): not the same file.
        return False
