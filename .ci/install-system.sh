#!/bin/sh
# Every Debian package the project needs on a fresh machine of its kind
# (run as root): the real services of the adapter tests and the browser that
# checks the HTML report. Idempotent.
set -eu
here=$(dirname "$0")
sh "$here/install-services.sh"
sh "$here/install-browser.sh"
sh "$here/install-benchmark-tools.sh"
