"""Hold the methods and properties of the API reference to numpydoc's rules.

numpydoc validates every object autodoc documents against one set of checks,
and its exclusion patterns go by name alone. The members of a class (its
methods and properties, shown on the class's page) need the rules of a
function but one: the class's example shows them at work, so a member needs
no example of its own. This extension validates them with the checks named
in ``member_validation_checks``; numpydoc's own validation is told to leave
them out (``numpydoc_validation_exclude``).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from numpydoc.validate import get_doc_object, validate
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)
MEMBER_KINDS = ("method", "property")


def member_problems(obj: Any, checks: Set[str]) -> list[str]:
    """The findings of numpydoc's validation of ``obj`` among ``checks``.

    Parameters
    ----------
    obj : object
        A function, method or property.
    checks : set of str
        numpydoc check codes, e.g. ``{"PR01", "RT01"}``.

    Returns
    -------
    list of str
        One ``"CODE: message"`` entry per finding; empty when there is none.
    """
    report = validate(get_doc_object(obj))
    return [f"{code}: {message}" for code, message in report["errors"] if code in checks]


def _check_member(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what not in MEMBER_KINDS:
        return
    problems = member_problems(obj, app.config.member_validation_checks)
    if problems:
        logger.warning("[member_docstrings] %s:\n  %s", name, "\n  ".join(problems))


def setup(app: Sphinx) -> dict[str, Any]:
    kinds = frozenset({set, frozenset})
    app.add_config_value("member_validation_checks", set(), "env", types=kinds)
    app.connect("autodoc-process-docstring", _check_member)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
