"""Read-only mappings for the system models and their results.

A model or a result holds mappings (demands per station, response times per
class, ...). Each holds a read-only view of its own copy, so that neither
the caller's dicts nor a later edit through the result can change it after
it was built and checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from types import MappingProxyType
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")

__all__ = ["freeze_mappings", "read_only"]


def read_only(mapping: Mapping[K, V]) -> Mapping[K, V]:
    """A read-only view of a copy of ``mapping``; mappings among its values likewise.

    Parameters
    ----------
    mapping : mapping
        The mapping to copy; it is not changed.

    Returns
    -------
    mapping
        A :class:`types.MappingProxyType` over a new dict, whose values that
        are mappings are read-only copies too (at any depth).

    Examples
    --------
    >>> demands = {"api": {"get": 0.005}}
    >>> frozen = read_only(demands)
    >>> demands["api"]["get"] = 1.0
    >>> frozen["api"]["get"]
    0.005
    >>> frozen["db"] = {}
    Traceback (most recent call last):
    ...
    TypeError: 'mappingproxy' object does not support item assignment
    """
    copy: dict[K, Any] = {
        k: read_only(v) if isinstance(v, Mapping) else v for k, v in mapping.items()
    }
    return MappingProxyType(copy)


def freeze_mappings(instance: Any) -> None:
    """Make every mapping field of a frozen dataclass :func:`read_only`.

    Called from ``__post_init__``, so that an instance is read-only whoever
    builds it and whatever they do with their dicts afterwards.

    Parameters
    ----------
    instance : dataclass instance
        Its fields whose values are mappings are replaced in place; the
        other fields are left as they are.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Result:
    ...     rates: Mapping[str, float]
    ...     def __post_init__(self) -> None:
    ...         freeze_mappings(self)
    >>> Result({"get": 2.0}).rates
    mappingproxy({'get': 2.0})
    """
    for f in fields(instance):
        value = getattr(instance, f.name)
        if isinstance(value, Mapping):
            # frozen dataclasses refuse ordinary assignment, also in __post_init__
            object.__setattr__(instance, f.name, read_only(value))
