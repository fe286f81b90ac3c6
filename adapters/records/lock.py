"""One writer per record: an exclusive lock held on a record for the whole of a run.

Two processes appending to one record interleave their rows and number
their runs alike; a lock file beside the record (``run.csv`` ->
``run.csv.lock``) holds an exclusive ``flock`` for as long as a writer has
the record open, and the holder's pid, so that a second writer is refused
at once with a message that says who holds it. The operating system drops
the lock when its holder dies, so a killed run never blocks the next one.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of the record at ``path`` (its full name + ``.lock``).

    Examples
    --------
    >>> from perfstats.adapters.records.lock import lock_path
    >>> lock_path("runs/a.csv").as_posix()
    'runs/a.csv.lock'
    """
    p = Path(path)
    return p.with_name(p.name + ".lock")


class RecordLock:
    """An exclusive lock on one record, taken at construction, released by :meth:`release`.

    Raises
    ------
    ValueError
        When another process holds the lock: the message names the record and
        the holder's pid.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from perfstats.adapters.records.lock import RecordLock
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> lock = RecordLock(folder / "run.csv")
    >>> RecordLock(folder / "run.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: record .../run.csv is being written by another process (pid ...); ...
    >>> lock.release()
    >>> RecordLock(folder / "run.csv").release()
    """

    def __init__(self, record: str | os.PathLike[str]) -> None:
        self.record = Path(record)
        self.path = lock_path(record)
        self._fd: int | None = None
        while self._fd is None:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_pid(fd)
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise ValueError(
                        f"cannot lock record {os.fspath(self.record)}: {exc.strerror}"
                    ) from None
                who = f"pid {holder}" if holder else "pid unknown"
                raise ValueError(
                    f"record {os.fspath(self.record)} is being written by another process "
                    f"({who}); wait for it to end or choose another path"
                ) from None
            # A holder that released the lock unlinks the file first: a lock on
            # an unlinked file guards nothing, so take the new file's lock.
            if _same_inode(fd, self.path):
                self._fd = fd
            else:
                os.close(fd)
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())

    def _open(self) -> int:
        if self.record.parent and not self.record.parent.is_dir():
            raise ValueError(f"folder {os.fspath(self.record.parent)} does not exist")
        try:
            # O_NOFOLLOW: a symlink planted at the lock's name is not followed.
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ValueError(
                f"cannot lock record {os.fspath(self.record)}: "
                f"{exc.strerror}: {os.fspath(self.path)}"
            ) from None

    def release(self) -> None:
        """Remove the lock file and release the lock (idempotent)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            # Unlink while still holding the lock (see the inode check above).
            self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _same_inode(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)
