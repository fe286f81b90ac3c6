"""Sphinx configuration of the perfstats documentation.

Build with ``make -C docs html`` (or ``sphinx-build -W --keep-going -b html docs
docs/_build/html``). The notebooks of ``notebooks/`` (reached through the
``docs/notebooks`` link) are committed without outputs, so MyST-NB executes them
during the build, in quick mode (``PERFSTATS_QUICK=1``, a subset of the traces)
unless the environment says otherwise, and caches the results beside the build.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import perfstats

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
# benchmarks/ is referenced by the reproduction pages and imported by one notebook.
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(DOCS / "_ext"))
# The notebooks read this when their kernel starts: a subset of the traces keeps
# the build to a few minutes; PERFSTATS_QUICK=0 renders the full runs.
os.environ.setdefault("PERFSTATS_QUICK", "1")

project = "perfstats"
author = "the perfstats developers"
copyright = "the perfstats developers"
release = perfstats.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "member_docstrings",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]

# API reference: one stub page per public name, written at build time. Stubs of
# a name no longer listed would be orphans (a warning), so each build starts
# from none.
shutil.rmtree(DOCS / "api" / "generated", ignore_errors=True)
templates_path = ["_templates"]
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# The API reference is held to numpydoc's rules for what a reader of one page
# needs: every parameter documented with a type and a description (and nothing
# documented that the signature lacks), a described return value, sections in
# order, a summary line, and an example. With -W a docstring that breaks one
# fails the build. See Also (SA01) and an extended summary (ES01) are not
# required of every name.
numpydoc_validation_checks = {
    "EX01", "GL07", "PR01", "PR02", "PR03", "PR04", "PR07", "PR08", "PR09",
    "RT01", "RT03", "SS01", "SS03", "YD01",
}  # fmt: skip
# Module constants (tuples of names, the rule registry) describe a value: they
# have no parameters, returns or examples to check. Methods and properties
# (``Class.member``) are left to the member_docstrings extension (docs/_ext),
# which holds them to the same rules but the example: the class's example
# shows its members at work.
numpydoc_validation_exclude = {
    r"\.(BLOCK_KINDS|COLUMNS|DISTRIBUTION_CLASSES|RULES|STEADY_STATES|VERDICTS)$",
    r"\.[A-Z][A-Za-z0-9]*\.[a-z_][A-Za-z0-9_]*$",
}
member_validation_checks = numpydoc_validation_checks - {"EX01"}
# A References section lists the papers behind a module even where its text
# cites none of them by label.
suppress_warnings = ["ref.citation"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Notebooks: executed, since they are stored without outputs (tests check that).
nb_execution_mode = "cache"
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

html_theme = "pydata_sphinx_theme"
html_title = f"perfstats {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
