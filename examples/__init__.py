"""Example systems shipped with perfstats (not part of the installed package)."""
