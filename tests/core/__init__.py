"""Tests of the core, one folder per subpackage of perfstats.

Packages, so that a file may be named for the module it tests even where an
adapters test has the same name.
"""
