"""Where the code under test came from: the git commit of a target's working directory."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger(__name__)

#: Seconds a git query may take before it is given up.
GIT_TIMEOUT = 10.0


def git_state(directory: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The commit and dirty flag of ``directory`` when it is in a git work tree, else None.

    Best effort: no git, no work tree, a slow or failing git all give None
    (logged at debug level), never an error. ``dirty`` is True when tracked
    files differ from the commit (untracked files do not count).

    Examples
    --------
    >>> import tempfile
    >>> from perfstats.adapters.driver.provenance import git_state
    >>> git_state(tempfile.gettempdir()) is None  # not a work tree
    True
    """
    git = shutil.which("git")
    if git is None:
        return None
    where = os.fspath(directory)
    head = _git(git, where, "rev-parse", "HEAD")
    if head is None:
        return None
    status = _git(git, where, "status", "--porcelain", "--untracked-files=no")
    top = _git(git, where, "rev-parse", "--show-toplevel")
    return {
        "directory": os.path.abspath(where),
        "work_tree": top,
        "commit": head,
        "dirty": None if status is None else bool(status),
    }


def _git(git: str, where: str, *args: str) -> str | None:
    try:
        done = subprocess.run(
            [git, "-C", where, *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        logger.debug("git %s in %s: %s", " ".join(args), where, exc)
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip()


def target_directory(config: Mapping[str, Any]) -> str | None:
    """The local working directory of a target, from its config (None for remote targets).

    A target running a local program (``cwd`` in its config) runs in its
    ``cwd``, or in the driver's own directory when that is unset.

    Examples
    --------
    >>> import os
    >>> from perfstats.adapters.driver.provenance import target_directory
    >>> target_directory({"kind": "command", "cwd": "/srv/bench"})
    '/srv/bench'
    >>> target_directory({"kind": "command", "cwd": None}) == os.getcwd()
    True
    >>> target_directory({"kind": "http", "url": "http://127.0.0.1:8080/"}) is None
    True
    """
    if "cwd" not in config:
        return None
    cwd = config.get("cwd")
    return str(cwd) if cwd else os.getcwd()


__all__ = ["git_state", "target_directory"]
