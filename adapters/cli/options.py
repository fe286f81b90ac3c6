"""Parse ``key=value`` options given on the command line."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

_WORDS = {"true": True, "false": False, "none": None, "null": None, "yes": True, "no": False}


def parse_value(text: str) -> Any:
    """A Python literal if ``text`` is one, else ``text`` itself.

    Numbers, booleans (also ``true``/``false``), ``None``, tuples, lists and
    dicts are recognised; anything else stays a string, so paths and names
    need no quotes.

    Examples
    --------
    >>> from perfstats.adapters.cli.options import parse_value
    >>> parse_value("0.01"), parse_value("true"), parse_value("(0.25, 0.5)")
    (0.01, True, (0.25, 0.5))
    >>> parse_value("order-normal"), parse_value("/tmp/key")
    ('order-normal', '/tmp/key')
    """
    stripped = text.strip()
    if stripped.lower() in _WORDS:
        return _WORDS[stripped.lower()]
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def parse_options(items: Iterable[str] | None, what: str = "option") -> dict[str, Any]:
    """``["a=1", "b=x"]`` -> ``{"a": 1, "b": "x"}``; a malformed item is a ValueError.

    Examples
    --------
    >>> from perfstats.adapters.cli.options import parse_options
    >>> parse_options(["error=0.02", "method=order"])
    {'error': 0.02, 'method': 'order'}
    """
    options: dict[str, Any] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise ValueError(f"{what} must look like key=value; got {item!r}")
        if key in options:
            raise ValueError(f"{what} {key!r} given twice")
        options[key] = parse_value(value)
    return options
