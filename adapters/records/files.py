"""Write files safely: a new file beside the destination, moved into place atomically.

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
import os
import tempfile
from pathlib import Path


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
