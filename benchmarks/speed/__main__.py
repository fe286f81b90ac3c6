"""``python -m benchmarks.speed``: the speed suite (see ``suite.py``)."""

from benchmarks.speed.suite import main

raise SystemExit(main())
