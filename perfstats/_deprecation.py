"""Old parameter spellings kept for one release, each with a DeprecationWarning.

One mechanism for every renamed keyword: :func:`renamed` wraps a function
(or a class's ``__init__``) so that ``f(old=value)`` warns, naming the new
spelling, and calls ``f(new=value)``. The wrapped signature shows only the
new names; the aliases are listed in the wrapper's ``__renamed__``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def renamed(**aliases: str) -> Callable[[F], F]:
    """Accept each keyword ``old`` of ``aliases`` as its new name ``aliases[old]``.

    Passing both spellings is a :class:`TypeError`, as for any keyword given
    twice.

    Examples
    --------
    >>> import warnings
    >>> @renamed(ci="method")
    ... def f(*, method: str = "order") -> str:
    ...     return method
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f(ci="block")
    'block'
    >>> str(caught[0].message)
    'f(ci=...) is deprecated and will be removed in the next release; use method=... instead'
    """

    def decorate(func: F) -> F:
        owner = func.__qualname__.removesuffix(".__init__")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in aliases.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{owner}() got both {old}= and its new name {new}=")
                    warnings.warn(
                        f"{owner}({old}=...) is deprecated and will be removed in the next "
                        f"release; use {new}=... instead",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__renamed__ = dict(aliases)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def aliases_of(func: Callable[..., Any]) -> dict[str, str]:
    """The ``{old: new}`` keyword renames :func:`renamed` declared on ``func``."""
    return dict(getattr(func, "__renamed__", {}))
