"""Read and write files safely: errors that name the file, writes moved into place atomically.

Every file perfstats replaces (a record's metadata, an HTML report) is
written by :func:`write_atomic`: the content goes to a temporary file
created with ``O_EXCL`` and a random name in the destination's own folder
(so no one can plant a symlink at a predictable name, and the rename stays
on one file system), is flushed to disk, and then replaces the destination
with ``os.replace``. A rename replaces a symlink at the destination instead
of writing through it, so a planted link never redirects the write.
Readers see the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    """This process's umask, read without changing it (Linux), else the usual 022."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Replace the file at ``path`` by one holding ``text`` (UTF-8), atomically.

    The new file gets the permissions a newly created file would get
    (``0666`` less the umask); a symlink at ``path`` is replaced, never
    followed.

    Raises
    ------
    OSError
        When the folder is missing or not writable, or the disk is full;
        no temporary file is left behind.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from perfstats.adapters.records.files import write_atomic
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomic(folder / "a.json", "{}\\n").read_text()
    '{}\\n'
    """
    dest = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return dest


def read_text_file(path: str | os.PathLike[str], what: str) -> str:
    """The UTF-8 text of the ``what`` file at ``path`` (a config, a price table, ...).

    Raises
    ------
    ValueError
        ``"<what> <path> does not exist"``, or ``"cannot read the <what> <path>: <why>"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from perfstats.adapters.records.files import read_text_file
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> read_text_file(folder / "suite.toml", "config")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: config .../suite.toml does not exist
    """
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{what} {os.fspath(p)} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read the {what} {os.fspath(p)}: {exc.strerror}") from None


def parse_toml(text: str, path: str | os.PathLike[str], what: str) -> Any:
    """``text``, read from the ``what`` file at ``path``, parsed as TOML.

    Raises
    ------
    ValueError
        ``"<what> <path> is not valid TOML: <why>"``, or on Python 3.10 without ``tomli``.

    Examples
    --------
    >>> from perfstats.adapters.records.files import parse_toml
    >>> parse_toml('schedule = "duet"', "suite.toml", "config")
    {'schedule': 'duet'}
    """
    # Imported by name: tomllib is in the standard library from Python 3.11,
    # its twin tomli is a package before that.
    name = "tomllib" if sys.version_info >= (3, 11) else "tomli"
    try:
        toml = importlib.import_module(name)
    except ImportError:
        raise ValueError("reading TOML on Python 3.10 needs the tomli package") from None
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise ValueError(f"{what} {os.fspath(path)} is not valid TOML: {exc}") from None
