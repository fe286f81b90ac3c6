"""The block-bootstrap schemes perfstats knows: one list, used wherever a block kind is checked.

* ``"moving"``: overlapping blocks of a fixed length (Kunsch 1989);
* ``"circular"``: the same with blocks that wrap around the end (Politis &
  Romano 1992);
* ``"stationary"``: geometric block lengths (Politis & Romano 1994);
* ``"superflow"``: the moving-block variant of SuperFlow's public reference
  code (``n - b`` blocks, ``floor((n - b) / b)`` of them per resample).
"""

from __future__ import annotations

__all__ = ["BLOCK_KINDS"]

BLOCK_KINDS: tuple[str, ...] = ("moving", "circular", "stationary", "superflow")
