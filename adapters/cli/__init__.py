"""The ``perfstats`` command line: one module per subcommand and the shared parser pieces.

``perfstats run`` (:mod:`~perfstats.adapters.cli.run`), ``replay``,
``compare``, ``report`` and ``ab`` each live in the module of that name;
:mod:`~perfstats.adapters.cli.parser` holds what they share (exit codes,
the one-line error parser, rule and output options),
:mod:`~perfstats.adapters.cli.samples` reads CSV input and
:mod:`~perfstats.adapters.cli.output` writes text and JSON.
:func:`main` (:mod:`~perfstats.adapters.cli.main`) is the console script.
"""

from .main import main

__all__ = ["main"]
