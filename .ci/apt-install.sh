#!/bin/sh
# Install the Debian packages named as arguments that are not installed yet
# (one apt-get update only when something is missing). Idempotent.
set -eu

missing=""
for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    apt-get install -y -q --no-install-recommends $missing
fi
