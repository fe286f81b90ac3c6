"""The one registry of target kinds: a target built from its kind, a command line and options.

A kind's options are its class's constructor parameters (:func:`options_of`),
so the list the command line and config files accept is never kept by hand.
A-B suites build each version's target here too
(:meth:`perfstats.adapters.ab.TargetPerVersion.from_specs`), and check
their own suite targets' options with :func:`options_of`.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .awslambda import LambdaFunction
from .base import Target
from .command import Command
from .container import Container
from .criterion import Criterion
from .gbench import GoogleBenchmark
from .gotest import GoTest
from .http import HttpFunction
from .pyperf_worker import PyperfScript
from .ssh import SSH

TARGETS: dict[str, type[Target]] = {
    "command": Command,
    "container": Container,
    "ssh": SSH,
    "http": HttpFunction,
    "lambda": LambdaFunction,
    "gbench": GoogleBenchmark,
    "gotest": GoTest,
    "pyperf": PyperfScript,
    "criterion": Criterion,
}

# For each kind, the constructor argument that a lone positional word may
# supply (``perfstats run --target http -- http://...``), if argv is not used.
_POSITIONAL = {"http": "url", "lambda": "name"}


def options_of(cls: type) -> tuple[str, ...]:
    """The options a target class takes: its constructor's parameters (an HTTP client excepted).

    Examples
    --------
    >>> from perfstats.adapters.targets import SSH
    >>> options_of(SSH)[:3]
    ('host', 'argv', 'port')
    """
    init = cls.__init__  # type: ignore[misc]
    names: list[str] = []
    for p in inspect.signature(init).parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            names.extend(_unpacked(init, p.annotation))
        elif p.name not in ("self", "client"):
            names.append(p.name)
    return tuple(names)


def _unpacked(function: Any, annotation: Any) -> list[str]:
    """The keys of the TypedDict of ``**kwargs: Unpack[Options]`` (read from its module)."""
    # The annotation is a string (postponed annotations) and Unpack is only
    # imported for the type checker: the TypedDict is looked up by name.
    match = re.fullmatch(r"Unpack\[(\w+)\]", str(annotation))
    if match is None:
        raise TypeError(f"{function.__qualname__}: **kwargs must be Unpack[a TypedDict]")
    return list(function.__globals__[match[1]].__annotations__)


def target_by_name(kind: str, argv: Sequence[str], options: Mapping[str, Any]) -> Target:
    """Build the target registered as ``kind``.

    ``argv`` is the command for command, container and ssh targets, and
    the URL (http) or function name (lambda) for the others, which may also
    come as the option ``url=`` or ``name=``.

    Examples
    --------
    >>> from perfstats.adapters.targets.registry import target_by_name
    >>> target_by_name("command", ["true"], {"timeout": 5}).timeout
    5.0
    >>> target_by_name("rocket", [], {})
    Traceback (most recent call last):
    ...
    ValueError: target must be one of command, container, criterion, gbench, gotest, http, lambda, \
pyperf, ssh; got 'rocket'
    """
    key = kind.lower() if isinstance(kind, str) else kind
    if key not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(sorted(TARGETS))}; got {kind!r}")
    cls = TARGETS[key]
    opts = dict(options)
    params = inspect.signature(cls.__init__).parameters
    allowed = options_of(cls)
    unknown = [k for k in opts if k not in allowed or k == "argv"]
    if unknown:
        raise ValueError(
            f"unknown option {unknown[0]!r} for target {key}; options: "
            + ", ".join(p for p in allowed if p != "argv")
        )
    args: list[Any] = []
    if key in _POSITIONAL:
        field = _POSITIONAL[key]
        if argv:
            if field in opts or len(argv) != 1:
                raise ValueError(
                    f"target {key} takes one {field} (after --) or the option {field}=; "
                    f"got {list(argv)!r}"
                )
            opts[field] = argv[0]
        if field not in opts:
            raise ValueError(f"target {key} needs a {field} (after --, or {field}=...)")
        args.append(opts.pop(field))
    else:
        if not argv:
            raise ValueError(f"target {key} needs a command after --")
        required = [
            p.name
            for p in params.values()
            if p.name not in ("self", "argv")
            and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            and p.default is inspect.Parameter.empty
        ]
        for name in required:
            if name not in opts:
                raise ValueError(f"target {key} needs the option {name}=...")
            args.append(opts.pop(name))
        args.append(list(argv))
    try:
        return cls(*args, **opts)
    except TypeError as exc:
        raise ValueError(f"bad option for target {key}: {exc}") from None
