"""Validation of target arguments shared by the target classes."""

from __future__ import annotations

import math
import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit


def check_argv(argv: Any, name: str = "argv") -> list[str]:
    """A non-empty list of strings; a single string is refused (no shell parsing).

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_argv
    >>> check_argv(("ls", "-l"))
    ['ls', '-l']
    """
    if isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence):
        raise ValueError(f"{name} must be a list of strings (no shell string); got {argv!r}")
    items = list(argv)
    if not items:
        raise ValueError(f"{name} must not be empty")
    if not all(isinstance(a, str) for a in items):
        raise ValueError(f"{name} must contain only strings; got {items!r}")
    return items


def check_timeout(timeout: Any, name: str = "timeout") -> float | None:
    """None (no limit) or a positive finite number of seconds.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_timeout
    >>> check_timeout(5), check_timeout(None)
    (5.0, None)
    """
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise ValueError(f"{name} must be a positive number of seconds or None; got {timeout!r}")
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"{name} must be a positive number of seconds or None; got {timeout!r}")
    return float(timeout)


def check_env(env: Any, name: str = "env") -> dict[str, str] | None:
    """None or a mapping of string names to string values.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_env
    >>> check_env({"MODE": "fast"})
    {'MODE': 'fast'}
    """
    if env is None:
        return None
    if not isinstance(env, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        raise ValueError(f"{name} must map variable names to string values; got {env!r}")
    return dict(env)


def check_cpus(cpus: Any, name: str = "cpus") -> tuple[int, ...] | None:
    """None (no pinning) or CPU numbers this process may itself run on, sorted.

    Pinning needs ``os.sched_setaffinity`` (Linux); elsewhere any CPU set is
    refused here rather than silently ignored.

    Examples
    --------
    >>> import os
    >>> from perfstats.adapters.targets.arguments import check_cpus
    >>> cpu = min(os.sched_getaffinity(0))
    >>> check_cpus([cpu]) == (cpu,), check_cpus(None)
    (True, None)
    """
    if cpus is None:
        return None
    if isinstance(cpus, (str, bytes)) or not isinstance(cpus, (Sequence, set, frozenset)):
        raise ValueError(f"{name} must be a list of CPU numbers or None; got {cpus!r}")
    items = list(cpus)
    if not items or not all(
        isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in items
    ):
        raise ValueError(f"{name} must be a non-empty list of CPU numbers (>= 0); got {cpus!r}")
    if not hasattr(os, "sched_setaffinity"):
        raise ValueError(f"{name}: pinning to CPUs needs os.sched_setaffinity (Linux)")
    usable = os.sched_getaffinity(0)
    outside = sorted(set(items) - usable)
    if outside:
        raise ValueError(
            f"{name}: CPU {outside[0]} is not one this process may use "
            f"(usable: {', '.join(map(str, sorted(usable)))})"
        )
    return tuple(sorted(set(items)))


def check_cwd(cwd: Any, name: str = "cwd") -> Any:
    """None (the driver's working directory) or an existing directory (str or path).

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_cwd
    >>> check_cwd("/"), check_cwd(None)
    ('/', None)
    """
    if cwd is not None and not os.path.isdir(cwd):
        raise ValueError(f"{name} {cwd!r} is not a directory")
    return cwd


def check_url(url: Any) -> str:
    """An ``http://`` or ``https://`` address with a host and a valid port, if any.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_url
    >>> check_url("http://127.0.0.1:8080/run")
    'http://127.0.0.1:8080/run'
    """
    if not isinstance(url, str):
        raise ValueError(f"url must be a string; got {url!r}")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"url must be an http:// or https:// address; got {url!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError:
        raise ValueError(f"url {url!r} has an invalid port") from None
    return url


def check_headers(headers: Any) -> dict[str, str]:
    """None (no headers) or a mapping of string names to string values.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_headers
    >>> check_headers({"Accept": "application/json"}), check_headers(None)
    ({'Accept': 'application/json'}, {})
    """
    if headers is not None and (
        not isinstance(headers, Mapping)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
    ):
        raise ValueError(f"headers must map names to string values; got {headers!r}")
    return dict(headers or {})


def find_executable(program: str, cwd: str | None, env: Mapping[str, str] | None) -> str:
    """The path of ``program`` as a child started in ``cwd`` with ``env`` would find it.

    A missing program is bad input, refused before anything is recorded.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import find_executable
    >>> find_executable("sh", None, None).endswith("/sh")
    True
    """
    path = (env or os.environ).get("PATH", os.defpath)
    if os.sep in program:
        candidate = program if cwd is None else os.path.join(cwd, program)
        found = candidate if os.access(candidate, os.X_OK) else None
    else:
        found = shutil.which(program, path=path)
    if found is None or os.path.isdir(found):
        raise ValueError(f"executable {program!r} not found or not executable")
    return found


def check_not_option(value: Any, name: str) -> str:
    """A non-empty string that a command line cannot read as an option (no leading ``-``).

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_not_option
    >>> check_not_option("localhost/bb:latest", "image")
    'localhost/bb:latest'
    >>> check_not_option("--privileged", "image")
    Traceback (most recent call last):
    ...
    ValueError: image must not start with '-' (it would be read as an option); got '--privileged'
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")
    if value.lstrip().startswith("-"):
        raise ValueError(
            f"{name} must not start with '-' (it would be read as an option); got {value!r}"
        )
    return value


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of ``choices``.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import check_choice
    >>> check_choice("warm", "mode", ("cold", "warm"))
    'warm'
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return str(value)


def show_argv(argv: Sequence[str]) -> str:
    """``argv`` as a shell-quoted string, for labels and messages.

    Examples
    --------
    >>> from perfstats.adapters.targets.arguments import show_argv
    >>> show_argv(["echo", "two words"])
    "echo 'two words'"
    """
    return shlex.join(argv)
