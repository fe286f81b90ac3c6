#!/bin/sh
# Install Debian's headless-capable Chromium and a basic font set for the
# browser check of the HTML report (tests/test_html_report.py).
# Idempotent: safe to run again on a machine that already has them.
set -eu

# fonts-dejavu-core: without any font Chromium renders text as empty boxes
# (and matplotlib's own fonts are embedded in the PNGs, not used by the page).
packages="chromium fonts-dejavu-core"

# shellcheck disable=SC2086  # word splitting of the package list is intended
sh "$(dirname "$0")/apt-install.sh" $packages

chromium --version
