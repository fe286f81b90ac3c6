"""Docstring sections that several functions share, written once.

Where functions share a parameter of the same meaning, or fail alike, the
section that says so is written in one string, so the wording cannot drift
between them. A docstring names the section by a marker alone on its line,
``{name}``; :func:`fill_doc` writes the section there at import, indented as
the marker, and numpydoc, Sphinx and ``help()`` read the filled docstring (as
:mod:`scipy.stats` fills its shared parameters).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])
_MARK = re.compile(r"^([ \t]*)\{([a-z_]+)\}[ \t]*$", re.MULTILINE)


def fill_doc(**sections: str) -> Callable[[_F], _F]:
    """A decorator that writes ``sections`` at their markers in a docstring.

    Parameters
    ----------
    **sections : str
        Section text by marker name; each is dedented and stripped of
        leading and trailing blank lines before it is indented as its marker.

    Returns
    -------
    callable
        The decorator. It returns the function it decorates, its
        ``__doc__`` filled.

    Raises
    ------
    ValueError
        When the decorated docstring has a marker that ``sections`` lacks;
        the message names the function and the marker.

    Examples
    --------
    >>> from perfstats._docstrings import fill_doc
    >>> name_doc = fill_doc(name='''
    ...     Parameters
    ...     ----------
    ...     name : str
    ...         A component.''')
    >>> @name_doc
    ... def calls(name):
    ...     '''Calls of a component.
    ...
    ...     {name}
    ...     '''
    >>> print(calls.__doc__)
    Calls of a component.
    <BLANKLINE>
        Parameters
        ----------
        name : str
            A component.
    <BLANKLINE>
    """
    texts = {key: textwrap.dedent(text).strip("\n") for key, text in sections.items()}

    def decorate(func: _F) -> _F:
        if func.__doc__ is None:  # python -OO strips docstrings
            return func

        def section(mark: re.Match[str]) -> str:
            indent, key = mark.groups()
            if key not in texts:
                raise ValueError(
                    f"the docstring of {func.__qualname__} names a section {{{key}}} "
                    f"that is not given; given: {sorted(texts)}"
                )
            return textwrap.indent(texts[key], indent)

        func.__doc__ = _MARK.sub(section, func.__doc__)
        return func

    return decorate
