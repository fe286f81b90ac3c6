"""The ``perfstats`` command line: one module per subcommand and the shared parser pieces.

``perfstats run`` (:mod:`~perfstats.adapters.cli.run`), ``replay``,
``compare``, ``report`` and ``ab`` each live in the module of that name;
:mod:`~perfstats.adapters.cli.parser` holds what they share (exit codes,
the one-line error parser, rule and output options),
:mod:`~perfstats.adapters.cli.samples` reads CSV input and
:mod:`~perfstats.adapters.cli.output` writes text and JSON.
:func:`main` (:mod:`~perfstats.adapters.cli.main`) is the console script.
"""

import importlib
from typing import Any

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    # The console script's ``main`` is loaded on first use: the pytest plugin
    # lives in this package, and a pytest run should not load every
    # subcommand for it. Importing the submodule ``main`` binds it on this
    # package; the function then takes its place, as an eager
    # ``from .main import main`` did.
    if name == "main":
        value = importlib.import_module(".main", __name__).main
        globals()["main"] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
