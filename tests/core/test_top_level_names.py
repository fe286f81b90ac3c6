"""The top-level names: what type checkers see is what ``perfstats`` gives.

``perfstats/__init__.py`` loads its names on first use (``_EXPORTS``,
``_SUBMODULES``) and shows them to type checkers in an ``if TYPE_CHECKING``
block, partly by star imports of a subpackage's ``__all__``. Ruff cannot
follow those star imports, so this test checks that the three agree with
``__all__`` and that every name loads from the module it is said to come
from.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import perfstats

INIT = Path(perfstats.__file__)


def _type_checking_names() -> tuple[set[str], set[str]]:
    """Names the ``if TYPE_CHECKING`` block binds, and the subpackages it star-imports."""
    tree = ast.parse(INIT.read_text())
    (block,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    ]
    names: set[str] = set()
    starred: set[str] = set()
    for stmt in block.body:
        assert isinstance(stmt, ast.ImportFrom) and stmt.level == 1, ast.unparse(stmt)
        for alias in stmt.names:
            if alias.name == "*":
                assert stmt.module is not None
                starred.add(stmt.module)
                sub = importlib.import_module(f"perfstats.{stmt.module}")
                names.update(sub.__all__)
            else:
                names.add(alias.asname or alias.name)
    return names, starred


def test_type_checkers_see_exactly_the_lazy_names() -> None:
    names, starred = _type_checking_names()
    lazy = set(perfstats._EXPORTS) | set(perfstats._SUBMODULES)
    assert starred, "the star imports were not found; the check would see too little"
    assert names - lazy == set(), "shown to type checkers, missing at run time"
    assert lazy - names == set(), "given at run time, unknown to type checkers"
    assert set(perfstats.__all__) == lazy | {"__version__"}
    assert len(perfstats.__all__) == len(set(perfstats.__all__))


def test_every_name_comes_from_the_module_it_is_listed_under() -> None:
    for name, module in perfstats._EXPORTS.items():
        value = getattr(perfstats, name)
        assert value is getattr(importlib.import_module(f"perfstats.{module}"), name)
        home = inspect.getmodule(value)
        assert home is not None and home.__name__ == f"perfstats.{module}", name
    for name, module in perfstats._SUBMODULES.items():
        assert getattr(perfstats, name) is importlib.import_module(f"perfstats.{module}")
