"""``python -m perfstats.adapters.cli``: the ``perfstats`` command without the console script."""

import sys

from .main import main

sys.exit(main())
