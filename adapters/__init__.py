"""Run real targets under a perfstats stopping rule and record every measurement.

This package lives in the repository folder ``adapters/`` and is installed as
:mod:`perfstats.adapters` (a top-level ``adapters`` would collide with an
existing package of that name). It depends on the pure core :mod:`perfstats`;
the core never imports it.
"""
